//! A check that JSON text repeats no key: `serde_json::Value` keeps the last of two equal keys
//! without a word, so text that is read as a value is checked with this first.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::{self, Write as _};

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

/// `text` read as a JSON value in one pass, refusing a key repeated in one object; `None` when the
/// text is not JSON or repeats a key ([`duplicate_key`] then names the place, and the parser
/// the syntax error). The check costs the reading nothing measurable, unlike a second pass.
///
/// ```
/// assert!(ask_core::unique_value(r#"{"a": [1, {"b": 2}]}"#).is_some());
/// assert!(ask_core::unique_value(r#"{"a": 1, "a": 1}"#).is_none());
/// ```
pub fn unique_value(text: &str) -> Option<serde_json::Value> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Build.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(value)
}

/// Builds a `serde_json::Value`, failing on a repeated key.
struct Build;

impl<'de> DeserializeSeed<'de> for Build {
    type Value = serde_json::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Build)? {
            items.push(item);
        }
        Ok(items.into())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Build)?;
            if object.insert(key, value).is_some() {
                return Err(serde::de::Error::custom("a key repeats"));
            }
        }
        Ok(object.into())
    }
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
            // Writing into a String cannot fail.
            let _ = write!(self.path, "/{index}");
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
        let mut seen = Seen::default();
        // A key without escapes is borrowed from the text.
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let len = self.path.len();
            self.path.push('/');
            if key.contains(['~', '/']) {
                self.path
                    .push_str(&key.replace('~', "~0").replace('/', "~1"));
            } else {
                self.path.push_str(&key);
            }
            map.next_value_seed(Walk {
                path: self.path,
                found: self.found,
            })?;
            self.path.truncate(len);
            if !seen.insert(key.clone()) && self.found.is_none() {
                *self.found = Some((self.path.clone(), key.into_owned()));
            }
        }
        Ok(())
    }
}

/// An object key, borrowed from the text when it holds no escape.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key<'de>, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }

            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }

            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_string())))
            }

            fn visit_string<E>(self, key: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// The keys of one object seen so far: a short list compared in turn (objects of a call have a
/// handful of keys), a hash set past [`Seen::SHORT`] keys, so that the check stays linear for an
/// object of any size.
#[derive(Default)]
struct Seen<'de> {
    short: Vec<Cow<'de, str>>,
    long: HashSet<Cow<'de, str>>,
}

impl<'de> Seen<'de> {
    const SHORT: usize = 16;

    /// Adds `key`; false when it was already there.
    fn insert(&mut self, key: Cow<'de, str>) -> bool {
        if self.long.is_empty() {
            if self.short.contains(&key) {
                return false;
            }
            if self.short.len() < Self::SHORT {
                self.short.push(key);
                return true;
            }
            self.long.extend(self.short.drain(..));
        }
        self.long.insert(key)
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
    fn unique_value_reads_json_and_refuses_repeats() {
        use super::unique_value;
        let text = r#"{"a": [1, -2, 2.5, "x", null, true, {"b": {}}], "\u0062": []}"#;
        assert_eq!(
            unique_value(text),
            Some(serde_json::from_str::<serde_json::Value>(text).unwrap())
        );
        assert_eq!(unique_value(r#"{"a": {"b": 1, "b": 2}}"#), None);
        assert_eq!(unique_value(r#"{"a": 1, "\u0061": 2}"#), None);
        assert_eq!(unique_value("[1] 2"), None);
        assert_eq!(unique_value("{"), None);
    }

    #[test]
    fn a_repeat_past_the_short_list_is_found() {
        let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
        let text = format!("{{{}, \"k3\": 0}}", keys.join(", "));
        check(&text, Some(("", "k3")));
        let text = format!("{{{}, \"k39\": 0}}", keys.join(", "));
        check(&text, Some(("", "k39")));
        check(&format!("{{{}}}", keys.join(", ")), None);
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
