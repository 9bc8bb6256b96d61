//! The command line, as clap definitions.

use std::path::PathBuf;

use ask_core::{Limits, Presenter, RaisedWith};
use ask_print::Host;
use ask_tui::Lang;
use clap::builder::FalseyValueParser;
use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

/// The end of `ask-user --help`: the exit codes and the environment, which scripts rely on.
const AFTER_HELP: &str = "\
Exit codes:
  0    answered, or valid
  1    an unexpected failure (a terminal, pending file or session log that could not be used), or
       --via refusing an inbox that did not prove itself for the address dialled (nothing sent)
  2    invalid input or usage
  3    refused: the caller is a sub-agent
  4    pending: the questions wait in the pending file
  5    the client presenting the questions went away
  130  cancelled (the cancelled result on stdout); or interrupted by SIGINT or Ctrl+C twice
  129, 143  ended by SIGHUP or SIGTERM (nothing saved; nothing on stdout but, with --output
            tool, an error saying the questions were interrupted)

Environment:
  ASK_USER_PENDING_FILE  the pending-questions file (--pending-file)
  ASK_USER_SESSION       the session log (--session)
  ASK_USER_SUBAGENT=1    the caller is a sub-agent (--sub-agent)
  ASK_USER_HOST          the host whose commands answer pending questions (--host)
  ASK_USER_PRESENT       the presenters of `ask-user mcp`, in order (--present)
  ASK_USER_TOOL_NAME     the name `ask-user mcp` serves the tool under (--tool-name)
  ASK_USER_NO_OPEN       if set, `ask-user mcp` opens no browser for its page (--no-open; --mode web
                         takes it too, and never opens one)
  ASK_USER_VIA           the inbox of `ask-user serve` to send the questions to (--via)
  ASK_USER_VIA_TOKEN     the agent token of that inbox (else its token file)
  ASK_USER_VIA_TOKEN_FILE  the inbox's token file (--token-file)
  ASK_USER_NO_TTY        if set, never open the terminal: auto mode takes print mode and `mcp` skips `tui`
  ASK_USER_TRUST_OWNERS  uids (comma-separated) whose files and folders are used as the user's own:
                         for a container where the agent and the person are different users
  LC_ALL, LC_MESSAGES, LANG  the terminal UI's language without --lang: the first one set decides
                         (en, de, es, fr, ja, zh; any other language is English)";

/// Ask the person structured questions on behalf of an LLM agent.
///
/// With INPUT (a file holding the `ask_user` tool input or a tool-call envelope, or - for stdin;
/// when INPUT is left out, stdin is read if it is a pipe or a file), the questions are asked and
/// the result is printed on stdout as one JSON document.
#[derive(Debug, Parser)]
#[command(
    name = "ask-user",
    version,
    about,
    override_usage = "ask-user [OPTIONS] [INPUT]\n       ask-user [--no-notify] [--output FORMAT] demo\n       ask-user <COMMAND> [OPTIONS]",
    after_help = AFTER_HELP,
    subcommand_negates_reqs = true,
    disable_help_flag = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) ask: AskArgs,
    /// Print help (-h and --help print the same).
    #[arg(short = 'h', long = "help", action = ArgAction::HelpLong, global = true)]
    help: Option<bool>,
}

/// How the questions are presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeArg {
    /// The terminal UI when a terminal can be opened, else print mode.
    Auto,
    /// The terminal UI on the controlling terminal.
    Tui,
    /// The pending-questions file (non-interactive); `file` is the same.
    #[value(alias = "file")]
    Print,
    /// The JSON-lines protocol on stdin/stdout.
    Rpc,
    /// Frames for a host's own terminal UI, over JSON lines on stdin/stdout.
    Embedded,
    /// A local web page: the link is printed on stderr (see --listen).
    Web,
}

/// What is printed on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputArg {
    /// The structured result: `{answered, answers, …}`.
    Result,
    /// The answer map: `{"answers": {"question": "answer"}}`.
    Answers,
    /// The tool output: `{content, details, isError}`.
    Tool,
}

impl OutputArg {
    /// The document this form prints.
    pub(crate) fn form(self) -> ask_schema::OutputForm {
        match self {
            OutputArg::Result => ask_schema::OutputForm::Result,
            OutputArg::Answers => ask_schema::OutputForm::Answers,
            OutputArg::Tool => ask_schema::OutputForm::Tool,
        }
    }
}

