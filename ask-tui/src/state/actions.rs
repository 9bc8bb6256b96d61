//! What the updates do to the state: move the highlight, open and close the filter and the
//! fields, recall earlier answers, switch tabs, and commit, submit or cancel answers.

use ask_core::{Answer, Limits, Outcome};

use super::{Dialog, Effect, Load, Notice, Page, Screen, State, scroll_into_view};
use crate::text::TextField;

impl State {
    pub(super) fn move_cursor(&mut self, to: impl FnOnce(usize, usize) -> usize) {
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
    pub(super) fn open_filter(&mut self) {
        if let Some(page) = self.page_mut()
            && !page.editing
        {
            page.filter = Some(TextField::new());
        }
    }

    /// Closes the filter, keeping the highlighted option, and shows it in the whole list.
    pub(super) fn close_filter(&mut self) {
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
    pub(super) fn refilter(&mut self) {
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
    ///
    /// A secret field never asks for earlier answers and never offers them.
    pub(super) fn recall(&mut self, older: bool) -> Option<Effect> {
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
    pub(super) fn toggle_all(&mut self) {
        let Some(page) = self.page_mut() else {
            return;
        };
        let all = page.checked.iter().all(|&on| on);
        page.checked.iter_mut().for_each(|on| *on = !all);
        self.sync_multi();
    }

    pub(super) fn scroll_text(&mut self, down: bool) {
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

    pub(super) fn switch_tab(&mut self, forward: bool) {
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
    pub(super) fn leave_field(&mut self) {
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
    pub(super) fn sync_multi(&mut self) {
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
    pub(super) fn commit(&mut self, answer: Answer) -> Effect {
        if !self.is_tabbed() {
            let answer = match self.pages.first() {
                Some(page) => with_note(answer, page),
                None => answer,
            };
            return Effect::Ended(Outcome::Answered(vec![answer]));
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
    pub(super) fn commit_text(&mut self, confirmed: bool) -> Effect {
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
    pub(super) fn choose(&mut self, row: usize) -> Effect {
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

    pub(super) fn open_other(&mut self) -> Effect {
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
    pub(super) fn submit_multi(&mut self) -> Effect {
        let Some((question, page)) = self.current() else {
            return Effect::Continue;
        };
        let nothing = !page.checked.contains(&true) && !page.other_checked;
        if nothing {
            // Enter on "Other" opens it; anywhere else, nothing ticked may mean "None of
            // these", which the person confirms rather than getting the highlighted row.
            if page.cursor >= question.options().len() {
                return self.open_other();
            }
            self.dialog = Some(Dialog::NoneOfThese);
            return Effect::Continue;
        }
        let labels = question.chosen_labels(&page.checked);
        let custom =
            (page.other_checked && !page.field.is_blank()).then(|| page.field.text().to_string());
        let answer = Answer::multi(&question.question, labels, custom);
        self.commit(answer)
    }

    /// "None of these" confirmed: the open multi-select question is answered with none of its
    /// options, and nothing typed.
    pub(super) fn commit_none(&mut self) -> Effect {
        let Some((question, _)) = self.current() else {
            return Effect::Continue;
        };
        let answer = Answer::none_of_these(&question.question);
        self.commit(answer)
    }

    pub(super) fn toggle(&mut self, row: usize) -> Effect {
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
    pub(super) fn cancel(&mut self, interrupt: bool) -> Effect {
        self.leave_field();
        let answered = self.in_progress();
        if answered > 0 {
            self.dialog = Some(Dialog::Discard {
                answered,
                interrupt,
            });
            Effect::Continue
        } else {
            Effect::Ended(Outcome::Cancelled)
        }
    }

    pub(super) fn submit_all(&mut self) -> Effect {
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
        Effect::Ended(Outcome::Answered(answers))
    }
}

/// `answer` with the page's note beside it, when the note holds more than whitespace.
fn with_note(answer: Answer, page: &Page) -> Answer {
    answer.with_notes(Some(page.note.text()))
}
