//! `maxrss COMMAND ARGS…`: runs the command with stdout and stderr discarded and prints the
//! peak resident memory of that process in KiB (`ru_maxrss` from `wait4`).
//!
//! The kernel counts in `ru_maxrss` the memory the process had before its `exec` as well, so
//! the launcher must be small (a Python parent would count its own tens of MiB) and it forks
//! rather than sharing its memory with the child as `posix_spawn` does. What the launcher
//! leaves in the child before `exec` is the floor of what it can report: `maxrss empty` shows it.

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStringExt;
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<CString> = std::env::args_os()
        .skip(1)
        .map(|arg: OsString| CString::new(arg.into_vec()).unwrap_or_default())
        .collect();
    if argv.is_empty() {
        eprintln!("usage: maxrss COMMAND ARGS...");
        return ExitCode::from(2);
    }
    let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());
    let null = c"/dev/null";
    // SAFETY: the child only calls async-signal-safe functions (open, dup2, execvp, _exit)
    // before exec, on memory prepared before the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        eprintln!("maxrss: fork failed");
        return ExitCode::from(2);
    }
    if pid == 0 {
        // SAFETY: see above.
        unsafe {
            let fd = libc::open(null.as_ptr(), libc::O_WRONLY);
            libc::dup2(fd, 1);
            libc::dup2(fd, 2);
            libc::execvp(pointers[0], pointers.as_ptr());
            libc::_exit(127);
        }
    }
    let mut status = 0;
    // SAFETY: wait4 writes one rusage struct into the zeroed value it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above, for the child just forked.
    if unsafe { libc::wait4(pid, &mut status, 0, &mut usage) } != pid {
        eprintln!("maxrss: wait4 failed");
        return ExitCode::from(2);
    }
    println!("{}", usage.ru_maxrss);
    ExitCode::SUCCESS
}
