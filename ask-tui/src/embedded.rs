//! The embedded backend: the same [`State`], [`update`] and [`screen_lines`] drawn inside a
//! host's own terminal UI instead of on `/dev/tty`.
//!
//! The host hands over the raw bytes its terminal sent ([`Embedded::input`]) and the room it
//! has ([`Embedded::resize`]); the screen comes back as lines of text with ANSI SGR styling
//! ([`Embedded::frame`]), as many as the screen needs and never more than the room. Bytes are
//! decoded into keys by `terminput`'s parser; this module does no IO.

use ask_core::AskUserInput;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use crate::state::{Effect, Msg, State, msg_for_key, update};
use crate::view::screen_lines;

/// The start and end of a bracketed paste.
const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// The most bytes of one unfinished escape sequence kept between inputs; past it the bytes are
/// dropped, so a host that sends garbage cannot grow the buffer.
const MAX_PENDING: usize = 64;

/// What the host should do after an input: show the next frame, or the ask is over.
pub use ask_core::ScreenStep as Step;

/// The roles of the screen's colours that a host may restyle, and the colour each stands for
/// by default: `accent` (cyan: the highlight, headers), `success` (green: "(Recommended)"),
/// `warning` (yellow: notices), `dim` (faint: descriptions, help, rules).
pub const THEME_ROLES: [&str; 4] = ["accent", "success", "warning", "dim"];

/// A host's colours: SGR parameters (such as `38;5;39` or `1;32`) by role of [`THEME_ROLES`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Theme {
    roles: Vec<(String, String)>,
}

impl Theme {
    /// Reads a host's theme; refuses a role that is not one of [`THEME_ROLES`] and a value that
    /// is not SGR parameters (digits and `;`, at most 40 characters), naming the role.
    pub fn new<'a>(
        roles: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Theme, ask_core::ThemeError> {
        let mut theme = Theme::default();
        for (role, params) in roles {
            if !THEME_ROLES.contains(&role) {
                return Err(ask_core::ThemeError::UnknownRole {
                    role: role.to_string(),
                    roles: &THEME_ROLES,
                });
            }
            let valid = !params.is_empty()
                && params.len() <= 40
                && params.chars().all(|c| c.is_ascii_digit() || c == ';');
            if !valid {
                return Err(ask_core::ThemeError::NotSgr {
                    role: role.to_string(),
                });
            }
            theme.roles.push((role.to_string(), params.to_string()));
        }
        Ok(theme)
    }

    fn get(&self, role: &str) -> Option<&str> {
        self.roles
            .iter()
            .rev()
            .find(|(r, _)| r == role)
            .map(|(_, p)| p.as_str())
    }
}

/// One ask drawn inside a host's UI.
#[derive(Debug)]
pub struct Embedded {
    state: State,
    theme: Theme,
    width: u16,
    max_height: u16,
    /// Bytes of an escape sequence or a paste not complete yet.
    pending: Vec<u8>,
}

impl Embedded {
    /// The ask of `input`, 80 columns by 24 rows until the host says otherwise.
    pub fn new(input: &AskUserInput) -> Embedded {
        Embedded {
            state: State::new(input),
            theme: Theme::default(),
            width: 80,
            max_height: 24,
            pending: Vec::new(),
        }
    }

    /// Shows the answers already given elsewhere (in question order, `None` for an open
    /// question) as the person's choices, as the terminal UI does.
    #[must_use]
    pub fn with_given(mut self, given: &[Option<ask_core::Answer>]) -> Embedded {
        self.state = self.state.with_given(given);
        self
    }

    /// The room the host gives: `width` columns, at most `max_height` rows (each at least 1).
    pub fn resize(&mut self, width: u16, max_height: u16) {
        self.width = width.max(1);
        self.max_height = max_height.max(1);
        update(&mut self.state, Msg::Resize);
    }

    /// Draws the next frames in the host's colours.
    pub fn set_theme(&mut self, theme: Theme) {
        self.theme = theme;
    }

    /// The state, for tests and hosts that want to look.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The screen at the current size: at most `max_height` lines, each at most `width` columns
    /// wide, styled with SGR sequences and ending in a reset when styled.
    pub fn frame(&self) -> Vec<String> {
        screen_lines(
            &self.state,
            usize::from(self.width),
            usize::from(self.max_height),
        )
        .iter()
        .map(|line| sgr_line(line, &self.theme))
        .collect()
    }

