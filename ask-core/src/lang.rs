//! The languages of the UI: one table of every string the terminal UI shows per language
//! ([`Lang::text`]), one of every string the web page shows ([`Lang::page`]), and the choice of
//! a language from a flag, the locale or a browser's `Accept-Language`.
//!
//! Only the UI's own words are translated. What the model asked is shown as it was asked, and
//! what goes back to the model (answers, results, the yes/no answers "Yes" and "No") never
//! depends on the language.
//!
//! The terminal UI's tables live in `lang/text.rs`, the web page's in `lang/page.rs`; this
//! module chooses the language.

mod page;
mod text;

pub use page::PageText;
pub use text::{Counted, Help, Text, fill};

/// A language of the terminal UI and the web page. English is the default and the fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// German.
    De,
    /// Spanish.
    Es,
    /// French.
    Fr,
    /// Japanese.
    Ja,
    /// Simplified Chinese.
    Zh,
}

impl Lang {
    /// Every shipped language, English first.
    pub const ALL: [Lang; 6] = [Lang::En, Lang::De, Lang::Es, Lang::Fr, Lang::Ja, Lang::Zh];

    /// The language's ISO 639-1 code, as `--lang` takes it: `en`, `de`, `es`, `fr`, `ja`, `zh`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Es => "es",
            Lang::Fr => "fr",
            Lang::Ja => "ja",
            Lang::Zh => "zh",
        }
    }

    /// The language of a language tag or POSIX locale name (`de`, `de_DE.UTF-8`,
    /// `fr-CA`, `zh_CN.GB18030`, `ja_JP@euro`), by its language part, ignoring case; `C` and
    /// `POSIX` are English. `None` for a language this UI does not ship.
    ///
    /// ```
    /// use ask_core::lang::Lang;
    /// assert_eq!(Lang::from_tag("de_DE.UTF-8"), Some(Lang::De));
    /// assert_eq!(Lang::from_tag("C.UTF-8"), Some(Lang::En));
    /// assert_eq!(Lang::from_tag("pt_BR"), None);
    /// ```
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let language = tag
            .split(['_', '-', '.', '@'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        match language.as_str() {
            "en" | "c" | "posix" => Some(Lang::En),
            "de" => Some(Lang::De),
            "es" => Some(Lang::Es),
            "fr" => Some(Lang::Fr),
            "ja" => Some(Lang::Ja),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The language of the locale, as POSIX chooses the locale of messages: the first of
    /// `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty decides, and a language
    /// this UI does not ship (or no locale at all) gives English. `var` reads a variable.
    ///
    /// ```
    /// use ask_core::lang::Lang;
    /// let env = |name: &str| match name {
    ///     "LC_ALL" => Some(String::new()),
    ///     "LC_MESSAGES" => Some("fr_FR.UTF-8".to_string()),
    ///     "LANG" => Some("de_DE.UTF-8".to_string()),
    ///     _ => None,
    /// };
    /// assert_eq!(Lang::from_locale(env), Lang::Fr);
    /// ```
    pub fn from_locale(var: impl Fn(&str) -> Option<String>) -> Lang {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .filter_map(var)
            .find(|value| !value.is_empty())
            .and_then(|value| Lang::from_tag(&value))
            .unwrap_or_default()
    }

    /// The language a browser prefers among the shipped ones, from its `Accept-Language`
    /// header: the tags in the order of their quality (`q`, 1 when not given; tags of equal
    /// quality in the order sent), the first shipped one deciding. A tag of quality 0, a
    /// malformed quality and `*` name nothing. `None` when no tag names a shipped language.
    ///
    /// ```
    /// use ask_core::lang::Lang;
    /// assert_eq!(Lang::from_accept_language("pt-BR, fr;q=0.5, de;q=0.8"), Some(Lang::De));
    /// assert_eq!(Lang::from_accept_language("nl, *;q=0.1"), None);
    /// ```
    pub fn from_accept_language(header: &str) -> Option<Lang> {
        let mut tags: Vec<(u16, Lang)> = header
            .split(',')
            .filter_map(|item| {
                let mut parts = item.split(';').map(str::trim);
                let tag = parts.next().filter(|tag| !tag.is_empty() && *tag != "*")?;
                let mut quality = 1000;
                for parameter in parts {
                    let Some((name, value)) = parameter.split_once('=') else {
                        continue;
                    };
                    if name.trim().eq_ignore_ascii_case("q") {
                        quality = thousandths(value.trim())?;
                    }
                }
                // Only the language part counts: `de-CH` is German, `zh-Hans` Chinese.
                let lang = Lang::from_tag(tag)?;
                (quality > 0).then_some((quality, lang))
            })
            .collect();
        // A stable sort keeps the order sent among tags of equal quality.
        tags.sort_by_key(|(quality, _)| std::cmp::Reverse(*quality));
        tags.first().map(|(_, lang)| *lang)
    }

    /// Every string the web page shows, in this language.
    pub fn page(self) -> &'static PageText {
        match self {
            Lang::En => &page::EN,
            Lang::De => &page::DE,
            Lang::Es => &page::ES,
            Lang::Fr => &page::FR,
            Lang::Ja => &page::JA,
            Lang::Zh => &page::ZH,
        }
    }

    /// Every string the UI shows, in this language.
    pub fn text(self) -> &'static Text {
        match self {
            Lang::En => &text::EN,
            Lang::De => &text::DE,
            Lang::Es => &text::ES,
            Lang::Fr => &text::FR,
            Lang::Ja => &text::JA,
            Lang::Zh => &text::ZH,
        }
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// A tag that names no language the terminal UI speaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown language {tag:?}; the terminal UI speaks {}", lang_codes())]
pub struct UnknownLang {
    /// The tag given.
    pub tag: String,
}

/// The codes of [`Lang::ALL`], comma-separated.
fn lang_codes() -> String {
    let codes: Vec<&str> = Lang::ALL.iter().map(|lang| lang.code()).collect();
    codes.join(", ")
}

impl std::str::FromStr for Lang {
    type Err = UnknownLang;

    /// A language by its code or a locale name (see [`Lang::from_tag`]).
    fn from_str(tag: &str) -> Result<Lang, UnknownLang> {
        Lang::from_tag(tag).ok_or_else(|| UnknownLang {
            tag: tag.to_string(),
        })
    }
}

/// A quality value of `Accept-Language` (`0`, `0.5`, `1.000`: at most three decimals, at most
/// 1) in thousandths; `None` when it is not one.
fn thousandths(value: &str) -> Option<u16> {
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !matches!(whole, "0" | "1") || fraction.len() > 3 || !digits(fraction) {
        return None;
    }
    let fraction: u16 = format!("{fraction:0<3}").parse().ok()?;
    let value = if whole == "1" { 1000 } else { 0 } + fraction;
    (value <= 1000).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_name_their_language() {
        for lang in Lang::ALL {
            assert_eq!(Lang::from_tag(lang.code()), Some(lang));
            assert_eq!(lang.code().parse::<Lang>(), Ok(lang));
        }
        assert_eq!(Lang::from_tag("DE_at.utf8"), Some(Lang::De));
        assert_eq!(Lang::from_tag("zh-Hans"), Some(Lang::Zh));
        assert_eq!(Lang::from_tag("ja_JP.eucJP@cjk"), Some(Lang::Ja));
        assert_eq!(Lang::from_tag("POSIX"), Some(Lang::En));
        assert_eq!(Lang::from_tag(""), None);
        assert_eq!(Lang::from_tag("nl_NL.UTF-8"), None);
        let error = "pt".parse::<Lang>().unwrap_err().to_string();
        assert!(error.contains("\"pt\"") && error.contains("en, de, es, fr, ja, zh"));
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_string())
        }
    }

    #[test]
    fn the_locale_is_read_as_posix_does() {
        // The first non-empty variable decides, even when it names an unshipped language.
        let cases: [(&[(&str, &str)], Lang); 7] = [
            (&[], Lang::En),
            (&[("LANG", "ja_JP.UTF-8")], Lang::Ja),
            (&[("LC_MESSAGES", "es_ES"), ("LANG", "ja_JP")], Lang::Es),
            (
                &[
                    ("LC_ALL", "fr_FR"),
                    ("LC_MESSAGES", "es_ES"),
                    ("LANG", "ja_JP"),
                ],
                Lang::Fr,
            ),
            (
                &[("LC_ALL", ""), ("LC_MESSAGES", ""), ("LANG", "de_DE")],
                Lang::De,
            ),
            (&[("LC_ALL", "pt_BR.UTF-8"), ("LANG", "de_DE")], Lang::En),
            (&[("LC_ALL", "C"), ("LANG", "zh_CN.UTF-8")], Lang::En),
        ];
        for (vars, expected) in cases {
            assert_eq!(Lang::from_locale(env(vars)), expected, "{vars:?}");
        }
    }

    #[test]
    fn accept_language_picks_the_best_shipped_language() {
        let cases = [
            ("de", Some(Lang::De)),
            ("de-CH,de;q=0.9,en;q=0.8", Some(Lang::De)),
            ("en-US,en;q=0.9,ja;q=0.8", Some(Lang::En)),
            // Quality first, then the order sent; unshipped languages are skipped.
            ("pt-BR,pt;q=0.9,fr;q=0.7,es;q=0.8", Some(Lang::Es)),
            ("fr;q=0.5, zh-Hans-CN", Some(Lang::Zh)),
            ("ja;q=0.8, de;q=0.8", Some(Lang::Ja)),
            ("  JA-jp ; Q=1.0 ", Some(Lang::Ja)),
            // Quality 0 refuses a language; a malformed quality names nothing.
            ("de;q=0, fr;q=0.001", Some(Lang::Fr)),
            ("de;q=2, es;q=0.5", Some(Lang::Es)),
            ("de;q=0.5x, es;q=1.0001, fr;q=.5", None),
            ("*", None),
            ("nl, pt;q=0.9, *;q=0.1", None),
            ("", None),
            (",;,", None),
        ];
        for (header, expected) in cases {
            assert_eq!(Lang::from_accept_language(header), expected, "{header:?}");
        }
    }

    /// The `{name}` placeholders of a template.
    fn placeholders(template: &str) -> std::collections::BTreeSet<&str> {
        template
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
            .collect()
    }

    #[test]
    fn every_page_table_is_complete_and_keeps_the_placeholders() {
        use serde_json::Value;
        let english = serde_json::to_value(Lang::En.page()).unwrap();
        let english = english.as_object().unwrap();
        for lang in Lang::ALL {
            let table = serde_json::to_value(lang.page()).unwrap();
            let table = table.as_object().unwrap();
            assert_eq!(table.len(), english.len(), "{lang}");
            for (field, value) in table {
                let expected = &english[field];
                // A text with a count: the form for many holds the English placeholders, the
                // form for one no others.
                let (texts, many) = match (value, expected) {
                    (Value::String(text), Value::String(english)) => {
                        (vec![text.as_str()], english.as_str())
                    }
                    (Value::Object(forms), Value::Object(english)) => (
                        vec![
                            forms["one"].as_str().unwrap(),
                            forms["many"].as_str().unwrap(),
                        ],
                        english["many"].as_str().unwrap(),
                    ),
                    other => panic!("{lang} {field}: {other:?}"),
                };
                for text in &texts {
                    // A space (French) separates thousands; any other text is words.
                    let empty = if field == "thousandsSeparator" {
                        text.is_empty()
                    } else {
                        text.trim().is_empty()
                    };
                    assert!(!empty, "{lang}: {field} is empty");
                    assert!(
                        placeholders(text).is_subset(&placeholders(many)),
                        "{lang} {field}: {text}"
                    );
                }
                let last = texts.last().unwrap();
                assert_eq!(
                    placeholders(last),
                    placeholders(many),
                    "{lang} {field}: {last}"
                );
            }
            // The page names "Other" as the terminal UI does, whose words validation refuses as
            // an option label.
            assert_eq!(lang.page().other, lang.text().other, "{lang}");
        }
    }
}
