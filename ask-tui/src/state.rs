//! The pure core: [`State`], [`Msg`], [`update`](fn@update) and the mapping from keys to
//! messages.
//!
//! Nothing here touches the terminal, so every binding is tested by feeding messages. This
//! module holds the state and what it shows; the messages, the updates, the keys and path
//! completion each have a module of their own.

mod actions;
mod complete;
mod keys;
mod msg;
mod update;

use std::cell::Cell;

use ask_core::{Answer, AskUserInput, Question};

use crate::text::TextField;
use ask_core::lang::Lang;
pub use complete::{completion_folder, completions};
pub use keys::msg_for_key;
pub use msg::{Effect, HISTORY_MAX, Load, Msg};
pub use update::update;

/// How many rows a list shows at once: six options and "Other" fit, more scroll.
pub(crate) const VISIBLE_ROWS: usize = 7;

/// Everything the UI knows: the questions, what the person has chosen and typed so far, the
/// open tab and any open dialog.
#[derive(Debug, Clone)]
pub struct State {
    questions: Vec<Question>,
    pages: Vec<Page>,
    tab: usize,
    dialog: Option<Dialog>,
    notice: Option<Notice>,
    /// The language of every word the UI shows.
    lang: Lang,
    /// How far the text of the open tab could scroll in the last frame drawn, so that scrolling
    /// stops where the text ends. Only the view sets it; `None` until a frame is drawn.
    scroll_room: Cell<Option<ScrollRoom>>,
}

/// How far the text of a screen can scroll at the terminal's size, as the view found it: first
/// through the question, then through the highlighted option's description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ScrollRoom {
    /// The lines of the question that do not fit.
    pub(crate) question: usize,
    /// The lines of the question and of the highlighted description that do not fit.
    pub(crate) total: usize,
    /// The lines of the focused option's preview that do not fit in its box.
    pub(crate) preview: usize,
}

/// The person's work on one question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// The highlighted row: an option index, or the number of options for "Other".
    pub cursor: usize,
    /// The first row shown when the list scrolls.
    pub offset: usize,
    /// The ticked options of a multi-select question.
    pub checked: Vec<bool>,
    /// Whether the typed text counts as a choice of a multi-select question.
    pub other_checked: bool,
    /// The text typed for "Other", or the answer of a free-text question.
    pub field: TextField,
    /// Whether the text field has the keyboard.
    pub editing: bool,
    /// The committed answer.
    pub answer: Option<Answer>,
    /// How many lines of the question (and then of the highlighted option's description) are
    /// scrolled out of view at the top, when they do not fit on the screen.
    pub scroll: usize,
    /// How many lines of the focused option's preview are scrolled out of view at the top.
    pub preview_scroll: usize,
    /// The open `/` filter of the option list and its text; `None` when closed. While it is
    /// open the list shows only the options whose label holds the text (case ignored), and
    /// "Other" always.
    pub filter: Option<TextField>,
    /// Earlier answers to a question with the same text, newest first, once the terminal has
    /// handed them in ([`Msg::History`]); `None` until the field first asks for them.
    pub history: Option<Vec<String>>,
    /// While ↑/↓ recall earlier answers: the one shown, and the text typed before recalling.
    pub recalled: Option<(usize, String)>,
    /// The paths that Ctrl+T found for the typed text when several match, shown under the
    /// field until the next key.
    pub candidates: Vec<String>,
    /// The person's note on this question's answer (Ctrl+N, or n on a list): it goes
    /// back beside the answer, never in its place.
    pub note: TextField,
    /// Whether the note's editor has the keyboard.
    pub noting: bool,
}

/// A question put to the person over the current screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialog {
    /// "Discard N answers? [y/N]": cancelling would throw away answers already given.
    Discard {
        /// How many answers would be lost.
        answered: usize,
        /// True when Ctrl+C opened it: the dialog then says that Ctrl+C again abandons the call.
        interrupt: bool,
    },
    /// "Answer is long (N chars). Continue anyway? [Y/n]": the typed answer is over the soft
    /// limit `Limits::LONG_ANSWER_CHARS`.
    LongAnswer {
        /// The length of the answer in characters.
        chars: usize,
    },
    /// "None of these? [y/N]": Enter on a multi-select question with nothing ticked; yes
    /// answers it with none of its options.
    NoneOfThese,
}

