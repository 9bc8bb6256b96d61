//! JSON for a stream a terminal may show: every character that [`classify`] marks unsafe to
//! display (C1 controls, DEL, bidi controls, invisible and tag characters, line separators) is
//! written as a `\uXXXX` escape, so a JSON reader gets the same string and a terminal gets no
//! control. serde_json escapes only the C0 controls and leaves the rest raw.
//!
//! Every JSON document and protocol frame that ask-user writes to stdout goes through here:
//! [`to_string`] and [`to_string_pretty`] for a value, [`escape_text`] for JSON text another
//! library wrote (a rendered result, an RPC line, an MCP message).
//!
//! ```
//! let text = ask_core::safe_json::to_string(&["evil\u{202e}txt", "\u{9b}2J"]).unwrap();
//! assert_eq!(text, r#"["evil\u202etxt","\u009b2J"]"#);
//! let back: Vec<String> = serde_json::from_str(&text).unwrap();
//! assert_eq!(back, ["evil\u{202e}txt", "\u{9b}2J"]);
//! ```

use std::borrow::Cow;
use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

use crate::display::{CharClass, classify};

/// True for a character written as a `\uXXXX` escape: one that [`classify`] marks as a control
/// or invisible character, except the JSON whitespace between tokens (tab, line feed, carriage
/// return), which serde_json already escapes inside a string.
pub fn escapes(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r')
        && matches!(classify(c), CharClass::Control | CharClass::Invisible)
}

/// `json`, JSON text, with every character that [`escapes`] written as a `\uXXXX` escape (two,
/// a surrogate pair, above U+FFFF). Such a character can only stand inside a string of valid
/// JSON, where the escape reads back as the same character, so the text means what it meant.
/// Escaping twice changes nothing.
///
/// ```
/// use ask_core::safe_json::escape_text;
/// assert_eq!(escape_text("{\"a\":\"x\u{7f}\u{e0041}\"}\n"), "{\"a\":\"x\\u007f\\udb40\\udc41\"}\n");
/// assert_eq!(escape_text("{\"a\": \"plain, 東京\"}"), "{\"a\": \"plain, 東京\"}");
/// ```
pub fn escape_text(json: &str) -> Cow<'_, str> {
    // Printable ASCII and the JSON whitespace, the common case, take no look at characters.
    let plain = |b: &u8| matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r');
    if json.as_bytes().iter().all(plain) || !json.chars().any(escapes) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if escapes(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `value` as compact JSON, with the characters that [`escapes`] escaped.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    write(value, Escaping(CompactFormatter))
}

/// `value` as pretty JSON (two spaces), with the characters that [`escapes`] escaped.
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    write(value, Escaping(PrettyFormatter::new()))
}

fn write<T: Serialize + ?Sized, F: Formatter>(
    value: &T,
    formatter: Escaping<F>,
) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(128);
    value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut out, formatter,
    ))?;
    // serde_json writes only whole characters.
    String::from_utf8(out).map_err(|e| serde_json::Error::io(io::Error::other(e)))
}

/// A serde_json [`Formatter`] that writes the characters that [`escapes`] as `\uXXXX` escapes,
/// and lays out the rest as `F` does.
#[derive(Debug, Clone, Default)]
pub struct Escaping<F>(pub F);

impl<F: Formatter> Formatter for Escaping<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        writer.write_all(escape_text(fragment).as_bytes())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn end_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_key(writer)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// One character of each kind a terminal would obey or hide, as a person's answer may hold.
    const UNSAFE: [char; 9] = [
        '\u{9b}',
        '\u{7f}',
        '\u{85}',
        '\u{202e}',
        '\u{2066}',
        '\u{200b}',
        '\u{feff}',
        '\u{e0041}',
        '\u{2028}',
    ];

    fn answer() -> Value {
        let text: String = UNSAFE.iter().flat_map(|c| ['a', *c]).collect();
        json!({"answers": [{"question": "Name?", "answer": text, "notes": ["\u{1b}[2J", "👩\u{200d}💻"]}]})
    }

    #[track_caller]
    fn check_escaped(text: &str) {
        for c in UNSAFE.into_iter().chain(['\u{1b}', '\u{200d}']) {
            assert!(!text.contains(c), "{c:?} is raw in {text}");
        }
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), answer());
    }

    #[test]
    fn every_unsafe_character_is_escaped_and_reads_back_the_same() {
        check_escaped(&to_string(&answer()).unwrap());
        check_escaped(&to_string_pretty(&answer()).unwrap());
        check_escaped(&escape_text(&serde_json::to_string(&answer()).unwrap()));
        check_escaped(&escape_text(
            &serde_json::to_string_pretty(&answer()).unwrap(),
        ));
    }

    #[test]
    fn the_formatter_and_the_text_pass_agree_and_keep_the_layout() {
        for text in [
            serde_json::to_string(&answer()).unwrap(),
            serde_json::to_string_pretty(&answer()).unwrap(),
        ] {
            let escaped = escape_text(&text);
            assert_eq!(
                escape_text(&escaped),
                escaped,
                "escaping twice changes nothing"
            );
        }
        assert_eq!(
            to_string(&answer()).unwrap(),
            escape_text(&serde_json::to_string(&answer()).unwrap())
        );
        assert_eq!(
            to_string_pretty(&answer()).unwrap(),
            escape_text(&serde_json::to_string_pretty(&answer()).unwrap())
        );
        assert!(
            to_string_pretty(&answer())
                .unwrap()
                .contains("\n  \"answers\": [\n")
        );
    }

    #[test]
    fn each_character_is_written_as_its_escape() {
        for (c, escaped) in [
            ('\u{9b}', r"\u009b"),
            ('\u{7f}', r"\u007f"),
            ('\u{202e}', r"\u202e"),
            ('\u{200b}', r"\u200b"),
            ('\u{e0041}', r"\udb40\udc41"),
            ('\u{2029}', r"\u2029"),
        ] {
            assert_eq!(to_string(&c.to_string()).unwrap(), format!("\"{escaped}\""));
        }
        // Printable text, emoji and other scripts are left as they are.
        for plain in ["é東京Москва🙂", "tab\tline\nend"] {
            assert_eq!(
                to_string(plain).unwrap(),
                serde_json::to_string(plain).unwrap()
            );
        }
    }
}
