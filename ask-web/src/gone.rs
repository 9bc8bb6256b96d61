//! Whether the agent that waits for `--mode web` is still there: a process whose parent died or
//! whose stdout was closed has nobody to give the answer to.

use std::os::fd::AsFd;
use std::time::Duration;

/// How often [`AgentWatch::gone`] looks.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// Watches the agent of this process: its parent process, and the reading end of stdout.
#[derive(Debug, Clone)]
pub struct AgentWatch {
    parent: u32,
}

impl AgentWatch {
    /// Watches the parent this process has now, and stdout.
    pub fn this_process() -> AgentWatch {
        AgentWatch {
            parent: std::os::unix::process::parent_id(),
        }
    }

    /// True while the parent is the same process and stdout still has a reader.
    pub fn is_there(&self) -> bool {
        std::os::unix::process::parent_id() == self.parent && !stdout_closed()
    }

    /// Resolves once the agent is gone.
    pub async fn gone(&self) {
        while self.is_there() {
            tokio::time::sleep(LOOK_EVERY).await;
        }
    }
}

/// True when stdout is a pipe or socket whose reading end was closed: `poll` reports an error
/// or a hang-up on it without blocking.
fn stdout_closed() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let stdout = std::io::stdout();
    let fd = stdout.as_fd();
    let mut fds = [PollFd::new(&fd, PollFlags::OUT)];
    let zero = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    match rustix::event::poll(&mut fds, Some(&zero)) {
        Ok(_) => fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP),
        Err(_) => false,
    }
}