    /// Takes the raw bytes the host's terminal sent; stops at the first key that ends the ask.
    pub fn input(&mut self, bytes: &[u8]) -> Step {
        for msg in self.decode(bytes) {
            let mut effect = update(&mut self.state, msg);
            // Path completions are read here as in the terminal; the host's session gives no
            // history to this backend.
            while let Effect::Load(load) = effect {
                effect = update(&mut self.state, crate::terminal::load_msg(load, None));
            }
            match effect {
                Effect::Continue | Effect::Load(_) => {}
                Effect::Ended(outcome) => return Step::Ended(outcome),
                Effect::Abort => return Step::Abort,
            }
        }
        Step::Continue
    }

    /// The messages in `bytes`, with what an earlier input left unfinished in front of them.
    fn decode(&mut self, bytes: &[u8]) -> Vec<Msg> {
        let mut buf = std::mem::take(&mut self.pending);
        buf.extend_from_slice(bytes);
        let mut msgs = Vec::new();
        let mut start = 0;
        while start < buf.len() {
            let rest = &buf[start..];
            // A bracketed paste is text up to its end marker, however long.
            if let Some(body) = rest.strip_prefix(PASTE_START) {
                match find(body, PASTE_END) {
                    Some(end) => {
                        msgs.push(Msg::Paste(
                            String::from_utf8_lossy(&body[..end]).into_owned(),
                        ));
                        start += PASTE_START.len() + end + PASTE_END.len();
                        continue;
                    }
                    None => {
                        self.pending = rest.to_vec();
                        break;
                    }
                }
            }
            // The shortest prefix that the parser reads as one event.
            let mut found = None;
            for len in 1..=rest.len().min(MAX_PENDING) {
                // A lone Esc followed by more bytes of the same input starts a sequence.
                if len == 1 && rest[0] == 0x1b && rest.len() > 1 {
                    continue;
                }
                match terminput::Event::parse_from(&rest[..len]) {
                    Ok(Some(event)) => {
                        found = Some((len, Some(event)));
                        break;
                    }
                    Ok(None) => {}
                    Err(_) => {
                        found = Some((len, None));
                        break;
                    }
                }
            }
            match found {
                Some((len, event)) => {
                    start += len;
                    if let Some(msg) = event.and_then(|e| self.message(e)) {
                        msgs.push(msg);
                    }
                }
                // Unfinished: kept for the next input, unless it is already too long to be one
                // sequence.
                None if rest.len() < MAX_PENDING => {
                    self.pending = rest.to_vec();
                    break;
                }
                None => start += 1,
            }
        }
        msgs
    }

    fn message(&self, event: terminput::Event) -> Option<Msg> {
        match event {
            terminput::Event::Key(key) => self.key(crossterm_key(key)?),
            terminput::Event::Paste(text) => Some(Msg::Paste(text)),
            _ => None,
        }
    }

