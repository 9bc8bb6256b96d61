//! Width-aware text helpers: wrapping, shortening with `…`, and agent text made safe to show.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The display width of `text` in terminal columns.
pub(crate) fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// Agent text as display lines: split on `'\n'` first, then each line sanitised.
pub(crate) fn safe_lines(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|line| ask_core::sanitize_for_display(line).into_owned())
        .collect()
}

/// Agent text as one display line (a line feed shows as `⏎`).
pub(crate) fn safe(text: &str) -> Cow<'_, str> {
    ask_core::sanitize_for_display(text)
}

/// Shortens `text` to at most `max` columns, ending it with `…` when something was cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
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
/// only when the word alone is too wide. Between characters of scripts written without spaces
/// (Chinese, Japanese) any break is allowed, except that closing punctuation ("。", "？", "）",
/// ".") never starts a line and opening punctuation ("（", "(") never ends one: the character
/// next to it moves along. Always returns at least one line.
pub(crate) fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    // Where each piece of `line` starts, so that a break can carry the last ones along.
    let mut starts: Vec<usize> = Vec::new();
    for word in text.split_word_bounds() {
        let w = width(word);
        if used + w <= max {
            starts.push(line.len());
            line.push_str(word);
            used += w;
            continue;
        }
        if word.trim().is_empty() {
            // A space at a break point is dropped.
            lines.push(std::mem::take(&mut line));
            used = 0;
            starts.clear();
            continue;
        }
        if used > 0 && w <= max {
            let from = carry_from(&line, &starts, word).filter(|&at| width(&line[at..]) + w <= max);
            let carried = from.map_or_else(String::new, |at| line.split_off(at));
            lines.push(std::mem::take(&mut line).trim_end().to_string());
            starts.clear();
            line = carried;
            if !line.is_empty() {
                starts.push(0);
            }
            starts.push(line.len());
            line.push_str(word);
            used = width(&line);
            continue;
        }
        for grapheme in word.graphemes(true) {
            let gw = width(grapheme);
            if used + gw > max && used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
                starts.clear();
            }
            starts.push(line.len());
            line.push_str(grapheme);
            used += gw;
        }
    }
    lines.push(line);
    lines
}

/// Where the pieces of `line` that must go to the next line with `next` start: before
/// `next`, a closing mark, the closing marks at the line's end and the piece they follow; at
/// the line's end, opening marks. `None` when nothing must move, or everything would.
fn carry_from(line: &str, starts: &[usize], next: &str) -> Option<usize> {
    let piece = |i: usize| &line[starts[i]..starts.get(i + 1).copied().unwrap_or(line.len())];
    let mut i = starts.len().checked_sub(1)?;
    if closes(next) {
        while i > 0 && closes(piece(i)) {
            i -= 1;
        }
    } else if opens(piece(i)) {
        while i > 0 && opens(piece(i - 1)) {
            i -= 1;
        }
    } else {
        return None;
    }
    (i > 0 && !piece(i).trim().is_empty()).then(|| starts[i])
}

/// True for punctuation that must not start a line.
fn closes(piece: &str) -> bool {
    piece.chars().all(|c| {
        matches!(
            c,
            '.' | ','
                | ';'
                | ':'
                | '!'
                | '?'
                | ')'
                | ']'
                | '}'
                | '…'
                | '。'
                | '、'
                | '，'
                | '．'
                | '！'
                | '？'
                | '：'
                | '；'
                | '）'
                | '」'
                | '』'
                | '】'
                | '〕'
                | '》'
                | '〉'
                | '｝'
        )
    })
}

/// True for punctuation that must not end a line.
fn opens(piece: &str) -> bool {
    piece.chars().all(|c| {
        matches!(
            c,
            '(' | '[' | '{' | '¿' | '¡' | '（' | '「' | '『' | '【' | '〔' | '《' | '〈' | '｛'
        )
    })
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
    fn punctuation_stays_with_its_word() {
        // Closing punctuation takes the character before it to the next line.
        check_wrap("仍要继续吗？[Y/n]", 10, &["仍要继续", "吗？[Y/n]"]);
        check_wrap("件です。次", 6, &["件で", "す。次"]);
        // Opening punctuation goes to the next line with the character after it.
        check_wrap("回答较长（2,847", 12, &["回答较长", "（2,847"]);
        check_wrap("long (2,847 chars)", 6, &["long", "(2,847", "chars)"]);
        // Marks in a row move with the word before them.
        check_wrap(
            "long (2.847 Zeichen). Weiter",
            20,
            &["long (2.847", "Zeichen). Weiter"],
        );
        check_wrap("长（2,847 文字）。次", 14, &["长（2,847 文", "字）。次"]);
        // Nothing is carried when it would not fit either.
        check_wrap("abcdef.", 6, &["abcdef", "."]);
    }

    #[test]
    fn shortens_with_an_ellipsis() {
        assert_eq!(shorten("Service Name", 12), "Service Name");
        assert_eq!(shorten("Service Name", 6), "Servi…");
        assert_eq!(shorten("数据库选择", 5), "数据…");
        assert_eq!(shorten("abc", 0), "");
    }

    #[test]
    fn agent_text_is_sanitised_line_by_line() {
        assert_eq!(safe_lines("a\u{1b}[2J\nb"), ["a^[[2J", "b"]);
        assert_eq!(safe("a\nb"), "a⏎b");
    }
}
