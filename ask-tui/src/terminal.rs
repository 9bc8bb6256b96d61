//! The only module that touches the terminal: raw mode, the alternate screen, bracketed paste,
//! drawing on `/dev/tty`, reading keys, signals, and restoring the terminal on every exit path.
//!
//! The UI is drawn on the controlling terminal, never on stdout, which carries only the result.
//! Nothing here asks the terminal a question (such as the cursor position) and waits for the
//! answer, so a terminal that never answers still gets its first frame at once.
//!
//! The terminal is restored on every exit path: a normal end, an error, a panic (the hook
//! restores before the previous hook runs), every catchable signal whose default ends the
//! process (SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGALRM and the like; the process then
//! exits with 128 + N), a terminal that reads end of file (a hang-up: 129), and a withdrawn ask.
//! [`restore`] may run any number of times. Ctrl+Z (a key in raw mode) and SIGTSTP restore the
//! terminal and stop the process; on SIGCONT the UI takes the terminal back in raw mode and
//! draws the next frame whole.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Once, OnceLock};
use std::time::Duration;

use ask_core::{Answer, AskUserInput, Outcome};
use crossterm::event::{
    self, DisableBracketedPaste, EnableBracketedPaste, Event, KeyCode, KeyEventKind, KeyModifiers,
};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, queue};
use signal_hook::consts::{
    SIGALRM, SIGHUP, SIGINT, SIGIO, SIGPROF, SIGQUIT, SIGSTOP, SIGSYS, SIGTERM, SIGTRAP, SIGTSTP,
    SIGUSR1, SIGUSR2, SIGVTALRM, SIGXCPU, SIGXFSZ,
};

use crate::frames::Frames;
use crate::state::{Effect, Load, Msg, State, completion_folder, completions, msg_for_key, update};
use crate::view::render;
use ask_core::lang::{Lang, fill};

/// Why the terminal UI could not finish.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The controlling terminal could not be opened.
    #[error("cannot open the terminal /dev/tty: {0}")]
    NoTerminal(#[source] io::Error),
    /// Reading from or writing to the terminal failed.
    #[error("the terminal failed: {0}")]
    Io(#[from] io::Error),
    /// The process got a signal that ends it (SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, …:
    /// every one that can be caught) while the questions were shown, or the terminal went away
    /// (reading it gives end of file), which counts as SIGHUP; the terminal was restored first.
    #[error("interrupted by {name}")]
    Signal {
        /// The signal number.
        number: i32,
        /// The signal's name, such as `SIGTERM`.
        name: &'static str,
    },
    /// The person pressed Ctrl+C twice: the questions were abandoned without an answer, as if
    /// the process had been interrupted. Nothing should be saved, so that the call is asked
    /// again from the beginning.
    #[error("interrupted with Ctrl+C twice")]
    Aborted,
    /// The host withdrew the questions ([`RunOptions::withdrawn`]); the terminal was restored.
    #[error("the questions were withdrawn before an answer")]
    Withdrawn,
}

impl From<TuiError> for ask_core::PresentError {
    /// A signal or Ctrl+C twice is an interruption; anything else is a failure of the terminal.
    fn from(error: TuiError) -> ask_core::PresentError {
        match error {
            TuiError::Signal { number, name } => ask_core::PresentError::Interrupted {
                signal: Some(ask_core::Signal { number, name }),
            },
            TuiError::Aborted => ask_core::PresentError::Interrupted { signal: None },
            other => ask_core::PresentError::failed(other),
        }
    }
}

/// Whether the terminal is currently in the UI's modes and must be restored.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();

/// How [`run`] asks: what it shows, in which language, and what can end it besides the person.
/// `RunOptions::default()` asks in English, without a notification, with nothing given, no
/// earlier answers and no way to withdraw the questions.
#[derive(Clone, Default)]
pub struct RunOptions<'a> {
    /// Answers already given elsewhere, shown as the person's choices (see
    /// [`State::with_given`]).
    pub given: &'a [Option<Answer>],
    /// Ring the terminal bell and send a desktop notification when the questions appear.
    pub notify: bool,
    /// The language of the UI's words.
    pub lang: Lang,
    /// For a host whose caller can go away while the questions are shown: once another thread
    /// sets it, the UI ends with [`TuiError::Withdrawn`], the terminal restored, within a tenth
    /// of a second.
    pub withdrawn: Option<&'a AtomicBool>,
    /// Where ↑ in a text field finds the earlier answers to the same question.
    pub history: Option<&'a HistoryProvider>,
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("given", &self.given)
            .field("notify", &self.notify)
            .field("lang", &self.lang)
            .field("withdrawn", &self.withdrawn)
            .field("history", &self.history.is_some())
            .finish()
    }
}

