//! The pure core: [`State`], [`Msg`], [`update`] and the mapping from keys to messages.
//!
//! Nothing here touches the terminal, so every binding is tested by feeding messages.

use std::cell::Cell;

use ask_core::{Answer, AskUserInput, Limits, Outcome, Question, QuestionKind};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::text::TextField;
use ask_core::lang::Lang;

/// How many rows a list shows at once: six options and "Other" fit, more scroll.
pub const VISIBLE_ROWS: usize = 7;

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
}

/// What the person asked for, decoded from a key or a paste.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    /// Move the highlight up (↑ or k).
    Up,
    /// Move the highlight down (↓ or j).
    Down,
    /// Highlight the first row (Home).
    First,
    /// Highlight the last row, "Other" (End).
    Last,
    /// Move the highlight up by a page (PgUp).
    PageUp,
    /// Move the highlight down by a page (PgDn).
    PageDown,
    /// Scroll a question or description that does not fit back up (Shift+↑ or Ctrl+↑).
    ScrollUp,
    /// Scroll a question or description that does not fit further down (Shift+↓ or Ctrl+↓).
    ScrollDown,
    /// A digit: 1–9 pick that option, 0 picks "Other"; on the review, 1–9 open that question.
    Quick(u8),
    /// Tick or untick the highlighted option of a multi-select question (Space).
    Toggle,
    /// The next tab (Tab; → on a list or in an empty text field).
    NextTab,
    /// The previous tab (Shift+Tab; ← on a list or in an empty text field).
    PrevTab,
    /// Confirm (Enter).
    Enter,
    /// Go back or cancel (Esc).
    Cancel,
    /// Ctrl+C: like Esc, but a second one at the discard confirmation aborts.
    Interrupt,
    /// Yes at a dialog (y).
    Yes,
    /// No at a dialog (n).
    No,
    /// A typed character for the text field.
    Input(char),
    /// Pasted text for the text field.
    Paste(String),
    /// Delete the grapheme before the text cursor.
    Backspace,
    /// Delete the grapheme under the text cursor.
    Delete,
    /// Move the text cursor left.
    CursorLeft,
    /// Move the text cursor right.
    CursorRight,
    /// Move the text cursor to the start.
    CursorHome,
    /// Move the text cursor to the end.
    CursorEnd,
    /// Scroll the focused option's preview up ([).
    PreviewUp,
    /// Scroll the focused option's preview down (]).
    PreviewDown,
    /// Open the filter of a long option list (/).
    Filter,
    /// Tick every option of a multi-select question, or untick them all when all are ticked (a).
    ToggleAll,
    /// The earlier answers to the open question, newest first, as the terminal read them after
    /// [`Effect::Load`] asked for them; the recall that asked then happens.
    History(Vec<String>),
    /// Complete the typed path (Ctrl+T in a path question).
    Complete,
    /// Open the note on the open question's answer (Ctrl+N on every screen, or n on a list).
    Note,
    /// The paths that start with `typed`, as the terminal read them from the disk after
    /// [`Load::Complete`] asked: one is taken whole, several fill in what they share and are
    /// listed.
    Completions {
        /// The text they complete.
        typed: String,
        /// The matching paths, sorted; a folder ends in `/`.
        candidates: Vec<String>,
    },
    /// The terminal changed size: nothing changes but the next frame.
    Resize,
}

/// What the shell must do after an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Draw the next frame and wait for the next key.
    Continue,
    /// The ask is over.
    Finish(Outcome),
    /// The person pressed Ctrl+C at the discard confirmation: the ask is abandoned as if the
    /// process had been interrupted, so nothing is answered or saved and the call is asked
    /// again from the beginning next time.
    Abort,
    /// The state needs something only the terminal module can read: it reads it, hands it in
    /// as the message named in [`Load`], and draws the next frame.
    Load(Load),
}

/// What the terminal module reads for the pure state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Load {
    /// The earlier answers to questions with this text in the session log (at most
    /// [`HISTORY_MAX`], newest first), answered with [`Msg::History`].
    History {
        /// The question's text.
        question: String,
    },
    /// The paths that start with the typed text, from the working folder (an absolute path
    /// from the root), answered with [`Msg::Completions`].
    Complete {
        /// The typed text.
        typed: String,
    },
}