/// A one-line remark shown above the help line until the next key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// Enter on the Submit tab while some questions have no answer.
    Unanswered(usize),
    /// Enter on an empty text field.
    EmptyAnswer,
    /// Ctrl+T found no path that starts with the typed text.
    NoCompletion,
    /// `?` on a list: the help line names every key of the screen, not only those that answer.
    Keys,
    /// Typing or a paste reached the cap of one answer (`ask_core::MAX_ANSWER_BYTES`): what
    /// did not fit was left out.
    AnswerCap,
}

/// Which screen the current tab shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// A question with options, one to choose.
    Choice,
    /// A question with options, several to tick.
    MultiSelect,
    /// A question without options.
    FreeText,
    /// The review tab of a multi-question call.
    Submit,
}

impl State {
    /// The state before the first key, for `input`'s questions.
    pub fn new(input: &AskUserInput) -> State {
        let pages = input
            .questions
            .iter()
            .map(|question| Page {
                checked: vec![false; question.options().len()],
                editing: question.is_free_text(),
                ..Page::default()
            })
            .collect();
        State {
            questions: input.questions.clone(),
            pages,
            tab: 0,
            dialog: None,
            notice: None,
            lang: Lang::default(),
            scroll_room: Cell::new(None),
        }
    }

    /// The state with answers already given elsewhere (`given[i]` for question `i`, as
    /// [`ask_core::AskRequest::given`] carries them: a form answered before this presenter took
    /// over, or answers the call itself proposes) shown as the person's choices, so they can be
    /// kept with Enter or changed.
    ///
    /// Each given answer moves the highlight to its option, ticks its options, or fills the
    /// typed text; in a multi-question call it is also the question's answer, and the first tab
    /// without one opens (the Submit tab when every question has one).
    #[must_use]
    pub fn with_given(mut self, given: &[Option<Answer>]) -> State {
        let tabbed = self.is_tabbed();
        let mut any = false;
        for ((question, page), answer) in self.questions.iter().zip(&mut self.pages).zip(given) {
            let given = |a: &&Answer| !a.answer.is_empty() || a.answer.is_none_of_these();
            let Some(answer) = answer.as_ref().filter(given) else {
                continue;
            };
            any = true;
            show_given(question, page, answer);
            if tabbed {
                page.answer = Some(answer.clone());
            }
        }
        if tabbed && any {
            self.tab = self
                .pages
                .iter()
                .position(|page| page.answer.is_none())
                .unwrap_or(self.questions.len());
        }
        self
    }

    /// The same state, showing the UI's words in `lang`.
    #[must_use]
    pub fn with_lang(mut self, lang: Lang) -> State {
        self.lang = lang;
        self
    }

    /// The language of the UI's words.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// Records how far the open tab's text can scroll at the size of the frame just drawn.
    ///
    /// This is the one thing the view leaves behind: how far the open tab's text could scroll at
    /// the size it drew, so that `update` stops scrolling where the text ends. Drawing the same
    /// state at the same size always gives the same frame.
    pub(crate) fn set_scroll_room(&self, room: ScrollRoom) {
        self.scroll_room.set(Some(room));
    }

    /// The questions.
    pub fn questions(&self) -> &[Question] {
        &self.questions
    }

    /// The work on each question, in order.
    pub fn pages(&self) -> &[Page] {
        &self.pages
    }

    /// True when the call has more than one question, so tabs and a Submit tab are shown.
    pub fn is_tabbed(&self) -> bool {
        self.questions.len() > 1
    }

    /// The open tab: a question index, or the number of questions for the Submit tab.
    pub fn tab(&self) -> usize {
        self.tab
    }

    /// The open dialog.
    pub fn dialog(&self) -> Option<Dialog> {
        self.dialog
    }

    /// The bytes that a multi-select's options could add to its answer beside the typed text,
    /// all ticked: "Other" leaves room for them within the cap of one answer, so that the answer
    /// stays within it whatever is ticked. Nothing for any other question.
    pub(crate) fn labels_bytes(&self) -> usize {
        self.current()
            .filter(|(question, _)| question.multi_select)
            .map_or(0, |(question, _)| {
                question.options().iter().map(|o| o.label.len()).sum()
            })
    }

    /// The remark shown above the help line.
    pub fn notice(&self) -> Option<Notice> {
        self.notice
    }

    /// How many questions have an answer.
    pub fn answered(&self) -> usize {
        self.pages.iter().filter(|p| p.answer.is_some()).count()
    }