/// Reads the earlier answers to questions with a given text, newest first, at most
/// [`HISTORY_MAX`](crate::HISTORY_MAX): a host hands in the session log's (the terminal module
/// calls it the first time a field asks, never while drawing).
pub type HistoryProvider = Arc<dyn Fn(&str) -> Vec<String> + Send + Sync>;

/// Asks `input`'s questions on the controlling terminal, as `options` say, and returns the
/// outcome.
///
/// The terminal is restored before this returns, whatever the path: an answer, a cancel, an
/// error, a panic (through a panic hook that runs before the previous one), a withdrawal, or
/// SIGTERM, SIGHUP and SIGINT (noticed within a tenth of a second).
pub fn run(input: &AskUserInput, options: &RunOptions<'_>) -> Result<Outcome, TuiError> {
    let tty = open_tty(true).map_err(TuiError::NoTerminal)?;
    let signals = Signals::get()?;
    install_panic_hook();
    signals.catch();
    let state = State::new(input)
        .with_lang(options.lang)
        .with_given(options.given);
    let notify = options
        .notify
        .then_some((input.questions.len(), options.lang));
    let watch = Watch {
        signals,
        withdrawn: options.withdrawn,
        history: options.history,
    };
    let result = Guard::enter(tty, notify).and_then(|guard| event_loop(state, guard, &watch));
    signals.release();
    // A signal that came after the loop's last look, while the terminal was being restored, is
    // not lost: the process still ends as it asks (the terminal is already restored).
    match (signals.pending(), result) {
        (Some(signal), Ok(_) | Err(TuiError::Withdrawn | TuiError::Aborted)) => Err(signal),
        (_, result) => result,
    }
}

/// Every signal whose default action ends the process and that can be caught. SIGPIPE is left
/// out (Rust ignores it, and a closed pipe is an error on the write), and so are SIGABRT (a
/// panic restores the terminal in its hook) and the faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE),
/// which cannot be handled safely.
const ENDING: [(i32, &str); 14] = [
    (SIGTERM, "SIGTERM"),
    (SIGHUP, "SIGHUP"),
    (SIGINT, "SIGINT"),
    (SIGQUIT, "SIGQUIT"),
    (SIGUSR1, "SIGUSR1"),
    (SIGUSR2, "SIGUSR2"),
    (SIGALRM, "SIGALRM"),
    (SIGVTALRM, "SIGVTALRM"),
    (SIGPROF, "SIGPROF"),
    (SIGXCPU, "SIGXCPU"),
    (SIGXFSZ, "SIGXFSZ"),
    (SIGIO, "SIGIO"),
    (SIGSYS, "SIGSYS"),
    (SIGTRAP, "SIGTRAP"),
];

/// The signals that end the UI, each with the flag its handler sets, and SIGTSTP, which
/// suspends it.
///
/// The handlers are installed once and stay: while no UI is up (`idle` is true) they run the
/// signal's default action, so the process behaves as if they were not there; while the UI is
/// up they only set the signal's flag, which the event loop checks.
struct Signals {
    idle: Arc<AtomicBool>,
    flags: Vec<(i32, &'static str, Arc<AtomicBool>)>,
    suspend: Arc<AtomicBool>,
}

static SIGNALS: OnceLock<Signals> = OnceLock::new();

impl Signals {
    fn get() -> io::Result<&'static Signals> {
        if let Some(signals) = SIGNALS.get() {
            return Ok(signals);
        }
        let idle = Arc::new(AtomicBool::new(true));
        let mut flags = Vec::new();
        for (number, name) in ENDING {
            let flag = Arc::new(AtomicBool::new(false));
            signal_hook::flag::register_conditional_default(number, Arc::clone(&idle))?;
            signal_hook::flag::register(number, Arc::clone(&flag))?;
            flags.push((number, name, flag));
        }
        let suspend = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register_conditional_default(SIGTSTP, Arc::clone(&idle))?;
        signal_hook::flag::register(SIGTSTP, Arc::clone(&suspend))?;
        Ok(SIGNALS.get_or_init(|| Signals {
            idle,
            flags,
            suspend,
        }))
    }

