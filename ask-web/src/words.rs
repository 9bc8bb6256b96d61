//! The page's words: `GET /text.json` gives the page its table of words ([`PageText`]) in the
//! language chosen for it, since the content policy forbids inline script.
//!
//! The language is the one given to the presenter (`--lang`) when there is one, else the first
//! shipped language of the browser's `Accept-Language`, else English. Only the page's own words
//! change: the questions are shown as asked, and what goes back to the agent is the same in every
//! language.

use ask_core::lang::{Lang, PageText};
use axum::http::{HeaderMap, header};
use serde::Serialize;

/// What `GET /text.json` answers.
#[derive(Serialize)]
pub(crate) struct Words {
    /// The language's code, for the page's `lang` attribute.
    lang: &'static str,
    /// The page's words in it.
    text: &'static PageText,
}

/// The language of a page: `fixed` when given, else the browser's, else English.
pub(crate) fn choose(fixed: Option<Lang>, headers: &HeaderMap) -> Lang {
    fixed
        .or_else(|| {
            headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|value| value.to_str().ok())
                .and_then(Lang::from_accept_language)
        })
        .unwrap_or_default()
}

/// The page's words in the language of [`choose`], as `GET /text.json` sends them (with
/// `Vary: Accept-Language`).
pub(crate) fn words(fixed: Option<Lang>, headers: &HeaderMap) -> Words {
    let lang = choose(fixed, headers);
    Words {
        lang: lang.code(),
        text: lang.page(),
    }
}
