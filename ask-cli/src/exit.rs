//! The exit codes scripts and agents rely on; docs/exit-codes.md lists them.

/// How the command ended, as an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// 0: answered, or the input is valid.
    Ok,
    /// 1: an unexpected failure (a terminal or file that could not be used).
    Failure,
    /// 2: invalid input or usage.
    Invalid,
    /// 3: refused, because the caller is a sub-agent.
    Refused,
    /// 4: the questions are pending in a file (print pass 1).
    Pending,
    /// 5: the client presenting the questions went away.
    ConnectionLost,
    /// 130: the person cancelled.
    Cancelled,
    /// 128 + N: the UI was ended by signal N (SIGHUP 129, SIGINT 130, SIGTERM 143), or by
    /// Ctrl+C twice (130); nothing was answered or saved.
    Signal(u8),
}

impl Exit {
    /// The exit for a UI ended by signal `number`.
    pub(crate) fn for_signal(number: i32) -> Exit {
        Exit::Signal(u8::try_from(number).unwrap_or(0))
    }

    /// The numeric exit code.
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Failure => 1,
            Exit::Invalid => 2,
            Exit::Refused => 3,
            Exit::Pending => 4,
            Exit::ConnectionLost => 5,
            Exit::Cancelled => 130,
            Exit::Signal(number) => 128u8.saturating_add(number),
        }
    }
}
