//! The exit codes scripts and agents rely on (SPEC §8).

use std::process::ExitCode;

/// How the command ended, as an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: answered, or the input is valid.
    Ok = 0,
    /// 1: an unexpected failure (a terminal or file that could not be used).
    Failure = 1,
    /// 2: invalid input or usage.
    Invalid = 2,
    /// 3: refused, because the caller is a sub-agent.
    Refused = 3,
    /// 4: the questions are pending in a file (print pass 1).
    Pending = 4,
    /// 5: the client presenting the questions went away.
    ConnectionLost = 5,
    /// 130: the person cancelled.
    Cancelled = 130,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}
