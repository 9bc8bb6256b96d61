//! A one-field text editor whose cursor moves by grapheme cluster.

use unicode_segmentation::UnicodeSegmentation;

/// The text the person types, with a cursor that always sits on a grapheme boundary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextField {
    text: String,
    /// A byte offset into `text`, always on a grapheme boundary.
    cursor: usize,
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
        TextField { text, cursor }
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
        self.text.chars().count()
    }

    /// Inserts `text` at the cursor and moves the cursor after it. Carriage returns (as a
    /// terminal pastes line ends) become line feeds.
    pub fn insert(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.text.insert_str(self.cursor, &text);
        self.cursor += text.len();
        self.snap();
    }

    /// Deletes the grapheme before the cursor.
    pub fn backspace(&mut self) {
        if let Some((start, _)) = self.text[..self.cursor].grapheme_indices(true).next_back() {
            self.text.replace_range(start..self.cursor, "");
            self.cursor = start;
        }
    }

    /// Deletes the grapheme under the cursor.
    pub fn delete(&mut self) {
        if let Some(grapheme) = self.text[self.cursor..].graphemes(true).next() {
            let end = self.cursor + grapheme.len();
            self.text.replace_range(self.cursor..end, "");
        }
    }

    /// Moves the cursor one grapheme to the left.
    pub fn left(&mut self) {
        if let Some((start, _)) = self.text[..self.cursor].grapheme_indices(true).next_back() {
            self.cursor = start;
        }
    }

    /// Moves the cursor one grapheme to the right.
    pub fn right(&mut self) {
        if let Some(grapheme) = self.text[self.cursor..].graphemes(true).next() {
            self.cursor += grapheme.len();
        }
    }

    /// Moves the cursor to the start.
    pub fn home(&mut self) {
        self.cursor = 0;
    }

    /// Moves the cursor to the end.
    pub fn end(&mut self) {
        self.cursor = self.text.len();
    }

    /// Puts the cursor after the whole cluster when an insertion left it inside one (for
    /// example a combining mark typed after a letter joins the letter's cluster).
    fn snap(&mut self) {
        for (start, grapheme) in self.text.grapheme_indices(true) {
            let end = start + grapheme.len();
            if start < self.cursor && self.cursor < end {
                self.cursor = end;
                return;
            }
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
}