    /// Starts catching the signals for the UI.
    fn catch(&self) {
        for (_, _, flag) in &self.flags {
            flag.store(false, Ordering::SeqCst);
        }
        self.suspend.store(false, Ordering::SeqCst);
        self.idle.store(false, Ordering::SeqCst);
    }

    /// Gives the signals back their default actions.
    fn release(&self) {
        self.idle.store(true, Ordering::SeqCst);
    }

    /// The first signal that arrived, if any.
    fn pending(&self) -> Option<TuiError> {
        self.flags
            .iter()
            .find(|(_, _, flag)| flag.load(Ordering::SeqCst))
            .map(|(number, name, _)| TuiError::Signal {
                number: *number,
                name,
            })
    }
}

/// What tells a person in another window that the agent waits for them: the terminal bell, and
/// a desktop notification in the two escape forms terminals understand (OSC 9 and OSC 777).
/// Terminals that know neither ignore them. The text is fixed (in the UI's language): agent
/// text never goes into an escape sequence.
fn notification(questions: usize, lang: Lang) -> String {
    let text = fill(
        lang.text().notification.pick(questions),
        &[("n", &questions.to_string())],
    );
    format!("\x07\x1b]9;{text}\x07\x1b]777;notify;ask-user;{text}\x07")
}

/// The terminal in the UI's modes; dropping it restores the terminal.
struct Guard {
    frames: Frames<BufWriter<File>>,
    /// The terminal once more, to notice that it went away (a hang-up).
    watch: File,
}

impl Guard {
    fn enter(mut tty: File, notify: Option<(usize, Lang)>) -> Result<Guard, TuiError> {
        let watch = tty.try_clone()?;
        ACTIVE.store(true, Ordering::SeqCst);
        // The modes (and the notification) go out in one write: one wake-up of the terminal.
        let mut setup = Vec::with_capacity(256);
        let entered = terminal::enable_raw_mode()
            .and_then(|()| {
                queue!(
                    setup,
                    EnterAlternateScreen,
                    EnableBracketedPaste,
                    cursor::Hide
                )
            })
            .and_then(|()| {
                if let Some((count, lang)) = notify {
                    setup.extend_from_slice(notification(count, lang).as_bytes());
                }
                tty.write_all(&setup)
            });
        if let Err(error) = entered {
            restore();
            return Err(error.into());
        }
        // Buffered, so that a frame reaches the terminal in one write instead of hundreds.
        let frames = Frames::new(BufWriter::with_capacity(64 * 1024, tty));
        Ok(Guard { frames, watch })
    }
}

impl Guard {
    /// What a failed read or write of the terminal means: the hang-up when the terminal went
    /// away (the failure and the end of file race each other), a failure of the terminal
    /// otherwise.
    fn fault(&self, error: io::Error) -> TuiError {
        if self.hung_up() {
            TuiError::Signal {
                number: SIGHUP,
                name: "SIGHUP",
            }
        } else {
            TuiError::Io(error)
        }
    }

    /// True when the terminal has hung up: reading it would give end of file (its other end was
    /// closed, and no SIGHUP may come, for example when this process is not in its foreground).
    fn hung_up(&self) -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let mut fds = [PollFd::new(&self.watch, PollFlags::IN)];
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        matches!(poll(&mut fds, Some(&now)), Ok(n) if n > 0)
            && fds[0]
                .revents()
                .intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
    }

    /// Suspends the UI as Ctrl+Z does in a shell: the terminal is restored, the process stops,
    /// and when it is continued (`fg`), the UI takes the terminal again and draws in full.
    fn suspend(&mut self) -> Result<(), TuiError> {
        let _ = self.frames.out().flush();
        restore();
        signal_hook::low_level::raise(SIGSTOP)?;
        // Continued.
        ACTIVE.store(true, Ordering::SeqCst);
        terminal::enable_raw_mode()?;
        queue!(
            self.frames.out(),
            EnterAlternateScreen,
            EnableBracketedPaste,
            cursor::Hide
        )?;
        // The screen may hold anything now: clear it and draw the next frame whole.
        self.frames.clear()?;
        Ok(())
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // What is still buffered goes out first; a terminal that is gone (hung up) only fails
        // the write, and the process is about to report the hang-up.
        let _ = self.frames.out().flush();
        restore();
    }
}

