//! The check that keeps the terminal UI off a terminal another program holds: this test binary
//! starts itself again as the child of a pseudo-terminal (its controlling terminal), under a
//! shell that puts the terminal in raw mode or the child in a background process group, and the
//! child writes what `ask_tui::Access::now` found.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::time::{Duration, Instant};

use ask_tui::Access;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// The variable that makes this binary the child: the file it writes its finding into.
const CHILD: &str = "ASK_TUI_FOREGROUND_CHILD";

/// The child's part: it writes what it found, and says "printed" when `say_on_terminal` wrote.
#[test]
fn child_reports_its_terminal() {
    let Some(out) = std::env::var_os(CHILD) else {
        return;
    };
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
    let child = format!(
        "{} --exact child_reports_its_terminal --test-threads 1 >/dev/null 2>&1",
        exe.display()
    );
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

#[test]
fn a_foreground_process_on_a_canonical_terminal_may_draw_and_print() {
    assert_eq!(
        found("$CHILD"),
        "opens=true foreground=true canonical=true draw=true printed=true"
    );
}

#[test]
fn a_terminal_held_in_raw_mode_is_neither_drawn_on_nor_printed_on() {
    assert_eq!(
        found("stty raw -echo; $CHILD"),
        "opens=true foreground=true canonical=false draw=false printed=false"
    );
}

#[test]
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
