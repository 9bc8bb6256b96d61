//! Path completion (Ctrl+T): the folder to list, the names that complete the typed text, and
//! what arrives from the disk.

use ask_core::{Question, QuestionKind};

use super::{Notice, State};
use crate::text::TextField;

/// The paths for Ctrl+T arrive: ignored when the text changed meanwhile; one is taken whole;
/// several fill in the part they all share and are listed under the field; none is said.
pub(super) fn take_completions(state: &mut State, typed: &str, candidates: Vec<String>) {
    let Some(page) = state.page_mut() else {
        return;
    };
    if !page.editing || page.field.text() != typed {
        return;
    }
    match candidates.as_slice() {
        [] => state.notice = Some(Notice::NoCompletion),
        [only] => page.field = TextField::with_text(only.clone()),
        [first, rest @ ..] => {
            let mut shared = first.len();
            for other in rest {
                shared = first
                    .char_indices()
                    .zip(other.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(shared.min(other.len()), |((at, _), _)| at.min(shared));
            }
            if shared > typed.len() {
                page.field = TextField::with_text(&first[..shared]);
            }
            page.candidates = candidates;
        }
    }
}

/// The paths in a folder's listing that complete `typed`: `entries` are the names in the
/// folder that `typed` names up to its last `/` (the working folder when it has none), each
/// with whether it is a folder. Hidden names show only when the typed name starts with a dot.
/// Sorted; a folder ends in `/`.
pub fn completions(typed: &str, entries: impl IntoIterator<Item = (String, bool)>) -> Vec<String> {
    let (folder, prefix) = match typed.rfind('/') {
        Some(at) => typed.split_at(at + 1),
        None => ("", typed),
    };
    let mut out: Vec<String> = entries
        .into_iter()
        .filter(|(name, _)| {
            name.starts_with(prefix) && (prefix.starts_with('.') || !name.starts_with('.'))
        })
        .map(|(name, dir)| format!("{folder}{name}{}", if dir { "/" } else { "" }))
        .collect();
    out.sort();
    out
}

/// The folder whose listing completes `typed`: its part up to the last `/`, or the working
/// folder.
pub fn completion_folder(typed: &str) -> &str {
    match typed.rfind('/') {
        Some(0) => "/",
        Some(at) => &typed[..at],
        None => ".",
    }
}

/// True for a question whose answer is a path (Ctrl+T completes it).
pub(super) fn is_path(question: &Question) -> bool {
    question.kind == QuestionKind::Path
}
