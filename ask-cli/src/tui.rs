//! What the terminal UI takes from the process: whether it may use the terminal at all
//! (`ASK_USER_NO_TTY`) and the language of its words (`--lang`, else the locale). `ask_tui`
//! reads neither; it is handed the values.

use ask_tui::{Access, Lang};

/// Whether ask-user may use the terminal at all: not when `ASK_USER_NO_TTY` is set (as in CI,
/// or a host that wants the terminal left alone).
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
pub(crate) fn terminal_allowed() -> bool {
    std::env::var_os("ASK_USER_NO_TTY").is_none()
}

/// What the controlling terminal lets this process do now ([`Access::now`]) when
/// [`terminal_allowed`], else nothing at all.
pub(crate) fn access() -> Access {
    if terminal_allowed() {
        Access::now()
    } else {
        Access::default()
    }
}

/// The terminal UI's language: `flag` when one is given (`--lang`), else the language of this
/// process's locale ([`Lang::from_locale`]: the first of `LC_ALL`, `LC_MESSAGES`, `LANG` set),
/// else English.
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
pub(crate) fn chosen_lang(flag: Option<Lang>) -> Lang {
    flag.unwrap_or_else(|| Lang::from_locale(|name| std::env::var(name).ok()))
}