/// What the event loop watches besides the terminal: the signals and the host's withdrawal,
/// which end it, and the earlier answers it reads for the state.
struct Watch<'a> {
    signals: &'a Signals,
    withdrawn: Option<&'a AtomicBool>,
    history: Option<&'a HistoryProvider>,
}

impl Watch<'_> {
    /// Why the UI must stop now, if it must. A signal wins over a withdrawal that happens at
    /// the same time: the process must still end as the signal asks.
    fn stopped(&self) -> Option<TuiError> {
        self.signals.pending().or_else(|| {
            self.withdrawn
                .is_some_and(|withdrawn| withdrawn.load(Ordering::SeqCst))
                .then_some(TuiError::Withdrawn)
        })
    }
}

/// Draws `state` and feeds it keys until it ends, reading what it asks for (the earlier
/// answers, the names Ctrl+T completes from the disk).
fn event_loop(mut state: State, mut guard: Guard, watch: &Watch<'_>) -> Result<Outcome, TuiError> {
    let (signals, history) = (watch.signals, watch.history);
    let stopped = || watch.stopped();
    loop {
        if let Some(stop) = stopped() {
            return Err(stop);
        }
        if let Err(error) = guard.frames.draw(|area, buf| render(&state, area, buf)) {
            return Err(guard.fault(error));
        }
        let msg = loop {
            if let Some(stop) = stopped() {
                return Err(stop);
            }
            if signals.suspend.swap(false, Ordering::SeqCst) {
                guard.suspend()?;
                break Msg::Resize;
            }
            // A terminal that went away reads as end of file for ever: a hang-up, not a
            // reason to spin.
            if guard.hung_up() {
                return Err(guard.fault(io::ErrorKind::UnexpectedEof.into()));
            }
            let ready = event::poll(Duration::from_millis(100)).map_err(|e| guard.fault(e))?;
            if !ready {
                continue;
            }
            let msg = match event::read().map_err(|e| guard.fault(e))? {
                // Raw mode turns Ctrl+Z into a key: it suspends, as in a shell.
                Event::Key(key)
                    if key.code == KeyCode::Char('z')
                        && key.modifiers.contains(KeyModifiers::CONTROL)
                        && key.kind != KeyEventKind::Release =>
                {
                    guard.suspend()?;
                    Some(Msg::Resize)
                }
                Event::Key(key) => msg_for_key(&state, key),
                Event::Paste(text) => Some(Msg::Paste(text)),
                Event::Resize(_, _) => Some(Msg::Resize),
                _ => None,
            };
            if let Some(msg) = msg {
                break msg;
            }
        };
        let mut effect = update(&mut state, msg);
        // What the state asks to read is read here and handed back as a message.
        while let Effect::Load(load) = effect {
            effect = update(&mut state, load_msg(load, history));
        }
        match effect {
            Effect::Continue | Effect::Load(_) => {}
            Effect::Ended(outcome) => return Ok(outcome),
            Effect::Abort => return Err(TuiError::Aborted),
        }
    }
}

/// Reads what [`Effect::Load`] asks for.
pub(crate) fn load_msg(load: Load, history: Option<&HistoryProvider>) -> Msg {
    match load {
        Load::History { question } => {
            let mut answers = history.map_or_else(Vec::new, |read| read(&question));
            answers.truncate(crate::HISTORY_MAX);
            Msg::History(answers)
        }
        Load::Complete { typed } => Msg::Completions {
            candidates: completions(&typed, listed(completion_folder(&typed))),
            typed,
        },
    }
}

/// How many names of one folder Ctrl+T looks at, so a huge folder cannot stall a keypress.
const MAX_LISTED: usize = 10_000;

/// Puts the terminal back as it was: leaves the alternate screen, turns bracketed paste off,
/// shows the cursor and leaves raw mode. It does nothing when the terminal is not in the UI's
/// The names in `folder` that a path completes to, at most [`MAX_LISTED`], each with whether
/// it is a folder (a link to a folder completes as one).
// Listing a folder the person types the path of only offers names to pick; nothing in it is
// opened, written or acted on, so it need not go through ask-fs's checks.
#[allow(clippy::disallowed_methods)]
fn listed(folder: &str) -> impl Iterator<Item = (String, bool)> {
    std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .take(MAX_LISTED)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let dir = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir());
            Some((name, dir))
        })
}

