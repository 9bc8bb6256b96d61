//! A check that JSON text repeats no key: `serde_json::Value` keeps the last of two equal keys
//! without a word, so text that is read as a value is checked with this first.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The first key that appears twice in one object of `text`, as (the JSON pointer of the
/// object, the key); `None` when no key repeats or the text is not JSON (the parser that reads
/// it then reports that). One pass, linear in the length of the text.
///
/// ```
/// assert_eq!(
///     ask_core::duplicate_key(r#"{"a": [{"b": 1, "b": 2}]}"#),
///     Some(("/a/0".to_string(), "b".to_string()))
/// );
/// assert_eq!(ask_core::duplicate_key(r#"{"a": {"b": 1}, "b": 2}"#), None);
/// ```
pub fn duplicate_key(text: &str) -> Option<(String, String)> {
    let mut path = String::new();
    let mut found = None;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let seed = Walk {
        path: &mut path,
        found: &mut found,
    };
    // Invalid JSON is not this check's to report.
    let _ = seed.deserialize(&mut deserializer);
    found
}

struct Walk<'a> {
    path: &'a mut String,
    found: &'a mut Option<(String, String)>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        loop {
            let len = self.path.len();
            self.path.push('/');
            self.path.push_str(&index.to_string());
            let next = seq.next_element_seed(Walk {
                path: self.path,
                found: self.found,
            });
            self.path.truncate(len);
            if next?.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen: HashSet<String> = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let len = self.path.len();
            self.path.push('/');
            self.path
                .push_str(&key.replace('~', "~0").replace('/', "~1"));
            map.next_value_seed(Walk {
                path: self.path,
                found: self.found,
            })?;
            self.path.truncate(len);
            if !seen.contains(&key) {
                seen.insert(key);
            } else if self.found.is_none() {
                *self.found = Some((self.path.clone(), key));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::duplicate_key;

    #[track_caller]
    fn check(text: &str, expected: Option<(&str, &str)>) {
        let found = duplicate_key(text);
        let found = found.as_ref().map(|(p, k)| (p.as_str(), k.as_str()));
        assert_eq!(found, expected);
    }

    #[test]
    fn repeated_keys_are_found_where_they_are() {
        check(r#"{"a": 1, "a": 2}"#, Some(("", "a")));
        check(
            r#"{"x": [1, {"y": {"k": 1, "k": 2}}]}"#,
            Some(("/x/1/y", "k")),
        );
        check(r#"{"a/b": {"c~": 1, "c~": 1}}"#, Some(("/a~1b", "c~")));
        // The first repeat in document order.
        check(
            r#"{"p": {"a": 1, "a": 2}, "q": 1, "q": 2}"#,
            Some(("/p", "a")),
        );
    }

    #[test]
    fn distinct_keys_and_other_text_pass() {
        check(r#"{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}"#, None);
        check(r#"[1, "two", null, true, 2.5, -3]"#, None);
        check("not json", None);
        check(r#""\u0061" "#, None);
        // Escapes are compared as the text they stand for.
        check(r#"{"a": 1, "\u0061": 2}"#, Some(("", "a")));
    }
}