/// A value parser for the names of a library's table, each with its line of help.
fn one_of(names: Vec<(&'static str, String)>) -> clap::builder::PossibleValuesParser {
    let values = names.into_iter().map(|(name, help)| {
        clap::builder::PossibleValue::new(name).help(help.trim_end_matches('.').to_string())
    });
    clap::builder::PossibleValuesParser::new(values)
}

// The terminal UI's flags: the ask command, `demo` and `mcp` take them.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct TuiArgs {
    /// Do not ring the terminal bell or send a desktop notification when the questions appear.
    #[arg(long)]
    pub(crate) no_notify: bool,
    /// The language of the terminal UI: en, de, es, fr, ja or zh [default: from LC_ALL,
    /// LC_MESSAGES or LANG, else en]. Answers and results are the same in every language.
    #[arg(long, value_name = "LANG")]
    pub(crate) lang: Option<Lang>,
}

// How a call is read: `--dialect` and `--strict`.
#[derive(Debug, Clone, Args)]
pub(crate) struct DialectArgs {
    /// The agent's shape of the call; a named dialect is also the shape of the answer.
    #[arg(long, default_value = "auto", value_parser = one_of(ask_schema::dialect_choices()))]
    pub(crate) dialect: String,
    /// Accept only the canonical shape (no lenient forms, no detection) unless --dialect names
    /// another.
    #[arg(long)]
    pub(crate) strict: bool,
}

impl DialectArgs {
    /// The options of `ask_schema::read_call`.
    pub(crate) fn read_options(&self) -> ask_schema::ReadOptions {
        ask_schema::ReadOptions {
            dialect: ask_schema::Dialect::from_name(&self.dialect),
            strict: self.strict,
        }
    }

    /// The dialect the answer is printed in: the one named, if not the canonical one.
    pub(crate) fn answer_dialect(&self) -> Option<ask_schema::Dialect> {
        ask_schema::Dialect::from_name(&self.dialect)
            .filter(|d| *d != ask_schema::Dialect::Canonical)
    }
}

/// The flags of the ask command (`ask-user [OPTIONS] [INPUT]`).
#[derive(Debug, Clone, Args)]
pub(crate) struct AskArgs {
    /// The call: a file with the tool input or a tool-call envelope, or - for stdin (the default
    /// when stdin is a pipe or a file, not a terminal).
    /// In print mode, `@PENDING TEXT` answers the pending questions in natural language.
    #[arg(value_name = "INPUT")]
    pub(crate) input: Option<String>,
    /// The natural-language reply that follows `@PENDING`.
    #[arg(value_name = "TEXT", requires = "input")]
    pub(crate) reply: Option<String>,
    /// How the questions are presented.
    #[arg(long, value_enum, default_value = "auto")]
    pub(crate) mode: ModeArg,
    /// Same as --mode print.
    #[arg(short = 'p', long, conflicts_with_all = ["mode", "rpc", "via"])]
    pub(crate) print: bool,
    /// Same as --mode rpc (protocol on stdin/stdout).
    #[arg(long, conflicts_with_all = ["mode", "via"])]
    pub(crate) rpc: bool,
    /// Print pass 2: take the answers from the edited pending file.
    #[arg(short = 'c', long = "continue")]
    pub(crate) continue_: bool,
    /// Print pass 2: a JSON array of answers in question order (a string, or an array of
    /// strings for a multi-select question).
    #[arg(long, value_name = "JSON")]
    pub(crate) answers: Option<String>,
    /// The pending-questions file.
    #[arg(
        long,
        value_name = "PATH",
        env = "ASK_USER_PENDING_FILE",
        default_value = ".pi/pending-questions.json"
    )]
    pub(crate) pending_file: PathBuf,
    /// What is printed on stdout.
    #[arg(long, value_enum, default_value = "result")]
    pub(crate) output: OutputArg,
    /// The caller is a sub-agent: the call is refused (also ASK_USER_SUBAGENT=1).
    #[arg(long, env = "ASK_USER_SUBAGENT", value_parser = FalseyValueParser::new())]
    pub(crate) sub_agent: bool,
    /// The agent host whose commands answer pending questions, named in print mode's
    /// instructions and pending file: ask-user or pi.
    #[arg(
        long,
        value_name = "NAME",
        env = "ASK_USER_HOST",
        default_value = "ask-user",
        value_parser = parse_host
    )]
    pub(crate) host: Host,
    /// The session log (JSON lines): a call whose id has a record there replays it without
    /// asking; a finished call is recorded.
    #[arg(long, value_name = "FILE", env = "ASK_USER_SESSION")]
    pub(crate) session: Option<PathBuf>,
    /// The agent's tool-call id (taken from a tool-call envelope when not given).
    #[arg(long, value_name = "ID")]
    pub(crate) call_id: Option<String>,
    /// Append the state transitions of the ask to this file as JSON lines.
    #[arg(long, value_name = "PATH")]
    pub(crate) events: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) tui: TuiArgs,
    #[command(flatten)]
    pub(crate) dialect: DialectArgs,
    /// With --mode web: the address the page listens on. The default, 127.0.0.1:0 (any free
    /// port), reaches only this machine; another address exposes the page to the network
    /// (read SECURITY.md first).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub(crate) listen: std::net::SocketAddr,
    /// With --mode web: open no browser for the page (also ASK_USER_NO_OPEN=1), as for `mcp`;
    /// the page's link is printed on stderr, and `--mode web` never opens a browser itself.
    #[arg(long, env = "ASK_USER_NO_OPEN", value_parser = FalseyValueParser::new())]
    pub(crate) no_open: bool,
    #[command(flatten)]
    pub(crate) inbox: ViaArgs,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

