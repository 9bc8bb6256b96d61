//! The agent host that runs `ask-user`, as far as print mode's words are concerned: the commands
//! of pass 2 that the person (or the model relaying them) runs are the host's own, and print mode
//! writes them into its instructions, the pending file's `howToAnswer` and its messages.
//!
//! Without a host the commands are `ask-user`'s, run as [`Names`] says: the binary that wrote
//! them, by its absolute path, when its host gives it. Under pi, the pi package answers the pending
//! questions itself (it runs `ask-user` in the background and injects the answers before the
//! next turn), so the person continues the pi session instead: `pi -c -p …`.
//!
//! Every path in a command goes through [`ask_core::shell_quote`], so each command runs as
//! printed whatever the path holds.

use std::fmt;
use std::str::FromStr;

use ask_core::shell_quote;

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
}

/// How the words of print mode name ask-user and its tool: the command that runs the ask-user
/// that wrote them (the absolute path of the running binary, so that it runs in a shell whose
/// `PATH` has no `ask-user`, as under `npx`), shell-quoted, and the name the model calls the
/// tool by (`--tool-name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    program: String,
    tool: String,
}

impl Names {
    /// The names of the program at `program` serving the tool `tool`.
    pub fn new(program: &str, tool: &str) -> Names {
        Names {
            program: shell_quote(program).into_owned(),
            tool: tool.to_string(),
        }
    }

    /// The command that runs ask-user, shell-quoted.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The tool's name as served.
    pub fn tool(&self) -> &str {
        &self.tool
    }
}

impl Default for Names {
    /// `ask-user` found on `PATH`, serving `ask_user`.
    fn default() -> Names {
        Names::new("ask-user", "ask_user")
    }
}

/// The commands of pass 2 in the words of one host, with ask-user's own run as [`Names`] says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Commands {
    /// The host whose commands answer.
    pub host: Host,
    /// How ask-user and its tool are named.
    pub names: Names,
}

impl From<Host> for Commands {
    fn from(host: Host) -> Commands {
        Commands {
            host,
            names: Names::default(),
        }
    }
}

impl Commands {
    /// The command that answers every pending question in `file` with one reply in the
    /// person's own words.
    pub fn reply_command(&self, file: &str) -> String {
        let file = shell_quote(file);
        match self.host {
            Host::AskUser => format!("{} -p @{file} \"your answers\"", self.names.program),
            Host::Pi => format!("pi -c -p @{file} \"your answers\""),
        }
    }

    /// The command that takes the answers written into the pending file `file`.
    pub fn edited_command(&self, file: &str) -> String {
        match self.host {
            Host::AskUser => format!(
                "{} -c --pending-file {}",
                self.names.program,
                shell_quote(file)
            ),
            // The pi package knows its pending file; pi's own -c continues the session.
            Host::Pi => "pi -c -p \"continue\"".to_string(),
        }
    }

    /// The command that gives the answers to the questions pending in `file` inline;
    /// `example` is the inside of the JSON array.
    pub fn inline_command(&self, file: &str, example: &str) -> String {
        match self.host {
            Host::AskUser => format!(
                "{} -p --answers '[{example}]' --pending-file {}",
                self.names.program,
                shell_quote(file)
            ),
            Host::Pi => format!("pi -c -p --answers '[{example}]' \"continue\""),
        }
    }

    /// The command that clears the questions pending in `file`.
    pub fn clear_command(&self, file: &str) -> String {
        format!(
            "{} questions clear --pending-file {}",
            self.names.program,
            shell_quote(file)
        )
    }

    /// The instructions the model relays to the person when `questions` questions wait in the
    /// pending file `file`: the three ways to answer them, in this host's commands. The example
    /// `--answers` array has one entry per question.
    pub fn instructions(&self, file: &str, questions: usize) -> String {
        let example = example_answers(questions);
        format!(
            "Questions pending. User input required.\n\
             \n\
             To answer, re-run with:\n\
             \x20 {reply}\n\
             \n\
             Or edit the JSON file and run:\n\
             \x20 {edited}\n\
             \n\
             Or give the answers in question order:\n\
             \x20 {inline}\n\
             \n\
             Questions saved to: {file}",
            reply = self.reply_command(file),
            edited = self.edited_command(file),
            inline = self.inline_command(file, &example),
        )
    }

