//! The tool result of an MCP call whose questions wait in the pending file: who answers them,
//! where, and with which commands, for the host that called and the way it runs.
//!
//! What ask-user can observe decides the route, here and nowhere else ([`Session::observe`]):
//! the client's `clientInfo.name` and the controlling terminal as ask-user finds it at the
//! call. An interactive host keeps the route in its chat; a headless run (no chat the person can
//! type into: `claude -p`, `codex exec`, `gemini -p`, `opencode run`) has the model tell the
//! person to answer from their own shell and to run the host again; where the two cannot be told
//! apart, the text gives both, the chat first.

use crate::host::{Commands, Host, Names, example_answers};

/// Who answers the questions in a host's chat, by the MCP client's `clientInfo.name`: the model
/// with its shell tool, relaying the person's answers (Claude Code, Codex, and any other), the
/// person typing a shell command into the chat with `!` (Gemini CLI, OpenCode), or pi, whose
/// package answers pending questions when the person continues the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relay {
    /// The model runs pass 2 with its shell tool, with the answers the person gives it.
    ModelShell,
    /// The person runs pass 2 in the chat with `!`.
    PersonBang,
    /// The person continues the pi session with the answers (`pi -c -p …`).
    Pi,
}

impl Relay {
    /// The relay of the MCP client named `client`.
    pub fn for_client(client: Option<&str>) -> Relay {
        match client.unwrap_or_default() {
            GEMINI | OPENCODE => Relay::PersonBang,
            "pi" | "pi-mcp-adapter" => Relay::Pi,
            _ => Relay::ModelShell,
        }
    }
}

const CLAUDE: &str = "claude-code";
const CODEX: &str = "codex-mcp-client";
const GEMINI: &str = "gemini-cli-mcp-client";
const OPENCODE: &str = "opencode";

/// The controlling terminal as ask-user finds it at the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terminal {
    /// `/dev/tty` does not open: no terminal at all.
    Absent,
    /// The terminal is canonical with echo on: nothing draws on it, as under a shell.
    Free,
    /// A program holds the terminal in raw mode to draw its screen.
    Held,
}

impl Terminal {
    /// The terminal that opens (`opens`) and is canonical with echo on (`canonical`) or not.
    pub fn of(opens: bool, canonical: bool) -> Terminal {
        match (opens, canonical) {
            (false, _) => Terminal::Absent,
            (true, true) => Terminal::Free,
            (true, false) => Terminal::Held,
        }
    }
}

/// Whether the person can answer in the host's chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Session {
    /// The host shows a chat the person types into.
    Interactive,
    /// The host runs one prompt and exits: nobody types into it.
    Headless,
    /// Either; ask-user cannot tell which.
    Either,
}

impl Session {
    /// How the host named `client` runs, from the terminal ask-user finds at the call:
    ///
    /// - Claude Code, Gemini CLI and OpenCode draw their interactive screen on a terminal held
    ///   in raw mode, so without a terminal, or with one nothing holds, they run headless.
    /// - Claude Code and OpenCode hold the terminal only in that screen (`claude -p` and
    ///   `opencode run` leave it free), so a held terminal is their chat. `gemini -p` holds it
    ///   too, so for Gemini CLI a held terminal is either.
    /// - Codex gives its servers no terminal in its interactive screen and none in a headless
    ///   `codex exec` run without one, so only a free terminal (`codex exec` from a shell) tells.
    /// - Any other client may be either.
    pub fn observe(client: Option<&str>, terminal: Terminal) -> Session {
        match (client.unwrap_or_default(), terminal) {
            (CLAUDE | GEMINI | OPENCODE | CODEX, Terminal::Free)
            | (CLAUDE | GEMINI | OPENCODE, Terminal::Absent) => Session::Headless,
            (CLAUDE | OPENCODE, Terminal::Held) => Session::Interactive,
            _ => Session::Either,
        }
    }
}

