//! The agent host that runs `ask-user`, as far as print mode's instructions are concerned: the
//! commands of pass 2 that the person (or the model relaying them) runs are the host's own.
//!
//! Without a host the commands are `ask-user`'s. Under pi, the pi package answers the pending
//! questions itself (it runs `ask-user` in the background and injects the answers before the
//! next turn), so the person continues the pi session instead: `pi -c -p …`.

use std::fmt;
use std::str::FromStr;

/// The program whose commands answer pending questions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Host {
    /// `ask-user` itself: `ask-user -c`, `ask-user -p --answers …`, `ask-user -p @FILE "…"`.
    #[default]
    AskUser,
    /// pi, with the pi package of `integrations/pi`: `pi -c -p "continue"`,
    /// `pi -c -p --answers '[…]' "continue"`, `pi -c -p @FILE "…"`.
    Pi,
}

impl Host {
    /// Every host, in the order of the list above.
    pub const ALL: [Host; 2] = [Host::AskUser, Host::Pi];

    /// The name used in `--host` and `ASK_USER_HOST`.
    pub fn as_str(self) -> &'static str {
        match self {
            Host::AskUser => "ask-user",
            Host::Pi => "pi",
        }
    }

    /// The command that answers every pending question with one reply in the person's own
    /// words. `file` is shell-quoted already.
    pub fn reply_command(self, file: &str) -> String {
        match self {
            Host::AskUser => format!("ask-user -p @{file} \"your answers\""),
            Host::Pi => format!("pi -c -p @{file} \"your answers\""),
        }
    }

    /// The command that takes the answers written into the pending file. `file` is
    /// shell-quoted already.
    pub fn edited_command(self, file: &str) -> String {
        match self {
            Host::AskUser => format!("ask-user -c --pending-file {file}"),
            // The pi package knows its pending file; pi's own -c continues the session.
            Host::Pi => "pi -c -p \"continue\"".to_string(),
        }
    }

    /// The command that gives the answers inline; `example` is the inside of the JSON array.
    /// `file` is shell-quoted already.
    pub fn inline_command(self, file: &str, example: &str) -> String {
        match self {
            Host::AskUser => format!("ask-user -p --answers '[{example}]' --pending-file {file}"),
            Host::Pi => format!("pi -c -p --answers '[{example}]' \"continue\""),
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Host {
    type Err = String;

    /// Reads a host name: `ask-user` or `pi` (case and surrounding spaces ignored).
    fn from_str(text: &str) -> Result<Host, String> {
        let name = text.trim().to_ascii_lowercase();
        Host::ALL
            .into_iter()
            .find(|host| host.as_str() == name)
            .ok_or_else(|| {
                let known: Vec<_> = Host::ALL.iter().map(|h| h.as_str()).collect();
                format!(
                    "unknown host `{}`; known: {}",
                    text.trim(),
                    known.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(host: Host, reply: &str, edited: &str, inline: &str) {
        assert_eq!(host.reply_command("/w/p.json"), reply);
        assert_eq!(host.edited_command("/w/p.json"), edited);
        assert_eq!(host.inline_command("/w/p.json", "\"a\""), inline);
    }

    #[test]
    fn ask_user_names_its_own_commands() {
        check(
            Host::AskUser,
            "ask-user -p @/w/p.json \"your answers\"",
            "ask-user -c --pending-file /w/p.json",
            "ask-user -p --answers '[\"a\"]' --pending-file /w/p.json",
        );
    }

    #[test]
    fn pi_names_pi_commands_that_continue_the_session() {
        check(
            Host::Pi,
            "pi -c -p @/w/p.json \"your answers\"",
            "pi -c -p \"continue\"",
            "pi -c -p --answers '[\"a\"]' \"continue\"",
        );
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_listed() {
        for host in Host::ALL {
            assert_eq!(host.as_str().parse::<Host>(), Ok(host));
        }
        assert_eq!(" PI ".parse::<Host>(), Ok(Host::Pi));
        assert_eq!(
            "claude".parse::<Host>(),
            Err("unknown host `claude`; known: ask-user, pi".to_string())
        );
    }
}