// The inbox of `ask-user serve` that an agent's asks go to: the ask command and `mcp` take it.
#[derive(Debug, Clone, Args)]
pub(crate) struct ViaArgs {
    /// Send the questions to the inbox of `ask-user serve` at URL (https://host:port, or
    /// http://127.0.0.1:port on this machine) instead of a local page (for `mcp`, as its `web`
    /// presenter), and wait there for the answer (token: ASK_USER_VIA_TOKEN, else the inbox's
    /// token file, which also pins its TLS certificate).
    #[arg(long, value_name = "URL", env = "ASK_USER_VIA")]
    pub(crate) via: Option<String>,
    /// With --via: the agent's name shown in the inbox [default: the parent process's name].
    #[arg(long, value_name = "NAME")]
    pub(crate) agent_name: Option<String>,
    /// With --via: the file holding the agent token (ASK_USER_VIA_TOKEN_FILE) [default: that
    /// of `ask-user serve`].
    #[arg(long, value_name = "PATH", env = "ASK_USER_VIA_TOKEN_FILE")]
    pub(crate) token_file: Option<PathBuf>,
}

impl AskArgs {
    /// The mode asked for, folding `-p` and `--rpc` into it.
    pub(crate) fn mode(&self) -> ModeArg {
        if self.print || self.continue_ || self.answers.is_some() {
            ModeArg::Print
        } else if self.rpc {
            ModeArg::Rpc
        } else {
            self.mode
        }
    }
}

/// Reads `--host`.
fn parse_host(text: &str) -> Result<Host, ask_print::UnknownHost> {
    text.parse()
}

/// A subcommand's flags are built only when it is used, so an ask builds none of them (the flag
/// structs they flatten have `//` comments: a doc comment would replace its about line).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum Command {
    /// Ask the example questions of the tool specification in the terminal UI.
    Demo(DemoArgs),
    /// Print the tool descriptor or a schema.
    Schema(SchemaArgs),
    /// Check a call without asking it; prints every problem with its JSON path.
    Validate(ValidateArgs),
    /// Serve ask_user to an MCP client over stdio.
    Mcp(McpArgs),
    /// Run an inbox: one web page where people answer the asks of many agents
    /// (`ask-user --via URL`).
    Serve(ServeArgs),
    /// Show or clear the questions pending in the pending-questions file.
    Questions(QuestionsArgs),
    /// Read a session log.
    #[command(subcommand)]
    Session(SessionCommand),
}

#[derive(Debug, Subcommand)]
pub(crate) enum SessionCommand {
    /// The questions and answers of a session log, for people.
    Show {
        /// The session log.
        file: PathBuf,
    },
    /// One sentence per question and answer, for a compacted transcript.
    Summary {
        /// The session log.
        file: PathBuf,
    },
    /// The record of one call, by call id, in an output shape (`null` when the log holds no
    /// record of it): a host renders a finished call without asking again.
    Get {
        /// The session log.
        file: PathBuf,
        /// The agent's tool-call id.
        call_id: String,
        /// What is printed on stdout.
        #[arg(long, value_enum, default_value = "result")]
        output: OutputArg,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub(crate) enum QuestionsAction {
    /// Show the pending questions (the default).
    Show,
    /// Remove the pending questions.
    Clear,
    /// Print the state of the pending file as JSON, for a host: whether questions wait, for
    /// which call id, and whether the answers written into it are complete.
    State,
}

#[derive(Debug, Args)]
pub(crate) struct QuestionsArgs {
    #[command(subcommand)]
    pub(crate) action: Option<QuestionsAction>,
    /// Print the pending file as JSON instead of text.
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// The pending-questions file.
    #[arg(
        long,
        value_name = "PATH",
        env = "ASK_USER_PENDING_FILE",
        default_value = ".pi/pending-questions.json",
        global = true
    )]
    pub(crate) pending_file: PathBuf,
}