/// The command that continues the host's last session headless, sending the prompt "continue",
/// for the hosts whose command is known.
fn resume_command(client: Option<&str>) -> Option<&'static str> {
    match client.unwrap_or_default() {
        CLAUDE => Some("claude --continue -p \"continue\""),
        CODEX => Some("codex exec resume --last \"continue\""),
        GEMINI => Some("gemini --resume latest -p \"continue\""),
        OPENCODE => Some("opencode run --continue \"continue\""),
        _ => None,
    }
}

/// A call whose questions wait in the pending file, and what ask-user observed of its host.
#[derive(Debug, Clone, Copy)]
pub struct PendingCall<'a> {
    /// The client's `clientInfo.name`.
    pub client: Option<&'a str>,
    /// The controlling terminal at the call.
    pub terminal: Terminal,
    /// The pending file, as the commands name it.
    pub file: &'a str,
    /// How many questions wait.
    pub questions: usize,
    /// How ask-user and its tool are named.
    pub names: &'a Names,
}

/// The tool result of `call`: who answers the questions and how, in the host that called and
/// the way it runs ([`Session::observe`]), and that the answers come back when the model calls
/// the tool again with the same questions.
pub fn pending_instructions(call: &PendingCall<'_>) -> String {
    let PendingCall {
        client,
        terminal,
        file,
        questions,
        names,
    } = *call;
    let example = example_answers(questions);
    let count = match questions {
        1 => "The question waits".to_string(),
        n => format!("The {n} questions wait"),
    };
    let tool = names.tool();
    let again = format!(
        "Then call {tool} again with exactly the same questions: the answers come back as its \
         result (until they are given, it returns these instructions again)."
    );
    let commands = |host| Commands {
        host,
        names: names.clone(),
    };
    let inline = commands(Host::AskUser).inline_command(file, &example);
    let in_chat = match Relay::for_client(client) {
        Relay::ModelShell => format!(
            "Show the user the questions and ask for their answers. When they give them, run \
             with your shell tool:\n\x20 {inline}\n(or the user writes each answer into the \
             file and tells you). {again}"
        ),
        Relay::PersonBang => format!(
            "Show the user the questions and ask them to answer by typing this into the chat, \
             with their answers in question order:\n\x20 !{inline}\n(or to write each answer \
             into the file and tell you). {again}"
        ),
        Relay::Pi => {
            let pi = commands(Host::Pi).inline_command(file, &example);
            return format!(
                "Questions pending: the user has not answered yet. {count} in {file}.\n\n\
                 Show the user the questions; they answer by continuing this session with:\n\
                 \x20 {pi}\n{again}"
            );
        }
    };
    let resume = resume_command(client).map_or_else(
        || "the agent's own command that continues this session".to_string(),
        |command| format!("with the options they ran the agent with:\n\x20 {command}"),
    );
    let from_shell = format!(
        "show them the questions and tell them to answer from their own shell, with their \
         answers in question order:\n\x20 {inline}\n(or by writing each answer into the file), \
         and then to continue this session, {resume}\nWhen the session continues, call {tool} \
         again with exactly the same questions: the answers come back as its result."
    );
    let route = match Session::observe(client, terminal) {
        Session::Interactive => in_chat,
        Session::Headless => format!(
            "This run of the agent has no chat the user can answer in, and it ends with your \
             turn. End your turn: {from_shell}"
        ),
        Session::Either => format!(
            "{in_chat}\n\nIf this agent runs headless (the user cannot type into a chat here, \
             and the run ends with your turn), end your turn instead: {from_shell}"
        ),
    };
    format!("Questions pending: the user has not answered yet. {count} in {file}.\n\n{route}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(client: &'a str, terminal: Terminal, names: &'a Names) -> PendingCall<'a> {
        PendingCall {
            client: Some(client),
            terminal,
            file: "/w/p.json",
            questions: 2,
            names,
        }
    }

    #[test]
    fn each_host_and_terminal_gives_one_session() {
        use Session::*;
        use Terminal::*;
        let cases = [
            (CLAUDE, [Headless, Headless, Interactive]),
            (OPENCODE, [Headless, Headless, Interactive]),
            (GEMINI, [Headless, Headless, Either]),
            (CODEX, [Either, Headless, Either]),
            ("some-client", [Either, Either, Either]),
        ];
        for (client, sessions) in cases {
            for (terminal, session) in [Absent, Free, Held].into_iter().zip(sessions) {
                assert_eq!(
                    Session::observe(Some(client), terminal),
                    session,
                    "{client} {terminal:?}"
                );
            }
        }
        assert_eq!(Session::observe(None, Terminal::Free), Session::Either);
    }

    #[test]
    fn the_tool_and_the_program_are_named_as_served() {
        let names = Names::new("/opt/my tools/ask-user", "ask_person");
        let text = pending_instructions(&call(OPENCODE, Terminal::Held, &names));
        assert!(
            text.contains(
                "\n  !'/opt/my tools/ask-user' -p --answers '[\"answer 1\", \"answer 2\"]' \
                 --pending-file /w/p.json\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("Then call ask_person again with exactly the same questions: the answers come back as its result (until they are given, it returns these instructions again)."),
            "{text}"
        );
        assert!(!text.contains("ask_user"), "{text}");
        assert!(!text.contains(" ask-user "), "{text}");
    }

    #[test]
    fn a_headless_run_sends_the_person_to_their_shell_and_back_to_the_host() {
        let names = Names::new("/bin/ask-user", "ask_person");
        let text = pending_instructions(&call(GEMINI, Terminal::Absent, &names));
        assert_eq!(
            text,
            "Questions pending: the user has not answered yet. The 2 questions wait in \
             /w/p.json.\n\n\
             This run of the agent has no chat the user can answer in, and it ends with your \
             turn. End your turn: show them the questions and tell them to answer from their \
             own shell, with their answers in question order:\n\
             \x20 /bin/ask-user -p --answers '[\"answer 1\", \"answer 2\"]' --pending-file \
             /w/p.json\n\
             (or by writing each answer into the file), and then to continue this session, \
             with the options they ran the agent with:\n\
             \x20 gemini --resume latest -p \"continue\"\n\
             When the session continues, call ask_person again with exactly the same \
             questions: the answers come back as its result."
        );
        assert!(!text.contains("chat:"), "{text}");
        assert!(!text.contains("!/bin"), "{text}");
    }

    #[test]
    fn where_the_session_is_unknown_both_routes_are_given_the_chat_first() {
        let names = Names::default();
        let text = pending_instructions(&call(GEMINI, Terminal::Held, &names));
        let chat = text.find("typing this into the chat").unwrap();
        let shell = text.find("answer from their own shell").unwrap();
        assert!(chat < shell, "{text}");
        assert!(text.contains("gemini --resume latest -p \"continue\""));
        let other = pending_instructions(&call("some-client", Terminal::Absent, &names));
        assert!(other.contains("run with your shell tool:"), "{other}");
        assert!(
            other.contains("the agent's own command that continues this session"),
            "{other}"
        );
    }

    #[test]
    fn each_known_host_names_its_own_resume_command() {
        let names = Names::default();
        for (client, resume) in [
            (CLAUDE, "claude --continue -p \"continue\""),
            (CODEX, "codex exec resume --last \"continue\""),
            (OPENCODE, "opencode run --continue \"continue\""),
        ] {
            let text = pending_instructions(&call(client, Terminal::Free, &names));
            assert!(text.contains(&format!("\n  {resume}\n")), "{text}");
            assert!(text.contains("answer from their own shell"), "{text}");
            assert!(!text.contains("typing this into the chat"), "{text}");
        }
    }

    #[test]
    fn pi_continues_its_session_whatever_the_terminal() {
        let names = Names::new("/bin/ask-user", "ask_user");
        let text = pending_instructions(&call("pi", Terminal::Absent, &names));
        assert!(
            text.contains("  pi -c -p --answers '[\"answer 1\", \"answer 2\"]' \"continue\"\n"),
            "{text}"
        );
    }
}
