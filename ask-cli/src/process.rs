//! The process's start on Linux with glibc, where the binary defines the C `main` and skips the
//! standard library's start-up: what that start-up did for the standard streams and SIGPIPE.

/// What the standard library's start-up does for the process, for a binary that skips it
/// (`ask-user` on Linux with glibc):
/// - each standard stream that is closed is opened on `/dev/null`: otherwise the next file the
///   process opens would take the stream's number, and what is meant for stdout or stderr would
///   go into that file;
/// - SIGPIPE is ignored: a write to a closed pipe fails with EPIPE, which each command reports,
///   instead of killing the process. Child processes get the default action back.
///
/// Call it first, before any other thread exists.
#[allow(unsafe_code)]
pub(crate) fn start_process() {
    use rustix::fs::{Mode, OFlags, open};
    use rustix::io::{Errno, fcntl_getfd};
    use std::io;
    use std::os::fd::IntoRawFd;
    let streams = [
        fcntl_getfd(io::stdin()),
        fcntl_getfd(io::stdout()),
        fcntl_getfd(io::stderr()),
    ];
    for stream in streams {
        if stream == Err(Errno::BADF) {
            // The lowest free number, which is the stream's: kept open for the process's life.
            match open("/dev/null", OFlags::RDWR, Mode::empty()) {
                Ok(null) => drop(null.into_raw_fd()),
                Err(_) => std::process::abort(),
            }
        }
    }
    // SAFETY: ignoring a signal is a valid disposition, and no other thread is running that
    // could be changing it at the same time.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}
