//! A process of its own: this binary starts itself again, as the child of a pseudo-terminal.
//!
//! The check that keeps the terminal UI off a terminal another program holds: this test binary
//! starts itself again as the child of a pseudo-terminal (its controlling terminal), under a
//! shell that puts the terminal in raw mode or the child in a background process group, and the
//! child writes what `ask_tui::Access::now` found.
//!
//! The binary has a `main` of its own (`harness = false` in the manifest): started with
//! [`CHILD`] set, it is the child and runs no test; otherwise it runs the tests below, as the
//! standard harness would, and lists them with `--list`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::print_stdout
)]

use std::io::Read;
use std::time::{Duration, Instant};

use ask_tui::Access;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// The variable that makes this binary the child: the file it writes its finding into.
const CHILD: &str = "ASK_TUI_FOREGROUND_CHILD";

/// The child's part: it writes what it found, and says "printed" when `say_on_terminal` wrote.
fn report_terminal(out: std::ffi::OsString) {
    let access = Access::now();
    let printed = ask_tui::say_on_terminal("a line for the person\r\n");
    let text = format!(
        "opens={} foreground={} canonical={} draw={} printed={printed}",
        access.opens,
        access.foreground,
        access.canonical,
        access.can_draw()
    );
    std::fs::write(out, text).unwrap();
}

/// The tests, by name.
const TESTS: [(&str, fn()); 3] = [
    (
        "a_foreground_process_on_a_canonical_terminal_may_draw_and_print",
        a_foreground_process_on_a_canonical_terminal_may_draw_and_print,
    ),
    (
        "a_terminal_held_in_raw_mode_is_neither_drawn_on_nor_printed_on",
        a_terminal_held_in_raw_mode_is_neither_drawn_on_nor_printed_on,
    ),
    (
        "a_background_process_group_never_draws_and_prints_only_where_it_cannot_be_stopped",
        a_background_process_group_never_draws_and_prints_only_where_it_cannot_be_stopped,
    ),
];

/// The child's part when [`CHILD`] is set; else the tests that the arguments select (the
/// standard harness's filters, `--exact`, `--skip` and `--list`; its other options change
/// nothing here), one after another.
fn main() {
    if let Some(out) = std::env::var_os(CHILD) {
        report_terminal(out);
        return;
    }
    let mut args = std::env::args().skip(1);
    let (mut list, mut exact, mut ignored_only) = (false, false, false);
    let (mut filters, mut skips) = (Vec::new(), Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list" => list = true,
            "--exact" => exact = true,
            "--ignored" => ignored_only = true,
            "--skip" => skips.extend(args.next()),
            "--test-threads" | "--format" | "--color" | "--logfile" | "--shuffle-seed" | "-Z" => {
                args.next();
            }
            flag if flag.starts_with('-') => {}
            filter => filters.push(filter.to_string()),
        }
    }
    let matches = |name: &str, pattern: &String| {
        if exact {
            name == pattern
        } else {
            name.contains(pattern.as_str())
        }
    };
    let chosen: Vec<_> = TESTS
        .iter()
        .filter(|_| !ignored_only)
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| matches(name, f)))
        .filter(|(name, _)| !skips.iter().any(|s| matches(name, s)))
        .collect();
    if list {
        for (name, _) in &chosen {
            println!("{name}: test");
        }
        return;
    }
    println!("\nrunning {} tests", chosen.len());
    let mut failed = Vec::new();
    for (name, test) in &chosen {
        let passed = std::panic::catch_unwind(test).is_ok();
        println!("test {name} ... {}", if passed { "ok" } else { "FAILED" });
        if !passed {
            failed.push(*name);
        }
    }
    let verdict = if failed.is_empty() { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {} passed; {} failed; 0 ignored; 0 measured; {} filtered out\n",
        chosen.len() - failed.len(),
        failed.len(),
        TESTS.len() - chosen.len()
    );
    if !failed.is_empty() {
        std::process::exit(101);
    }
}

/// Runs `script` (where `$CHILD` starts the child) under `sh -c` in a fresh pseudo-terminal and
/// gives what the child found.
fn found(script: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ask-tui-fg-{}-{}", std::process::id(), rand()));
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let exe = std::env::current_exe().unwrap();
    let child = format!("{} >/dev/null 2>&1", exe.display());
    let mut command = CommandBuilder::new("sh");
    command.arg("-c");
    command.arg(script.replace("$CHILD", &child));
    command.env(CHILD, &dir);
    let mut process = pair.slave.spawn_command(command).unwrap();
    // Drain the terminal so that nothing blocks on a full buffer.
    let mut reader = pair.master.try_clone_reader().unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while reader.read(&mut buf).is_ok_and(|n| n > 0) {}
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(&dir)
            && !text.is_empty()
        {
            let _ = process.kill();
            let _ = std::fs::remove_file(&dir);
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "the child did not report in time"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn rand() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn a_foreground_process_on_a_canonical_terminal_may_draw_and_print() {
    assert_eq!(
        found("$CHILD"),
        "opens=true foreground=true canonical=true draw=true printed=true"
    );
}

fn a_terminal_held_in_raw_mode_is_neither_drawn_on_nor_printed_on() {
    assert_eq!(
        found("stty raw -echo; $CHILD"),
        "opens=true foreground=true canonical=false draw=false printed=false"
    );
}

fn a_background_process_group_never_draws_and_prints_only_where_it_cannot_be_stopped() {
    // With job control on, a job started with `&` has a process group of its own, and the
    // shell's group stays in the foreground.
    assert_eq!(
        found("set -m; stty tostop; $CHILD & wait"),
        "opens=true foreground=false canonical=true draw=false printed=false"
    );
    assert_eq!(
        found("set -m; stty -tostop; $CHILD & wait"),
        "opens=true foreground=false canonical=true draw=false printed=true"
    );
}