    /// The note written into each new pending file `file` (its `howToAnswer`).
    pub fn how_to_answer(&self, file: &str) -> String {
        format!(
            "Replace each null answer with your answer: an option label or your own words (for a \
             multiSelect question, a list of labels, your own words added to them, or [] for none \
             of them). Then run: {}",
            self.edited_command(file)
        )
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A host name that names no [`Host`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown host `{name}`; known: {}", known_hosts())]
pub struct UnknownHost {
    /// The name as given, without surrounding spaces.
    pub name: String,
}

/// The names of every host, as [`UnknownHost`] lists them.
fn known_hosts() -> String {
    let known: Vec<_> = Host::ALL.iter().map(|h| h.as_str()).collect();
    known.join(", ")
}

impl FromStr for Host {
    type Err = UnknownHost;

    /// Reads a host name: `ask-user` or `pi` (case and surrounding spaces ignored).
    fn from_str(text: &str) -> Result<Host, UnknownHost> {
        let name = text.trim().to_ascii_lowercase();
        Host::ALL
            .into_iter()
            .find(|host| host.as_str() == name)
            .ok_or_else(|| UnknownHost {
                name: text.trim().to_string(),
            })
    }
}

/// The example `--answers` entries for `questions` questions: one per question.
pub(crate) fn example_answers(questions: usize) -> String {
    if questions <= 1 {
        "\"your answer\"".to_string()
    } else {
        (1..=questions)
            .map(|n| format!("\"answer {n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    #[allow(clippy::too_many_arguments)]
    fn check(host: Host, reply: &str, edited: &str, inline: &str) {
        let host = Commands::from(host);
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
    fn a_path_that_needs_quoting_is_quoted_in_every_command() {
        check_quoted(
            Host::AskUser,
            "/w/my dir/it's.json",
            "ask-user -p @'/w/my dir/it'\\''s.json' \"your answers\"",
            "ask-user -c --pending-file '/w/my dir/it'\\''s.json'",
        );
        assert_eq!(
            Commands::from(Host::Pi).reply_command("/w/my dir/p.json"),
            "pi -c -p @'/w/my dir/p.json' \"your answers\""
        );
    }

    #[track_caller]
    #[allow(clippy::too_many_arguments)]
    fn check_quoted(host: Host, file: &str, reply: &str, edited: &str) {
        let host = Commands::from(host);
        assert_eq!(host.reply_command(file), reply);
        assert_eq!(host.edited_command(file), edited);
        assert!(
            host.how_to_answer(file)
                .ends_with(&format!("Then run: {edited}"))
        );
        let instructions = host.instructions(file, 1);
        assert!(
            instructions.contains(&format!("  {reply}\n")),
            "{instructions}"
        );
        assert!(
            instructions.contains(&format!("  {edited}\n")),
            "{instructions}"
        );
        // The last line names the file as it is, for people to read.
        assert!(instructions.ends_with(&format!("Questions saved to: {file}")));
    }

    #[test]
    fn pi_instructions_name_only_pi_commands() {
        assert_eq!(
            Commands::from(Host::Pi).instructions("/w/.pi/pending-questions.json", 2),
            "Questions pending. User input required.\n\
             \n\
             To answer, re-run with:\n\
             \x20 pi -c -p @/w/.pi/pending-questions.json \"your answers\"\n\
             \n\
             Or edit the JSON file and run:\n\
             \x20 pi -c -p \"continue\"\n\
             \n\
             Or give the answers in question order:\n\
             \x20 pi -c -p --answers '[\"answer 1\", \"answer 2\"]' \"continue\"\n\
             \n\
             Questions saved to: /w/.pi/pending-questions.json"
        );
        let own = Commands::from(Host::AskUser).instructions(".pi/pending-questions.json", 1);
        assert!(own.contains("  ask-user -p @.pi/pending-questions.json \"your answers\"\n"));
        assert!(own.contains("  ask-user -p --answers '[\"your answer\"]' --pending-file .pi/pending-questions.json\n"));
    }

    #[test]
    fn ask_user_runs_as_named_and_the_path_of_the_program_is_quoted() {
        let commands = Commands {
            host: Host::AskUser,
            names: Names::new("/opt/my tools/ask-user", "ask_person"),
        };
        assert_eq!(
            commands.inline_command("/w/p.json", "\"a\""),
            "'/opt/my tools/ask-user' -p --answers '[\"a\"]' --pending-file /w/p.json"
        );
        assert_eq!(
            commands.clear_command("/w/p.json"),
            "'/opt/my tools/ask-user' questions clear --pending-file /w/p.json"
        );
        // pi's commands are pi's, whatever runs ask-user.
        let pi = Commands {
            host: Host::Pi,
            ..commands
        };
        assert_eq!(pi.edited_command("/w/p.json"), "pi -c -p \"continue\"");
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_listed() {
        for host in Host::ALL {
            assert_eq!(host.as_str().parse::<Host>(), Ok(host));
        }
        assert_eq!(" PI ".parse::<Host>(), Ok(Host::Pi));
        let unknown = "claude".parse::<Host>().unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "unknown host `claude`; known: ask-user, pi"
        );
    }
}
