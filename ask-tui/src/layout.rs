//! Width-aware text helpers: wrapping, shortening with `…`, and agent text made safe to show.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The display width of `text` in terminal columns.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// Agent text as display lines: split on `'\n'` first, then each line sanitised.
pub fn safe_lines(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|line| ask_core::sanitize_for_display(line).into_owned())
        .collect()
}

/// Agent text as one display line (a line feed shows as `⏎`).
pub fn safe(text: &str) -> Cow<'_, str> {
    ask_core::sanitize_for_display(text)
}

/// Shortens `text` to at most `max` columns, ending it with `…` when something was cut.
pub fn shorten(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for grapheme in text.graphemes(true) {
        let w = width(grapheme);
        if used + w > max - 1 {
            break;
        }
        out.push_str(grapheme);
        used += w;
    }
    out.push('…');
    out
}

/// Wraps one line of text to `max` columns, breaking at spaces where it can and inside a word
/// only when the word alone is too wide. Always returns at least one line.
pub fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split_word_bounds() {
        let w = width(word);
        if used + w <= max {
            line.push_str(word);
            used += w;
            continue;
        }
        if word.trim().is_empty() {
            // A space at a break point is dropped.
            lines.push(std::mem::take(&mut line));
            used = 0;
            continue;
        }
        if used > 0 && w <= max {
            lines.push(std::mem::take(&mut line).trim_end().to_string());
            line.push_str(word);
            used = w;
            continue;
        }
        for grapheme in word.graphemes(true) {
            let gw = width(grapheme);
            if used + gw > max && used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push_str(grapheme);
            used += gw;
        }
    }
    lines.push(line);
    lines
}

/// Adds a thousands separator: 2847 becomes "2,847".
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_wrap(text: &str, max: usize, expected: &[&str]) {
        assert_eq!(wrap(text, max), expected);
    }

    #[test]
    fn wraps_at_spaces() {
        check_wrap(
            "Battle-tested relational DB",
            14,
            &["Battle-tested", "relational DB"],
        );
        check_wrap("short", 10, &["short"]);
        check_wrap("", 10, &[""]);
    }

    #[test]
    fn breaks_long_words_and_counts_wide_characters() {
        check_wrap("abcdefghij", 4, &["abcd", "efgh", "ij"]);
        check_wrap("数据库选择数据", 6, &["数据库", "选择数", "据"]);
        check_wrap("🎉🎉🎉", 4, &["🎉🎉", "🎉"]);
    }

    #[test]
    fn shortens_with_an_ellipsis() {
        assert_eq!(shorten("Service Name", 12), "Service Name");
        assert_eq!(shorten("Service Name", 6), "Servi…");
        assert_eq!(shorten("数据库选择", 5), "数据…");
        assert_eq!(shorten("abc", 0), "");
    }

    #[test]
    fn separates_thousands() {
        assert_eq!(thousands(2847), "2,847");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn agent_text_is_sanitised_line_by_line() {
        assert_eq!(safe_lines("a\u{1b}[2J\nb"), ["a^[[2J", "b"]);
        assert_eq!(safe("a\nb"), "a⏎b");
    }
}