/// The flags that raise the counts, which a call past one is told about on every route (the
/// command line, MCP, RPC, the inbox).
pub(crate) const RAISED_WITH: RaisedWith = RaisedWith {
    questions: "--max-questions",
    options: "--max-options",
};

// The limits a call is checked against.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct LimitArgs {
    /// Allow up to N questions in one call (default 4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) max_questions: Option<u16>,
    /// Allow up to N options in one question (default 4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(2..))]
    pub(crate) max_options: Option<u16>,
    /// Refuse an INPUT file, stdin or MCP message longer than BYTES (default 16 MiB).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_input_bytes: Option<u64>,
}

impl LimitArgs {
    /// The most bytes one input (a file, stdin, one MCP message) may hold.
    pub(crate) fn max_input_bytes(&self) -> u64 {
        self.max_input_bytes
            .unwrap_or(ask_session::DEFAULT_MAX_INPUT_BYTES)
    }

    /// The limits in force.
    pub(crate) fn limits(&self) -> Limits {
        let limits = Limits::default();
        let questions = self.max_questions.map_or(limits.max_questions, usize::from);
        let options = self.max_options.map_or(limits.max_options, usize::from);
        limits
            .with_max_questions(questions)
            .with_max_options(options)
            .raised_with(RAISED_WITH)
    }
}

#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The shape to print.
    #[arg(
        long,
        default_value = "json-schema",
        value_parser = one_of(ask_schema::descriptor_formats())
    )]
    pub(crate) format: String,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

// The flags of `serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Where the inbox listens. The default reaches only this machine; another address exposes
    /// it to the network (read SECURITY.md first).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
    pub(crate) listen: std::net::SocketAddr,
    /// The file holding the agent token, written readable by this user only [default:
    /// $XDG_RUNTIME_DIR/ask-user/serve-token, else ~/.ask-user/serve-token].
    #[arg(long, value_name = "PATH", env = "ASK_USER_VIA_TOKEN_FILE")]
    pub(crate) token_file: Option<PathBuf>,
    /// A URL agents dial to reach this inbox besides its own address: that of a reverse proxy
    /// in front of it (https://host:port or http://host:port, the port optional; repeatable).
    /// The handshake refuses any other address, a relay's.
    #[arg(long, value_name = "URL")]
    pub(crate) public_url: Vec<String>,
    /// Print a fresh one-time link for people from the running inbox at --via (default
    /// http://127.0.0.1:8765), and exit.
    #[arg(long)]
    pub(crate) link: bool,
    /// With --link: the running inbox.
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8765")]
    pub(crate) via: String,
    /// Keep the asks and answers in the store at PATH, so that a restarted inbox shows the same
    /// waiting asks and agents re-attach.
    #[arg(long, value_name = "PATH")]
    pub(crate) store: Option<PathBuf>,
    /// With --store: how long an ask is kept after it ended (its outcome delivered, or
    /// withdrawn), as a number and a unit: s, m, h or d.
    #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = retention)]
    pub(crate) retention: std::time::Duration,
    /// With --store: bring the store's schema up to date for this build, and exit.
    #[arg(long, requires = "store", conflicts_with = "link")]
    pub(crate) migrate: bool,
    /// Make fresh tokens, not those of the token files (agents with the old one must restart).
    #[arg(long, conflicts_with = "link")]
    pub(crate) rotate_token: bool,
    /// The language of the page: en, de, es, fr, ja or zh [default: each browser's].
    #[arg(long, value_name = "LANG")]
    pub(crate) lang: Option<Lang>,
    /// Serve every connection over TLS with the certificate (chain) in PATH, PEM; its SHA-256
    /// goes into the token files, for --via https:// to pin (needs --tls-key).
    #[arg(
        long,
        value_name = "PATH",
        requires = "tls_key",
        conflicts_with = "link"
    )]
    pub(crate) tls_cert: Option<PathBuf>,
    /// With --tls-cert: the certificate's private key in PATH, PEM.
    #[arg(
        long,
        value_name = "PATH",
        requires = "tls_cert",
        conflicts_with = "link"
    )]
    pub(crate) tls_key: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