    fn key(&self, key: KeyEvent) -> Option<Msg> {
        msg_for_key(&self.state, key)
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A key of `terminput` as the crossterm key that [`msg_for_key`] reads; `None` for keys the UI
/// has no use for (media and modifier keys).
fn crossterm_key(key: terminput::KeyEvent) -> Option<KeyEvent> {
    use terminput::KeyCode as T;
    let code = match key.code {
        T::Backspace => KeyCode::Backspace,
        T::Enter => KeyCode::Enter,
        T::Left => KeyCode::Left,
        T::Right => KeyCode::Right,
        T::Up => KeyCode::Up,
        T::Down => KeyCode::Down,
        T::Home => KeyCode::Home,
        T::End => KeyCode::End,
        T::PageUp => KeyCode::PageUp,
        T::PageDown => KeyCode::PageDown,
        T::Tab if key.modifiers.contains(terminput::KeyModifiers::SHIFT) => KeyCode::BackTab,
        T::Tab => KeyCode::Tab,
        T::Delete => KeyCode::Delete,
        T::Insert => KeyCode::Insert,
        T::F(n) => KeyCode::F(n),
        T::Char(c) => KeyCode::Char(c),
        T::Esc => KeyCode::Esc,
        _ => return None,
    };
    let mut modifiers = KeyModifiers::NONE;
    for (from, to) in [
        (terminput::KeyModifiers::SHIFT, KeyModifiers::SHIFT),
        (terminput::KeyModifiers::CTRL, KeyModifiers::CONTROL),
        (terminput::KeyModifiers::ALT, KeyModifiers::ALT),
        (terminput::KeyModifiers::SUPER, KeyModifiers::SUPER),
    ] {
        if key.modifiers.contains(from) {
            modifiers |= to;
        }
    }
    let kind = match key.kind {
        terminput::KeyEventKind::Press => KeyEventKind::Press,
        terminput::KeyEventKind::Repeat => KeyEventKind::Repeat,
        terminput::KeyEventKind::Release => KeyEventKind::Release,
    };
    Some(KeyEvent::new_with_kind(code, modifiers, kind))
}

/// A line as text with SGR sequences: each styled span is wrapped in its style and a reset.
fn sgr_line(line: &Line<'_>, theme: &Theme) -> String {
    let mut out = String::new();
    for span in &line.spans {
        let style = line.style.patch(span.style);
        let codes = sgr_codes(style, theme);
        if codes.is_empty() {
            out.push_str(&span.content);
        } else {
            out.push_str(&format!("\x1b[{}m{}\x1b[0m", codes.join(";"), span.content));
        }
    }
    out
}

/// The theme role a style's colour stands for, if any.
fn role(style: Style) -> Option<&'static str> {
    match style.fg {
        Some(Color::Cyan) => Some("accent"),
        Some(Color::Green) => Some("success"),
        Some(Color::Yellow) => Some("warning"),
        None if style.add_modifier.contains(Modifier::DIM) => Some("dim"),
        _ => None,
    }
}

/// The SGR parameters of `style`: the theme's for its role when the host gave one.
fn sgr_codes(style: Style, theme: &Theme) -> Vec<String> {
    if let Some(params) = role(style).and_then(|r| theme.get(r)) {
        let mut codes = Vec::new();
        for (modifier, code) in [(Modifier::BOLD, "1"), (Modifier::REVERSED, "7")] {
            if style.add_modifier.contains(modifier) {
                codes.push(code.to_string());
            }
        }
        codes.push(params.to_string());
        return codes;
    }
    let mut codes = Vec::new();
    for (modifier, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::REVERSED, "7"),
        (Modifier::CROSSED_OUT, "9"),
    ] {
        if style.add_modifier.contains(modifier) {
            codes.push(code.to_string());
        }
    }
    if let Some(color) = style.fg.and_then(|c| color_code(c, false)) {
        codes.push(color);
    }
    if let Some(color) = style.bg.and_then(|c| color_code(c, true)) {
        codes.push(color);
    }
    codes
}

fn color_code(color: Color, background: bool) -> Option<String> {
    let base = if background { 40 } else { 30 };
    let bright = if background { 100 } else { 90 };
    let code = match color {
        Color::Reset => return None,
        Color::Black => base,
        Color::Red => base + 1,
        Color::Green => base + 2,
        Color::Yellow => base + 3,
        Color::Blue => base + 4,
        Color::Magenta => base + 5,
        Color::Cyan => base + 6,
        Color::Gray => base + 7,
        Color::DarkGray => bright,
        Color::LightRed => bright + 1,
        Color::LightGreen => bright + 2,
        Color::LightYellow => bright + 3,
        Color::LightBlue => bright + 4,
        Color::LightMagenta => bright + 5,
        Color::LightCyan => bright + 6,
        Color::White => bright + 7,
        Color::Indexed(n) => return Some(format!("{};5;{n}", base + 8)),
        Color::Rgb(r, g, b) => return Some(format!("{};2;{r};{g};{b}", base + 8)),
    };
    Some(code.to_string())
}

impl ask_core::EmbeddedScreen for Embedded {
    fn frame(&self) -> Vec<String> {
        Embedded::frame(self)
    }

    fn resize(&mut self, width: u16, max_height: u16) {
        Embedded::resize(self, width, max_height);
    }

    fn set_theme(&mut self, roles: &[(&str, &str)]) -> Result<(), ask_core::ThemeError> {
        Embedded::set_theme(self, Theme::new(roles.iter().copied())?);
        Ok(())
    }

    fn input(&mut self, bytes: &[u8]) -> Step {
        Embedded::input(self, bytes)
    }
}