/// Opens the controlling terminal, for reading too when `read`.
// `/dev/tty` is the process's own terminal, a character device at a fixed path, not a file in
// a folder another user may write: it is opened as it is, not through ask-fs.
#[allow(clippy::disallowed_types)]
fn open_tty(read: bool) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(read)
        .write(true)
        .open("/dev/tty")
}

/// modes, so every exit path may call it.
fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    if let Ok(mut tty) = open_tty(false) {
        let mut modes = Vec::with_capacity(64);
        if queue!(
            modes,
            DisableBracketedPaste,
            LeaveAlternateScreen,
            cursor::Show
        )
        .is_ok()
        {
            let _ = tty.write_all(&modes);
        }
    }
    let _ = terminal::disable_raw_mode();
}

/// Installs, once, a panic hook that restores the terminal before the previous hook prints
/// the panic message.
fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// What the controlling terminal lets this process do now, found without changing anything:
/// no `tcsetpgrp`, no change of mode, and no signal handler touched (a process of a background
/// group that wrote there would be stopped by SIGTTOU, so it must not try).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Access {
    /// `/dev/tty` opens for reading and writing.
    pub opens: bool,
    /// The terminal's foreground process group is this process's own (`tcgetpgrp(tty) ==
    /// getpgrp()`).
    pub foreground: bool,
    /// The terminal is in canonical mode with echo on: no program holds it in raw mode.
    pub canonical: bool,
}

impl Access {
    /// The controlling terminal as it is now (nothing at all when `/dev/tty` does not open).
    pub fn now() -> Access {
        match open_tty(true) {
            Ok(tty) => Access::of(&tty),
            Err(_) => Access::default(),
        }
    }

    /// `tty`'s access for this process.
    pub fn of(tty: &File) -> Access {
        let foreground =
            rustix::termios::tcgetpgrp(tty).is_ok_and(|group| group == rustix::process::getpgrp());
        let canonical = rustix::termios::tcgetattr(tty).is_ok_and(|modes| {
            use rustix::termios::LocalModes;
            modes
                .local_modes
                .contains(LocalModes::ICANON | LocalModes::ECHO)
        });
        Access {
            opens: true,
            foreground,
            canonical,
        }
    }

    /// The terminal UI may take the terminal: it opens, this process is in its foreground group,
    /// and nobody holds it in raw mode (a host that draws its own screen there keeps it raw).
    pub fn can_draw(self) -> bool {
        self.opens && self.foreground && self.canonical
    }

    /// A line written there reaches a person without spoiling another program's screen: the
    /// terminal opens and is canonical. (A write from a background group can still be stopped
    /// when the terminal has `tostop` set; [`say_on_terminal`] checks that first.)
    pub fn can_print(self) -> bool {
        self.opens && self.canonical
    }
}

/// Writes `text` on the controlling terminal when it is canonical, and when a write cannot stop
/// this process (it is in the foreground group, or the terminal lets background groups write);
/// gives whether it was written.
pub fn say_on_terminal(text: &str) -> bool {
    let Ok(mut tty) = open_tty(true) else {
        return false;
    };
    let access = Access::of(&tty);
    let stops_background = rustix::termios::tcgetattr(&tty).map_or(true, |modes| {
        modes
            .local_modes
            .contains(rustix::termios::LocalModes::TOSTOP)
    });
    if !access.can_print() || (!access.foreground && stops_background) {
        return false;
    }
    tty.write_all(text.as_bytes())
        .and_then(|()| tty.flush())
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panic_hook_keeps_the_previous_hook() {
        let called = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&called);
        std::panic::set_hook(Box::new(move |_| seen.store(true, Ordering::SeqCst)));
        install_panic_hook();
        let result = std::panic::catch_unwind(|| panic!("a panic in the UI"));
        let _ = std::panic::take_hook();
        assert!(result.is_err());
        assert!(
            called.load(Ordering::SeqCst),
            "the previous hook still runs"
        );
        // Nothing was in the UI's modes, so restoring had nothing to do and stays idempotent.
        restore();
        assert!(!ACTIVE.load(Ordering::SeqCst));
    }
}