/// A duration of `--retention`: a whole number and a unit, `s`, `m`, `h` or `d` (`90m`, `7d`).
fn retention(text: &str) -> Result<std::time::Duration, String> {
    let unit = text.trim_start_matches(|c: char| c.is_ascii_digit());
    let number = &text[..text.len() - unit.len()];
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => {
            return Err(format!(
                "`{text}` is not a duration: give a whole number and a unit, s, m, h or d \
                 (for example 12h or 7d)"
            ));
        }
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(seconds))
        .map(std::time::Duration::from_secs)
        .ok_or_else(|| format!("`{text}` is not a duration: its number is missing or too large"))
}

// The flags of `demo`, which may also come before the word `demo`.
#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// What is printed on stdout [default: result].
    #[arg(long, value_enum)]
    pub(crate) output: Option<OutputArg>,
    /// Ask the showcase instead: every field of the call (previews, a yes/no question, a path
    /// with a placeholder, a secret, a multi-select with a recommended option).
    #[arg(long)]
    pub(crate) showcase: bool,
    #[command(flatten)]
    pub(crate) tui: TuiArgs,
}

/// The flags of the ask command that `demo` takes too, given before the word `demo`
/// (`ask-user --no-notify demo`, `ask-user --mode web demo`): the output, the terminal UI's,
/// and where the person answers (the terminal UI, or the web page: `--mode web`, `--listen`,
/// `--via` and its token and name).
pub(crate) const DEMO_FLAGS: [&str; 8] = [
    "output",
    "no_notify",
    "lang",
    "mode",
    "listen",
    "via",
    "agent_name",
    "token_file",
];

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The call: a file with the tool input or a tool-call envelope, or - for stdin (the default
    /// when stdin is a pipe or a file).
    #[arg(value_name = "INPUT")]
    pub(crate) input: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) dialect: DialectArgs,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// The presenters to try, in order, comma-separated: elicitation (a form in the client, or
    /// the web page for a client that can only open a page), url (the web page, sent by URL
    /// elicitation), tui (the terminal UI, while ask-user is in the terminal's foreground and
    /// nobody holds it in raw mode), web (a page with a fresh link, while a display or a
    /// canonical terminal can show it), file (the pending-questions file).
    #[arg(
        long,
        value_name = "LIST",
        env = "ASK_USER_PRESENT",
        default_value = "elicitation,tui,web,file",
        value_parser = PresenterList::parse
    )]
    pub(crate) present: PresenterList,
    /// The name the tool is served under (ASK_USER_TOOL_NAME), for a host that hides a tool
    /// whose name is one of its own built-ins: Gemini CLI hides `ask_user`, so give it another
    /// name there, such as ask_person.
    #[arg(
        long,
        value_name = "NAME",
        env = "ASK_USER_TOOL_NAME",
        default_value = "ask_user"
    )]
    pub(crate) tool_name: String,
    /// The pending-questions file, used by the `file` presenter.
    #[arg(
        long,
        value_name = "PATH",
        env = "ASK_USER_PENDING_FILE",
        default_value = ".pi/pending-questions.json"
    )]
    pub(crate) pending_file: PathBuf,
    /// The client is a sub-agent: every call is refused (also ASK_USER_SUBAGENT=1).
    #[arg(long, env = "ASK_USER_SUBAGENT", value_parser = FalseyValueParser::new())]
    pub(crate) sub_agent: bool,
    /// Do not open the web presenter's link in a browser (also ASK_USER_NO_OPEN=1).
    #[arg(long, env = "ASK_USER_NO_OPEN", value_parser = FalseyValueParser::new())]
    pub(crate) no_open: bool,
    #[command(flatten)]
    pub(crate) inbox: ViaArgs,
    #[command(flatten)]
    pub(crate) tui: TuiArgs,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

/// A comma-separated list of presenter names, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PresenterList(pub(crate) Vec<Presenter>);

impl PresenterList {
    fn parse(text: &str) -> Result<PresenterList, String> {
        Presenter::parse_list(text)
            .map(PresenterList)
            .map_err(|error| error.to_string())
    }
}
