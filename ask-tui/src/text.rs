//! A one-field text editor whose cursor moves by grapheme cluster.
//!
//! Every edit and every cursor move looks only at the graphemes next to the cursor, and the
//! character counts are kept up to date as the text changes, so editing costs the same in a
//! field of ten characters and in a paste of a million (the rest of the string is only moved in
//! memory).

use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

/// The text the person types, with a cursor that always sits on a grapheme boundary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextField {
    text: String,
    /// A byte offset into `text`, always on a grapheme boundary.
    cursor: usize,
    /// The number of characters in `text`.
    chars: usize,
    /// The number of characters before the cursor.
    cursor_chars: usize,
}

impl TextField {
    /// An empty field.
    pub fn new() -> TextField {
        TextField::default()
    }

    /// A field holding `text`, with the cursor at the end.
    pub fn with_text(text: impl Into<String>) -> TextField {
        let text = text.into();
        let cursor = text.len();
        let chars = text.chars().count();
        TextField {
            text,
            cursor,
            chars,
            cursor_chars: chars,
        }
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor as a byte offset into [`TextField::text`].
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// True when the field holds nothing but whitespace.
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// The number of characters in the field.
    pub fn char_count(&self) -> usize {
        self.chars
    }

    /// The number of characters before the cursor.
    pub fn chars_before_cursor(&self) -> usize {
        self.cursor_chars
    }

    /// Inserts `text` at the cursor and moves the cursor after it. Carriage returns (as a
    /// terminal pastes line ends) become line feeds.
    pub fn insert(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let added = text.chars().count();
        self.text.insert_str(self.cursor, &text);
        self.cursor += text.len();
        self.chars += added;
        self.cursor_chars += added;
        self.snap();
    }

    /// Inserts as much of `text` at the cursor as keeps the field, with `reserved` bytes of the
    /// same answer held elsewhere (a multi-select's labels), within the cap of one answer
    /// ([`ask_core::MAX_ANSWER_BYTES`]), cut at a grapheme boundary; true when some of it was
    /// left out.
    pub fn insert_within_cap(&mut self, text: &str, reserved: usize) -> bool {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        if ask_core::check_answer_bytes(reserved + self.text.len() + text.len()).is_ok() {
            self.insert(&text);
            return false;
        }
        let room = ask_core::MAX_ANSWER_BYTES.saturating_sub(reserved + self.text.len());
        let fits = text
            .grapheme_indices(true)
            .map(|(start, grapheme)| start + grapheme.len())
            .take_while(|end| *end <= room)
            .last()
            .unwrap_or(0);
        self.insert(&text[..fits]);
        true
    }

    /// Deletes the grapheme before the cursor.
    pub fn backspace(&mut self) {
        if let Some(start) = self.previous_boundary() {
            let removed = self.text[start..self.cursor].chars().count();
            self.text.replace_range(start..self.cursor, "");
            self.cursor = start;
            self.chars -= removed;
            self.cursor_chars -= removed;
        }
    }

    /// Deletes the grapheme under the cursor.
    pub fn delete(&mut self) {
        if let Some(end) = self.next_boundary() {
            let removed = self.text[self.cursor..end].chars().count();
            self.text.replace_range(self.cursor..end, "");
            self.chars -= removed;
        }
    }

    /// Moves the cursor one grapheme to the left.
    pub fn left(&mut self) {
        if let Some(start) = self.previous_boundary() {
            self.cursor_chars -= self.text[start..self.cursor].chars().count();
            self.cursor = start;
        }
    }

    /// Moves the cursor one grapheme to the right.
    pub fn right(&mut self) {
        if let Some(end) = self.next_boundary() {
            self.cursor_chars += self.text[self.cursor..end].chars().count();
            self.cursor = end;
        }
    }

    /// Moves the cursor to the start.
    pub fn home(&mut self) {
        self.cursor = 0;
        self.cursor_chars = 0;
    }

    /// The field as a secret shows it: one `•` per grapheme, the cursor in the same place, so
    /// nothing typed is echoed. (It walks the text: secrets are short.)
    pub fn masked(&self) -> TextField {
        let before = self.text[..self.cursor].graphemes(true).count();
        let after = self.text[self.cursor..].graphemes(true).count();
        let text = "•".repeat(before + after);
        TextField {
            cursor: before * '•'.len_utf8(),
            chars: before + after,
            cursor_chars: before,
            text,
        }
    }

    /// Moves the cursor to the end.
    pub fn end(&mut self) {
        self.cursor = self.text.len();
        self.cursor_chars = self.chars;
    }

    /// The start of the grapheme before the cursor, found by looking back from the cursor only.
    fn previous_boundary(&self) -> Option<usize> {
        self.text[..self.cursor]
            .grapheme_indices(true)
            .next_back()
            .map(|(start, _)| start)
    }

    /// The end of the grapheme under the cursor.
    fn next_boundary(&self) -> Option<usize> {
        self.text[self.cursor..]
            .graphemes(true)
            .next()
            .map(|g| self.cursor + g.len())
    }

    /// Puts the cursor after the whole cluster when an insertion left it inside one (for
    /// example a combining mark typed after a letter joins the letter's cluster). Only the
    /// text around the cursor is looked at.
    fn snap(&mut self) {
        let mut at = GraphemeCursor::new(self.cursor, self.text.len(), true);
        if at.is_boundary(&self.text, 0).unwrap_or(true) {
            return;
        }
        if let Ok(Some(end)) = at.next_boundary(&self.text, 0) {
            self.cursor_chars += self.text[self.cursor..end].chars().count();
            self.cursor = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_moves_over_whole_graphemes() {
        let mut field = TextField::with_text("ae\u{301}👩‍💻");
        field.left();
        assert_eq!(field.cursor(), "ae\u{301}".len());
        field.left();
        assert_eq!(field.cursor(), 1);
        field.backspace();
        assert_eq!(field.text(), "e\u{301}👩‍💻");
        field.end();
        field.backspace();
        assert_eq!(field.text(), "e\u{301}");
        field.home();
        field.delete();
        assert_eq!(field.text(), "");
    }

    #[test]
    fn an_insertion_stops_at_the_cap_of_one_answer_on_a_grapheme_boundary() {
        let cap = ask_core::MAX_ANSWER_BYTES;
        let mut field = TextField::with_text("a".repeat(cap - 3));
        assert!(!field.insert_within_cap("bc", 0));
        assert_eq!(field.text().len(), cap - 1);
        // "e" with its accent is one grapheme of three bytes: it does not fit, and is not split.
        assert!(field.insert_within_cap("e\u{301}", 0));
        assert_eq!(field.text().len(), cap - 1);
        assert!(!field.insert_within_cap("d", 0));
        assert_eq!(field.text().len(), cap);
        assert!(field.insert_within_cap("x", 0));
        assert_eq!(field.text().len(), cap);
        assert_eq!(field.char_count(), cap);
        // Bytes held elsewhere in the same answer leave that much less room.
        let mut other = TextField::new();
        assert!(other.insert_within_cap(&"y".repeat(cap), 10));
        assert_eq!(other.text().len(), cap - 10);
    }

    #[test]
    fn insert_in_the_middle_and_normalise_line_ends() {
        let mut field = TextField::with_text("ac");
        field.left();
        field.insert("b\r\nx");
        assert_eq!(field.text(), "ab\nxc");
        assert_eq!(field.cursor(), 4);
        assert!(!field.is_blank());
        assert_eq!(field.char_count(), 5);
    }

    #[test]
    fn combining_mark_joins_the_cluster_before_it() {
        let mut field = TextField::with_text("e");
        field.insert("\u{301}");
        assert_eq!(field.cursor(), field.text().len());
        field.left();
        assert_eq!(field.cursor(), 0);
    }

    /// The kept counts always equal counting the text again, whatever the edits.
    #[test]
    fn character_counts_follow_every_edit() {
        let mut field = TextField::with_text("数据e\u{301}");
        let check = |field: &TextField| {
            assert_eq!(field.char_count(), field.text().chars().count());
            assert_eq!(
                field.chars_before_cursor(),
                field.text()[..field.cursor()].chars().count()
            );
        };
        check(&field);
        field.left();
        check(&field);
        field.insert("\u{301}x\r\n");
        check(&field);
        field.home();
        field.right();
        field.delete();
        check(&field);
        field.end();
        field.backspace();
        check(&field);
        field.insert("👩\u{200d}💻");
        check(&field);
        field.left();
        field.backspace();
        check(&field);
    }
}