/// How many earlier answers a field can recall.
pub const HISTORY_MAX: usize = 100;

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
            let Some(answer) = answer.as_ref().filter(|a| !a.answer.is_empty()) else {
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

    /// The remark shown above the help line.
    pub fn notice(&self) -> Option<Notice> {
        self.notice
    }

    /// How many questions have an answer.
    pub fn answered(&self) -> usize {
        self.pages.iter().filter(|p| p.answer.is_some()).count()
    }

    /// How many questions have an answer or typed text that cancelling would throw away.
    pub fn in_progress(&self) -> usize {
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

    fn move_cursor(&mut self, to: impl FnOnce(usize, usize) -> usize) {
        let visible = self.visible_rows();
        if let Some(page) = self.pages.get_mut(self.tab) {
            if visible.is_empty() || page.editing {
                return;
            }
            let before = page.cursor;
            let last = visible.len() - 1;
            let at = visible
                .iter()
                .position(|&row| row == page.cursor)
                .unwrap_or(0);
            let at = to(at, last).min(last);
            page.cursor = visible[at];
            scroll_into_view(page, at, visible.len());
            if page.cursor != before {
                page.preview_scroll = 0;
                // Another option's description: scroll back to its start.
                let question = self.scroll_room.get().map_or(0, |room| room.question);
                page.scroll = page.scroll.min(question);
            }
        }
    }

    /// Opens the filter of the open list, empty.
    fn open_filter(&mut self) {
        if let Some(page) = self.page_mut()
            && !page.editing
        {
            page.filter = Some(TextField::new());
        }
    }

    /// Closes the filter, keeping the highlighted option, and shows it in the whole list.
    fn close_filter(&mut self) {
        let rows = self.rows();
        if let Some(page) = self.page_mut()
            && page.filter.take().is_some()
        {
            let cursor = page.cursor;
            scroll_into_view(page, cursor, rows);
        }
    }

    /// After the filter's text changed: the highlight goes to the first match (or to "Other"
    /// when nothing matches) and the list to its top.
    fn refilter(&mut self) {
        let first = self.visible_rows().first().copied().unwrap_or(0);
        if let Some(page) = self.page_mut() {
            page.cursor = first;
            page.offset = 0;
            page.scroll = 0;
        }
    }

    /// ↑ or ↓ in a text field on its first or last line: the next older (or newer) earlier
    /// answer replaces the text; past the newest, the text typed before comes back. Returns
    /// `None` when there is nothing to recall that way, and asks the terminal for the earlier
    /// answers the first time.
    fn recall(&mut self, older: bool) -> Option<Effect> {
        let (question, page) = self.current()?;
        // A secret answer is never recalled, nor offered for recall.
        if question.secret {
            return None;
        }
        let Some(history) = &page.history else {
            let question = question.question.clone();
            return older.then_some(Effect::Load(Load::History { question }));
        };
        let next = match (&page.recalled, older) {
            (None, true) => 0,
            (None, false) => return None,
            (Some((at, _)), true) => at + 1,
            (Some((0, _)), false) => usize::MAX,
            (Some((at, _)), false) => at - 1,
        };
        if next != usize::MAX && next >= history.len() {
            return None;
        }
        let text = history.get(next).cloned();
        let page = self.page_mut()?;
        match text {
            Some(text) => {
                let draft = match page.recalled.take() {
                    Some((_, draft)) => draft,
                    None => page.field.text().to_string(),
                };
                page.field = TextField::with_text(text);
                page.recalled = Some((next, draft));
            }
            None => {
                let (_, draft) = page.recalled.take()?;
                page.field = TextField::with_text(draft);
            }
        }
        Some(Effect::Continue)
    }

    /// Ticks every option, or unticks them all when every one is ticked; "Other" and its text
    /// stay as they are.
    fn toggle_all(&mut self) {
        let Some(page) = self.page_mut() else {
            return;
        };
        let all = page.checked.iter().all(|&on| on);
        page.checked.iter_mut().for_each(|on| *on = !all);
        self.sync_multi();
    }

    fn scroll_text(&mut self, down: bool) {
        let room = self.scroll_room.get();
        if let Some(page) = self.pages.get_mut(self.tab) {
            let total = room.map_or(usize::MAX, |room| room.total);
            page.scroll = if down {
                page.scroll.saturating_add(1).min(total)
            } else {
                page.scroll.min(total).saturating_sub(1)
            };
        }
    }

    fn switch_tab(&mut self, forward: bool) {
        let tabs = self.tabs();
        if tabs < 2 {
            return;
        }
        self.leave_field();
        self.close_filter();
        self.tab = if forward {
            (self.tab + 1) % tabs
        } else {
            (self.tab + tabs - 1) % tabs
        };
    }

    /// Leaves the text field of the open tab (by Tab, Shift+Tab, Esc, or ↑ from "Other"),
    /// keeping what was typed: the screen then shows exactly what will be submitted.
    ///
    /// In a multi-select, text ticks "Other" and an empty field unticks it. In a multi-question
    /// call a non-empty edit becomes the question's answer, and an emptied field takes a typed
    /// answer away. A lone question holds no answer until it finishes, so there the text stays
    /// in the field, shown on the "Other" row, and Enter on that row sends it.
    fn leave_field(&mut self) {
        let screen = self.screen();
        let tabbed = self.is_tabbed();
        let Some((question, page)) = self.current() else {
            return;
        };
        if !page.editing {
            return;
        }
        let typed = (!page.field.is_blank()).then(|| page.field.text().to_string());
        let answer = typed
            .as_ref()
            .map(|text| Answer::custom(question.question.clone(), text.clone()));
        let Some(page) = self.page_mut() else {
            return;
        };
        match screen {
            Screen::FreeText => {
                if tabbed {
                    page.answer = answer;
                }
            }
            Screen::Choice => {
                page.editing = false;
                if tabbed {
                    match answer {
                        Some(answer) => page.answer = Some(answer),
                        None if page.answer.as_ref().is_some_and(|a| a.was_custom) => {
                            page.answer = None;
                        }
                        None => {}
                    }
                }
            }
            Screen::MultiSelect => {
                page.editing = false;
                page.other_checked = typed.is_some();
                self.sync_multi();
            }
            Screen::Submit => {}
        }
    }

    /// In a multi-question call, a multi-select question's answer is always what its rows show
    /// ticked: ticking is answering, and unticking everything takes the answer away.
    fn sync_multi(&mut self) {
        if !self.is_tabbed() || self.screen() != Screen::MultiSelect {
            return;
        }
        let Some((question, page)) = self.current() else {
            return;
        };
        let labels = question.chosen_labels(&page.checked);
        let custom =
            (page.other_checked && !page.field.is_blank()).then(|| page.field.text().to_string());
        let answer = (!labels.is_empty() || custom.is_some())
            .then(|| Answer::multi(&question.question, labels, custom));
        if let Some(page) = self.page_mut() {
            page.answer = answer;
        }
    }

    /// Records `answer` for the open question and moves on: to the next tab that needs an
    /// answer, or, for a lone question, out.
    fn commit(&mut self, answer: Answer) -> Effect {
        if !self.is_tabbed() {
            let answer = match self.pages.first() {
                Some(page) => with_note(answer, page),
                None => answer,
            };
            return Effect::Finish(Outcome::Answered(vec![answer]));
        }
        let Some(page) = self.page_mut() else {
            return Effect::Continue;
        };
        page.answer = Some(answer);
        if self.screen() != Screen::FreeText
            && let Some(page) = self.page_mut()
        {
            page.editing = false;
        }
        let n = self.questions.len();
        self.tab = (1..=n)
            .map(|step| (self.tab + step) % (n + 1))
            .find(|&t| t == n || self.pages[t].answer.is_none())
            .unwrap_or(n);
        Effect::Continue
    }

    /// Commits the open text field, first asking about a long answer.
    fn commit_text(&mut self, confirmed: bool) -> Effect {
        let screen = self.screen();
        let Some((question, page)) = self.current() else {
            return Effect::Continue;
        };
        if page.field.is_blank() {
            if screen == Screen::MultiSelect {
                if let Some(page) = self.page_mut() {
                    page.other_checked = false;
                    page.editing = false;
                }
                self.sync_multi();
            } else {
                self.notice = Some(Notice::EmptyAnswer);
                // An emptied free-text answer is no answer: the tab bar says so at once.
                if screen == Screen::FreeText
                    && let Some(page) = self.page_mut()
                {
                    page.answer = None;
                }
            }
            return Effect::Continue;
        }
        let chars = page.field.char_count();
        if chars > Limits::LONG_ANSWER_CHARS && !confirmed {
            self.dialog = Some(Dialog::LongAnswer { chars });
            return Effect::Continue;
        }
        let text = page.field.text().to_string();
        let question_text = question.question.clone();
        match screen {
            Screen::MultiSelect => {
                if let Some(page) = self.page_mut() {
                    page.other_checked = true;
                    page.editing = false;
                }
                self.sync_multi();
                Effect::Continue
            }
            _ => self.commit(Answer::custom(question_text, text)),
        }
    }

    /// Enter on a list row.
    fn choose(&mut self, row: usize) -> Effect {
        let Some((question, _)) = self.current() else {
            return Effect::Continue;
        };
        if question.multi_select {
            let options = question.options().len();
            if let Some(page) = self.page_mut() {
                page.cursor = row.min(options);
            }
            return self.submit_multi();
        }
        let Some(label) = question.options().get(row).map(|o| o.label.clone()) else {
            // "Other" with text kept from an earlier visit sends that text; empty, it opens
            // the field.
            let typed = self
                .current()
                .is_some_and(|(_, page)| !page.field.is_blank());
            if typed && row == self.rows().saturating_sub(1) {
                if let Some(page) = self.page_mut() {
                    page.cursor = row;
                }
                return self.commit_text(false);
            }
            return self.open_other();
        };
        let answer = Answer::selected(question.question.clone(), label);
        if let Some(page) = self.page_mut() {
            page.cursor = row;
        }
        self.commit(answer)
    }

    fn open_other(&mut self) -> Effect {
        let rows = self.rows();
        if let Some(page) = self.page_mut() {
            page.cursor = rows.saturating_sub(1);
            page.editing = true;
            page.filter = None;
            scroll_into_view(page, rows.saturating_sub(1), rows);
        }
        Effect::Continue
    }

    /// Enter on a multi-select list: the ticked options and any typed text become the answer.
    /// With nothing ticked, Enter ticks the highlighted option first (or opens "Other").
    fn submit_multi(&mut self) -> Effect {
        let Some((question, page)) = self.current() else {
            return Effect::Continue;
        };
        let nothing = !page.checked.contains(&true) && !page.other_checked;
        if nothing {
            if page.cursor >= question.options().len() {
                return self.open_other();
            }
            let cursor = page.cursor;
            if let Some(page) = self.page_mut() {
                page.checked[cursor] = true;
            }
        }
        let Some((question, page)) = self.current() else {
            return Effect::Continue;
        };
        let labels = question.chosen_labels(&page.checked);
        let custom =
            (page.other_checked && !page.field.is_blank()).then(|| page.field.text().to_string());
        let answer = Answer::multi(&question.question, labels, custom);
        self.commit(answer)
    }

    fn toggle(&mut self, row: usize) -> Effect {
        let options = self.current().map_or(0, |(q, _)| q.options().len());
        let rows = self.rows();
        let Some(page) = self.page_mut() else {
            return Effect::Continue;
        };
        page.cursor = row.min(options);
        let cursor = page.cursor;
        scroll_into_view(page, cursor, rows);
        if row < options {
            page.checked[row] = !page.checked[row];
        } else if page.other_checked {
            page.other_checked = false;
        } else {
            page.editing = true;
        }
        self.sync_multi();
        Effect::Continue
    }

    /// Esc or Ctrl+C outside a dialog and outside the "Other" field: cancel at once when
    /// nothing would be lost, otherwise ask first. Typed text counts as an answer in progress, in
    /// a lone question too.
    fn cancel(&mut self, interrupt: bool) -> Effect {
        self.leave_field();
        let answered = self.in_progress();
        if answered > 0 {
            self.dialog = Some(Dialog::Discard {
                answered,
                interrupt,
            });
            Effect::Continue
        } else {
            Effect::Finish(Outcome::Cancelled)
        }
    }

    fn submit_all(&mut self) -> Effect {
        let missing = self.pages.iter().filter(|p| p.answer.is_none()).count();
        if missing > 0 {
            self.notice = Some(Notice::Unanswered(missing));
            if let Some(first) = self.pages.iter().position(|p| p.answer.is_none()) {
                self.tab = first;
            }
            return Effect::Continue;
        }
        let answers = self
            .pages
            .iter()
            .filter_map(|p| p.answer.clone().map(|answer| with_note(answer, p)))
            .collect();
        Effect::Finish(Outcome::Answered(answers))
    }
}

/// `answer` with the page's note beside it, when the note holds more than whitespace.
fn with_note(answer: Answer, page: &Page) -> Answer {
    answer.with_notes(Some(page.note.text()))
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

/// Applies one message. Pure: the same state and message always give the same result.
pub fn update(state: &mut State, msg: Msg) -> Effect {
    if !matches!(msg, Msg::Resize) {
        state.notice = None;
    }
    if let Msg::History(answers) = msg {
        return take_history(state, answers);
    }
    if let Msg::Completions { typed, candidates } = msg {
        take_completions(state, &typed, candidates);
        return Effect::Continue;
    }
    if let Some(page) = state.page_mut() {
        page.candidates.clear();
    }
    if let Some(dialog) = state.dialog {
        return update_dialog(state, dialog, msg);
    }
    if state.is_noting() {
        return update_note(state, &msg);
    }
    if matches!(msg, Msg::Note) && state.screen() != Screen::Submit {
        if let Some(page) = state.page_mut() {
            page.noting = true;
        }
        return Effect::Continue;
    }
    if state.is_editing()
        && let Some(effect) = update_field(state, &msg)
    {
        return effect;
    }
    if state.is_filtering()
        && let Some(effect) = update_filter(state, &msg)
    {
        return effect;
    }
    let screen = state.screen();
    match msg {
        Msg::Up => state.move_cursor(|c, _| c.saturating_sub(1)),
        Msg::Down => state.move_cursor(|c, last| (c + 1).min(last)),
        Msg::First => state.move_cursor(|_, _| 0),
        Msg::Last => state.move_cursor(|_, last| last),
        Msg::PageUp => state.move_cursor(|c, _| c.saturating_sub(VISIBLE_ROWS)),
        Msg::PageDown => state.move_cursor(|c, _| c + VISIBLE_ROWS),
        Msg::ScrollUp => state.scroll_text(false),
        Msg::ScrollDown => state.scroll_text(true),
        Msg::PreviewUp | Msg::PreviewDown => {
            let room = state.scroll_room.get().map_or(0, |room| room.preview);
            if let Some(page) = state.page_mut() {
                page.preview_scroll = if msg == Msg::PreviewDown {
                    (page.preview_scroll + 1).min(room)
                } else {
                    page.preview_scroll.min(room).saturating_sub(1)
                };
            }
        }
        // On the review, a question's number opens its tab, where its whole answer shows.
        Msg::Quick(digit) if screen == Screen::Submit => {
            let question = usize::from(digit);
            if (1..=state.questions.len()).contains(&question) {
                state.tab = question - 1;
            }
        }
        Msg::Quick(digit) => {
            let options = state.current().map_or(0, |(q, _)| q.options().len());
            if options == 0 {
                return Effect::Continue;
            }
            let row = match usize::from(digit) {
                0 => options,
                n if n <= options + 1 => n - 1,
                _ => return Effect::Continue,
            };
            return match screen {
                Screen::MultiSelect => state.toggle(row),
                _ if row == options => state.open_other(),
                _ => state.choose(row),
            };
        }
        Msg::Toggle => {
            if screen == Screen::MultiSelect {
                let cursor = state.current().map_or(0, |(_, p)| p.cursor);
                return state.toggle(cursor);
            }
        }
        Msg::NextTab => state.switch_tab(true),
        Msg::PrevTab => state.switch_tab(false),
        Msg::Enter => {
            return match screen {
                Screen::Submit => state.submit_all(),
                Screen::MultiSelect => state.submit_multi(),
                Screen::Choice => {
                    let cursor = state.current().map_or(0, |(_, p)| p.cursor);
                    state.choose(cursor)
                }
                Screen::FreeText => state.commit_text(false),
            };
        }
        Msg::Cancel => return state.cancel(false),
        Msg::Interrupt => return state.cancel(true),
        Msg::Paste(text) => {
            if matches!(screen, Screen::Choice | Screen::MultiSelect) {
                state.open_other();
                if let Some(page) = state.page_mut() {
                    page.field.insert(&text);
                }
            }
        }
        Msg::Filter => {
            if matches!(screen, Screen::Choice | Screen::MultiSelect) {
                state.open_filter();
            }
        }
        Msg::ToggleAll => {
            if screen == Screen::MultiSelect {
                state.toggle_all();
            }
        }
        Msg::Yes
        | Msg::No
        | Msg::History(_)
        | Msg::Complete
        | Msg::Note
        | Msg::Completions { .. }
        | Msg::Input(_)
        | Msg::Backspace
        | Msg::Delete
        | Msg::CursorLeft
        | Msg::CursorRight
        | Msg::CursorHome
        | Msg::CursorEnd
        | Msg::Resize => {}
    }
    Effect::Continue
}

/// Messages for an open text field; `None` passes the message on to the list.
fn update_field(state: &mut State, msg: &Msg) -> Option<Effect> {
    let screen = state.screen();
    let (on_first, on_last) = state.current().map_or((false, false), |(_, page)| {
        let text = page.field.text();
        let cursor = page.field.cursor();
        (
            !text[..cursor].contains('\n'),
            !text[cursor..].contains('\n'),
        )
    });
    match msg {
        Msg::Up if on_first => {
            if let Some(effect) = state.recall(true) {
                return Some(effect);
            }
        }
        Msg::Down if on_last => {
            if let Some(effect) = state.recall(false) {
                return Some(effect);
            }
        }
        _ => {}
    }
    if !matches!(msg, Msg::Up | Msg::Down | Msg::ScrollUp | Msg::ScrollDown)
        && let Some(page) = state.page_mut()
    {
        // An edit (or a cursor move) keeps the recalled text as the person's own.
        page.recalled = None;
    }
    match msg {
        Msg::Complete => {
            return Some(match state.current() {
                Some((question, page)) if is_path(question) => Effect::Load(Load::Complete {
                    typed: page.field.text().to_string(),
                }),
                _ => Effect::Continue,
            });
        }
        Msg::Enter => return Some(state.commit_text(false)),
        // Esc in the "Other" field goes back to the list, keeping the text; a free-text
        // question has nothing to go back to, so it cancels (asking first about typed text).
        Msg::Cancel | Msg::Interrupt if screen != Screen::FreeText => {
            state.leave_field();
            return Some(Effect::Continue);
        }
        Msg::Up if screen != Screen::FreeText => {
            state.leave_field();
            return None;
        }
        Msg::Cancel
        | Msg::Interrupt
        | Msg::Up
        | Msg::NextTab
        | Msg::PrevTab
        | Msg::ScrollUp
        | Msg::ScrollDown => return None,
        _ => {}
    }
    let page = state.page_mut()?;
    match msg {
        Msg::Input(c) => page.field.insert(c.encode_utf8(&mut [0; 4])),
        Msg::Paste(text) => page.field.insert(text),
        Msg::Backspace => page.field.backspace(),
        Msg::Delete => page.field.delete(),
        Msg::CursorLeft => page.field.left(),
        Msg::CursorRight => page.field.right(),
        Msg::CursorHome => page.field.home(),
        Msg::CursorEnd => page.field.end(),
        _ => {}
    }
    Some(Effect::Continue)
}

/// The paths for Ctrl+T arrive: ignored when the text changed meanwhile; one is taken whole;
/// several fill in the part they all share and are listed under the field; none is said.
fn take_completions(state: &mut State, typed: &str, candidates: Vec<String>) {
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
fn is_path(question: &Question) -> bool {
    question.kind == QuestionKind::Path
}

/// Keys for the note's editor: Enter, Esc or Ctrl+N close it, keeping the note (an emptied note
/// is no note); Tab and Shift+Tab close it and switch tabs.
fn update_note(state: &mut State, msg: &Msg) -> Effect {
    let Some(page) = state.page_mut() else {
        return Effect::Continue;
    };
    match msg {
        Msg::Enter | Msg::Cancel | Msg::Interrupt | Msg::Note => page.noting = false,
        // Tab and Shift+Tab switch tabs from the note too, keeping it.
        Msg::NextTab | Msg::PrevTab => {
            page.noting = false;
            state.switch_tab(*msg == Msg::NextTab);
        }
        Msg::Input(c) => page.note.insert(c.encode_utf8(&mut [0; 4])),
        Msg::Paste(text) => page.note.insert(text),
        Msg::Backspace => page.note.backspace(),
        Msg::Delete => page.note.delete(),
        Msg::CursorLeft => page.note.left(),
        Msg::CursorRight => page.note.right(),
        Msg::CursorHome => page.note.home(),
        Msg::CursorEnd => page.note.end(),
        _ => {}
    }
    Effect::Continue
}

/// The earlier answers arrive: they are kept for the page, and the ↑ that asked for them
/// recalls the newest. With none, that ↑ does what it does without history (in "Other", it
/// goes back to the list).
fn take_history(state: &mut State, answers: Vec<String>) -> Effect {
    let editing = state.is_editing();
    let Some(page) = state.page_mut() else {
        return Effect::Continue;
    };
    page.history = Some(answers);
    if !editing {
        return Effect::Continue;
    }
    match state.recall(true) {
        Some(effect) => effect,
        None if state.screen() != Screen::FreeText => {
            state.leave_field();
            state.move_cursor(|c, _| c.saturating_sub(1));
            Effect::Continue
        }
        None => Effect::Continue,
    }
}

/// Messages for an open filter; `None` passes the message on to the list, whose moves then go
/// through the matching rows only.
fn update_filter(state: &mut State, msg: &Msg) -> Option<Effect> {
    let screen = state.screen();
    match msg {
        Msg::Input(c) => {
            if let Some(filter) = state.page_mut().and_then(|p| p.filter.as_mut()) {
                filter.insert(c.encode_utf8(&mut [0; 4]));
            }
        }
        Msg::Paste(text) => {
            // A filter is one line: a pasted line end would match no label.
            let line = text.lines().next().unwrap_or_default().to_string();
            if let Some(filter) = state.page_mut().and_then(|p| p.filter.as_mut()) {
                filter.insert(&line);
            }
        }
        Msg::Backspace => {
            if let Some(filter) = state.page_mut().and_then(|p| p.filter.as_mut()) {
                filter.backspace();
            }
        }
        // Esc (or Ctrl+C) closes the filter; the highlighted option stays highlighted.
        Msg::Cancel | Msg::Interrupt => {
            state.close_filter();
            return Some(Effect::Continue);
        }
        // Enter picks the highlighted match: in a multi-select it ticks it (or opens "Other")
        // and goes back to the whole list.
        Msg::Enter => {
            let cursor = state.current().map_or(0, |(_, p)| p.cursor);
            state.close_filter();
            return Some(match screen {
                Screen::MultiSelect => state.toggle(cursor),
                _ => state.choose(cursor),
            });
        }
        _ => return None,
    }
    state.refilter();
    Some(Effect::Continue)
}

fn update_dialog(state: &mut State, dialog: Dialog, msg: Msg) -> Effect {
    match (dialog, msg) {
        (Dialog::Discard { .. }, Msg::Yes) => Effect::Finish(Outcome::Cancelled),
        (Dialog::Discard { .. }, Msg::Interrupt) => Effect::Abort,
        (Dialog::Discard { .. }, Msg::No | Msg::Cancel | Msg::Enter) => {
            state.dialog = None;
            Effect::Continue
        }
        (Dialog::LongAnswer { .. }, Msg::Yes | Msg::Enter) => {
            state.dialog = None;
            state.commit_text(true)
        }
        (Dialog::LongAnswer { .. }, Msg::No | Msg::Cancel | Msg::Interrupt) => {
            state.dialog = None;
            Effect::Continue
        }
        _ => Effect::Continue,
    }
}

/// The message for a key, given the state it arrives in; `None` for keys that do nothing.
///
/// Only key presses count: releases and repeats reported by some terminals are ignored.
pub fn msg_for_key(state: &State, key: KeyEvent) -> Option<Msg> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && matches!(key.code, KeyCode::Char('c' | 'C')) {
        return Some(Msg::Interrupt);
    }
    if state.dialog.is_some() {
        // `y` says yes in every language, and so does the language's own key ("[j/N]").
        let yes = state.lang.text().yes_key;
        return match key.code {
            KeyCode::Char(c) if c.eq_ignore_ascii_case(&yes) => Some(Msg::Yes),
            KeyCode::Char('y' | 'Y') => Some(Msg::Yes),
            KeyCode::Char('n' | 'N') => Some(Msg::No),
            KeyCode::Enter => Some(Msg::Enter),
            KeyCode::Esc => Some(Msg::Cancel),
            _ => None,
        };
    }
    let scroll = key
        .modifiers
        .intersects(KeyModifiers::SHIFT | KeyModifiers::CONTROL);
    let common = match key.code {
        KeyCode::Up if scroll => Some(Msg::ScrollUp),
        KeyCode::Down if scroll => Some(Msg::ScrollDown),
        KeyCode::Esc => Some(Msg::Cancel),
        KeyCode::Enter => Some(Msg::Enter),
        KeyCode::Tab => Some(Msg::NextTab),
        KeyCode::BackTab => Some(Msg::PrevTab),
        KeyCode::Up => Some(Msg::Up),
        KeyCode::Down => Some(Msg::Down),
        KeyCode::PageUp => Some(Msg::PageUp),
        KeyCode::PageDown => Some(Msg::PageDown),
        _ => None,
    };
    if common.is_some() {
        return common;
    }
    // Ctrl+N is the note key on every screen; `n` is its alias on a list only, since in a text
    // field it is text.
    if ctrl && matches!(key.code, KeyCode::Char('n' | 'N')) {
        return Some(Msg::Note);
    }
    if state.is_filtering() && !state.is_noting() {
        return match key.code {
            KeyCode::Char(_) if ctrl => None,
            KeyCode::Char(c) => Some(Msg::Input(c)),
            KeyCode::Backspace => Some(Msg::Backspace),
            KeyCode::Home => Some(Msg::First),
            KeyCode::End => Some(Msg::Last),
            _ => None,
        };
    }
    if state.is_editing() || state.is_noting() {
        // ← → move the cursor through the text; in an empty field they switch tabs, as they do
        // on a list.
        let empty = state.current().is_some_and(|(_, page)| {
            let field = if page.noting { &page.note } else { &page.field };
            field.text().is_empty()
        });
        return match key.code {
            KeyCode::Left if empty => Some(Msg::PrevTab),
            KeyCode::Right if empty => Some(Msg::NextTab),
            KeyCode::Char('a') if ctrl => Some(Msg::CursorHome),
            KeyCode::Char('t') if ctrl => Some(Msg::Complete),
            KeyCode::Char('e') if ctrl => Some(Msg::CursorEnd),
            KeyCode::Char(_) if ctrl => None,
            KeyCode::Char(c) => Some(Msg::Input(c)),
            KeyCode::Backspace => Some(Msg::Backspace),
            KeyCode::Delete => Some(Msg::Delete),
            KeyCode::Left => Some(Msg::CursorLeft),
            KeyCode::Right => Some(Msg::CursorRight),
            KeyCode::Home => Some(Msg::CursorHome),
            KeyCode::End => Some(Msg::CursorEnd),
            _ => None,
        };
    }
    match key.code {
        KeyCode::Char('k') => Some(Msg::Up),
        KeyCode::Char('j') => Some(Msg::Down),
        KeyCode::Char(' ') => Some(Msg::Toggle),
        KeyCode::Char('/') => Some(Msg::Filter),
        KeyCode::Char('[') => Some(Msg::PreviewUp),
        KeyCode::Char(']') => Some(Msg::PreviewDown),
        KeyCode::Char('a') => Some(Msg::ToggleAll),
        KeyCode::Char('n') => Some(Msg::Note),
        KeyCode::Char(c @ '0'..='9') => Some(Msg::Quick(c as u8 - b'0')),
        KeyCode::Left => Some(Msg::PrevTab),
        KeyCode::Right => Some(Msg::NextTab),
        KeyCode::Home => Some(Msg::First),
        KeyCode::End => Some(Msg::Last),
        _ => None,
    }
}
