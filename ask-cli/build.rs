//! How the optimised `ask-user` of Linux is linked: at a fixed address, and with the code that
//! start-up runs placed together.
//!
//! A position-independent executable (the toolchain's default) is relocated by the dynamic
//! loader at every start: every pointer in its read-only data (tables of string slices, trait
//! objects, clap's and serde's descriptions) is rewritten, about 21,000 of them, which reads the
//! relocation table and copies each page it writes: a fifth of the CPU time of a
//! whole `ask-user validate`, a hundred page faults and up to 0.9 MiB of its memory. Linked at
//! a fixed address, the executable has no relocations to apply and its read-only data stays
//! shared with the page cache. The shared libraries, the stack and the heap are still placed at
//! random addresses; only the executable's own code and data are not. Debug builds keep the
//! default.
//!
//! The kernel maps code in blocks of up to 64 KiB around each page a fault touches, so the few
//! hundred KB of code that a short command or the terminal UI's first frame runs cost as many
//! blocks as they are spread over. `startup-order.txt` lists those functions
//! (`bench/startup_order.py` writes it), and LLD, the toolchain's linker on x86-64 Linux since
//! Rust 1.90, places them first. A name the file lists that the binary does not have (after a
//! toolchain or dependency update) is skipped: the binary is the same program, only less
//! compact.
//!
//! The C start-up files give the executable an `_init` and a `_fini` that do nothing (they
//! would call a profiler's hook, which this program never has); the loader calls them at start
//! and exit, and LLD puts them after all the code, so each command would touch one more block
//! of code for them. These builds name no such functions to the loader.
//!
//! The same builds take the unwinder from GCC's static `libgcc_eh.a` instead of the shared
//! `libgcc_s.so.1`: the same unwinder (with `panic = "abort"` it only walks the stack for a
//! backtrace), linked in, so the loader does not open, map and relocate a third library at
//! every start, nor run its constructor (which asks the CPU for its features, slow in a
//! virtual machine): about a sixth of the CPU time of `fn main() {}`.

// Build scripts read cargo's environment: that is their interface.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=startup-order.txt");
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    // `release` for every profile that inherits from the release profile (`dist`, `bench`).
    if env("CARGO_CFG_TARGET_OS") != "linux" || env("PROFILE") != "release" {
        return;
    }
    println!("cargo::rustc-link-arg-bins=-no-pie");
    let order = Path::new(&env("CARGO_MANIFEST_DIR")).join("startup-order.txt");
    if env("TARGET") == "x86_64-unknown-linux-gnu" && order.is_file() && links_with_lld() {
        println!(
            "cargo::rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
        // A function that does not exist: the dynamic section gets no DT_INIT and no DT_FINI.
        println!("cargo::rustc-link-arg-bins=-Wl,-init=ask_user_none,-fini=ask_user_none");
        // Named before the standard library asks for `-lgcc_s`, so the unwinder's symbols are
        // defined by the time LLD reaches the shared library, which `--as-needed` then drops.
        if has_static_unwinder() {
            println!("cargo::rustc-link-lib=static=gcc_eh");
        }
    }
}

/// Whether the C compiler that drives the link has GCC's static unwinder, `libgcc_eh.a`.
fn has_static_unwinder() -> bool {
    Command::new("cc")
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .is_some_and(|out| Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_absolute())
}

/// Whether the binary is linked by the toolchain's own LLD: Rust 1.90 or newer with `rust-lld`
/// in its sysroot, and no other linker asked for (a cross-linker such as the zig wrapper of the
/// Python packages, or flags that choose one). Other linkers may not know the ordering flag.
fn links_with_lld() -> bool {
    println!("cargo::rerun-if-env-changed=RUSTC_LINKER");
    let chosen = std::env::var("RUSTC_LINKER").is_ok()
        || std::env::var("CARGO_ENCODED_RUSTFLAGS")
            .is_ok_and(|flags| flags.contains("linker") || flags.contains("fuse-ld"));
    if chosen {
        return false;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let output = |args: &[&str]| {
        Command::new(&rustc)
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let minor = output(&["--version"]).and_then(|version| {
        let number = version.split_whitespace().nth(1)?.to_string();
        number.split('.').nth(1)?.parse::<u32>().ok()
    });
    let sysroot = output(&["--print", "sysroot"]);
    let lld = sysroot.is_some_and(|root| {
        Path::new(&root)
            .join("lib/rustlib/x86_64-unknown-linux-gnu/bin/gcc-ld/ld.lld")
            .is_file()
    });
    minor.is_some_and(|minor| minor >= 90) && lld
}