    /// How many answers cancelling would throw away: in a multi-question call, the questions
    /// with an answer or typed text; in a lone question, which holds no answer until it ends,
    /// its ticked boxes and its typed text.
    pub fn in_progress(&self) -> usize {
        if !self.is_tabbed() {
            return self
                .pages
                .iter()
                .map(|p| {
                    p.checked.iter().filter(|&&on| on).count() + usize::from(!p.field.is_blank())
                })
                .sum();
        }
        self.pages
            .iter()
            .filter(|p| p.answer.is_some() || !p.field.is_blank())
            .count()
    }

    /// The screen the open tab shows.
    pub fn screen(&self) -> Screen {
        match self.questions.get(self.tab) {
            None => Screen::Submit,
            Some(q) if q.is_free_text() => Screen::FreeText,
            Some(q) if q.multi_select => Screen::MultiSelect,
            Some(_) => Screen::Choice,
        }
    }

    /// The open question and its page, unless the Submit tab is open.
    pub fn current(&self) -> Option<(&Question, &Page)> {
        Some((self.questions.get(self.tab)?, self.pages.get(self.tab)?))
    }

    /// True when the text field of the open tab has the keyboard.
    pub fn is_editing(&self) -> bool {
        self.current().is_some_and(|(_, page)| page.editing)
    }

    fn tabs(&self) -> usize {
        if self.is_tabbed() {
            self.questions.len() + 1
        } else {
            1
        }
    }

    fn page_mut(&mut self) -> Option<&mut Page> {
        self.pages.get_mut(self.tab)
    }

    /// The rows of the open list: the options plus "Other".
    fn rows(&self) -> usize {
        self.questions
            .get(self.tab)
            .map_or(0, |q| q.options().len() + 1)
    }

    /// The rows the open list shows, in order: every option and "Other", or, while the filter
    /// holds text, the options whose label holds it (case ignored) and "Other".
    ///
    /// "Other" is a row of every list, whatever it shows: with previews, with the filter open
    /// (the last row, even when nothing matches), in single and multi-select.
    pub fn visible_rows(&self) -> Vec<usize> {
        let Some((question, page)) = self.current() else {
            return Vec::new();
        };
        let options = question.options();
        match page.filter.as_ref().filter(|f| !f.text().is_empty()) {
            Some(filter) => {
                let needle = filter.text().to_lowercase();
                options
                    .iter()
                    .enumerate()
                    .filter(|(_, option)| option.label.to_lowercase().contains(&needle))
                    .map(|(i, _)| i)
                    .chain([options.len()])
                    .collect()
            }
            None => (0..=options.len()).collect(),
        }
    }

    /// True when the note's editor of the open question has the keyboard.
    pub fn is_noting(&self) -> bool {
        self.current().is_some_and(|(_, page)| page.noting)
    }

    /// True when the open list's filter is open.
    pub fn is_filtering(&self) -> bool {
        self.current()
            .is_some_and(|(_, page)| page.filter.is_some())
    }
}

/// Puts a given answer on `question`'s page: the highlight on its option or on "Other", its
/// options ticked, its typed text in the field, its note in the note field ([`ask_core::Prefill`],
/// the reading every presenter that shows given answers shares).
fn show_given(question: &Question, page: &mut Page, answer: &Answer) {
    let Some(prefill) = ask_core::Prefill::of(question, answer) else {
        return;
    };
    let other_row = question.options().len();
    for &index in &prefill.chosen {
        if question.multi_select {
            page.checked[index] = true;
        } else {
            page.cursor = index;
        }
    }
    if let Some(text) = &prefill.other {
        page.field = TextField::with_text(text.as_str());
        page.other_checked = question.multi_select;
        page.cursor = other_row;
    }
    if let Some(notes) = &prefill.notes {
        page.note = TextField::with_text(notes.as_str());
    }
    if question.multi_select && !page.other_checked {
        page.cursor = page.checked.iter().position(|on| *on).unwrap_or(0);
    }
    let cursor = page.cursor;
    scroll_into_view(page, cursor, other_row + 1);
}

/// Keeps the highlighted row, at position `at` of a list of `rows` rows, inside the window of
/// [`VISIBLE_ROWS`] rows.
fn scroll_into_view(page: &mut Page, at: usize, rows: usize) {
    if at < page.offset {
        page.offset = at;
    } else if at >= page.offset + VISIBLE_ROWS {
        page.offset = at + 1 - VISIBLE_ROWS;
    }
    page.offset = page.offset.min(rows.saturating_sub(VISIBLE_ROWS));
}
