//! One dialect's value turned into the canonical value, and the problems' paths turned back into
//! the caller's own shape.

use ask_core::{JsonType, Problem, ProblemKind, Problems};
use serde_json::{Map, Value, json};

use crate::parse::{dedup_and_sort, unreachable_problems};

use super::{
    Dialect, IS_OTHER_IGNORED, IS_SECRET_OLDER, TEXT_OPTIONS_IGNORED, Warning,
    YESNO_OPTIONS_IGNORED,
};

/// One dialect's input turned into the canonical value, with the way back for paths.
pub(super) struct Convert {
    dialect: Dialect,
    /// `(canonical path, caller path)`: a canonical path starting with the first is reported
    /// with the second in its place.
    paths: Vec<(String, String)>,
    pub(super) warnings: Vec<Warning>,
    /// Claude Code's `answers`, keyed by question text.
    pub(super) prefill: Map<String, Value>,
    pub(super) modes: Vec<Option<String>>,
    /// Problems of the dialect's own shape, at caller paths.
    pub(super) problems: Vec<Problem>,
}

impl Convert {
    pub(super) fn new(dialect: Dialect) -> Convert {
        Convert {
            dialect,
            problems: Vec::new(),
            paths: Vec::new(),
            warnings: Vec::new(),
            prefill: Map::new(),
            modes: Vec::new(),
        }
    }

    fn warn(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(Warning {
            path: path.into(),
            message: message.into(),
        });
    }

    fn refuse(&mut self, path: impl Into<String>, kind: ProblemKind) {
        self.problems.push(Problem::new(path.into(), kind));
    }

    fn map_path(&mut self, canonical: impl Into<String>, caller: impl Into<String>) {
        self.paths.push((canonical.into(), caller.into()));
    }

    /// The canonical value of the whole input.
    pub(super) fn input(&mut self, input: Value) -> Value {
        if self.dialect.single() {
            return self.single(input);
        }
        match input {
            // A bare list of questions.
            Value::Array(items) if self.dialect == Dialect::Canonical => {
                self.warn(
                    "",
                    "a bare list of questions was read as {\"questions\": [ … ]}; wrap the list in an object",
                );
                self.map_path("/questions", "");
                let questions = self.questions(items, "");
                json!({ "questions": questions })
            }
            Value::Object(object)
                if self.dialect == Dialect::Canonical
                    && !object.contains_key("questions")
                    && object.contains_key("question") =>
            {
                self.warn(
                    "",
                    "a bare question was read as {\"questions\": [ … ]}; put the question in the `questions` list",
                );
                self.map_path("/questions/0", "");
                self.map_path("/questions", "");
                let question = self.question(Value::Object(object), (0, ""));
                json!({ "questions": [question] })
            }
            Value::Object(object) => {
                let mut out = Map::new();
                for (key, value) in object {
                    match (self.dialect, key.as_str(), value) {
                        (_, "questions", Value::Array(items)) => {
                            let questions = self.questions(items, "/questions");
                            out.insert(key, Value::Array(questions));
                        }
                        (Dialect::Canonical, "questions", Value::String(text)) => {
                            match serde_json::from_str::<Value>(&text) {
                                Ok(Value::Array(items)) => {
                                    self.warn(
                                        "/questions",
                                        "the list of questions was given as JSON text and was read as the list itself; give the array, not a string",
                                    );
                                    let questions = self.questions(items, "/questions");
                                    out.insert(key, Value::Array(questions));
                                }
                                _ => {
                                    out.insert(key, Value::String(text));
                                }
                            }
                        }
                        (Dialect::Claude, "answers", Value::Object(answers)) => {
                            for (question, answer) in &answers {
                                if !answer.is_string() {
                                    let at = format!("/answers/{}", escape(question));
                                    self.refuse(at, wrong_type(JsonType::String, answer));
                                }
                            }
                            self.prefill = answers;
                        }
                        (Dialect::Claude, "annotations", Value::Object(annotations)) => {
                            // Claude Code's own record of what the person saw and noted; the
                            // answers this call gets are the person's, so it is only checked.
                            for (question, note) in &annotations {
                                if !note.is_object() {
                                    let at = format!("/annotations/{}", escape(question));
                                    self.refuse(at, wrong_type(JsonType::Object, note));
                                }
                            }
                        }
                        (Dialect::Claude, "answers" | "annotations", other) => {
                            self.refuse(format!("/{key}"), wrong_type(JsonType::Object, &other));
                        }
                        (_, _, value) => {
                            out.insert(key, value);
                        }
                    }
                }
                Value::Object(out)
            }
            other => other,
        }
    }

    fn questions(&mut self, items: Vec<Value>, caller: &str) -> Vec<Value> {
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                let at = format!("{caller}/{i}");
                if caller != "/questions" {
                    self.map_path(format!("/questions/{i}"), at.clone());
                }
                self.question(item, (i, &at))
            })
            .collect()
    }

    /// One question of a `questions` dialect, at `index` in the call; `at` is its caller path.
    fn question(&mut self, item: Value, (index, at): (usize, &str)) -> Value {
        let object = match item {
            Value::Object(object) => object,
            other => return other,
        };
        let typed_text = object.get("type") == Some(&json!("text"));
        let canon = format!("/questions/{index}");
        if self.dialect == Dialect::Codex && !object.contains_key("id") {
            let kind = ProblemKind::MissingField { field: "id".into() };
            self.problems.push(Problem::new(at, kind));
        }
        let mut out = Map::new();
        let mut kind_yesno = false;
        for (key, value) in object {
            let renamed = match (self.dialect, key.as_str()) {
                (Dialect::Canonical, "multi_select") => {
                    self.warn(
                        format!("{at}/multi_select"),
                        "`multi_select` was read as `multiSelect`; write it in camelCase",
                    );
                    Some("multiSelect")
                }
                (Dialect::Codex, "isSecret") => {
                    self.warn(format!("{at}/isSecret"), IS_SECRET_OLDER);
                    Some("secret")
                }
                (Dialect::Codex, "isOther") => {
                    self.warn(format!("{at}/isOther"), IS_OTHER_IGNORED);
                    continue;
                }
                (Dialect::OpenCode, "multiple") => Some("multiSelect"),
                (Dialect::Gemini, "unconstrainedHeight") => continue,
                (Dialect::Gemini, "type") => {
                    let kind = match value.as_str() {
                        Some("yesno") => {
                            kind_yesno = true;
                            json!("yesno")
                        }
                        Some("choice" | "text") => json!("choice"),
                        Some(other) => {
                            let kind = ProblemKind::Schema {
                                keyword: "enum".into(),
                                detail: format!(
                                    "unknown type {}; use \"choice\", \"text\" or \"yesno\"",
                                    Value::String(other.to_string())
                                ),
                            };
                            self.problems.push(Problem::new(format!("{at}/type"), kind));
                            json!("choice")
                        }
                        None => {
                            self.refuse(format!("{at}/type"), wrong_type(JsonType::String, &value));
                            json!("choice")
                        }
                    };
                    self.map_path(format!("{canon}/kind"), format!("{at}/type"));
                    out.insert("kind".into(), kind);
                    continue;
                }
                _ => None,
            };
            if let Some(name) = renamed {
                self.map_path(format!("{canon}/{name}"), format!("{at}/{key}"));
                out.insert(name.into(), value);
                continue;
            }
            if key == "options" {
                let options = self.options(value, (&canon, &format!("{at}/options")));
                out.insert(key, options);
                continue;
            }
            out.insert(key, value);
        }
        if kind_yesno
            && let Some(options) = out.remove("options")
            && options.as_array().is_some_and(|o| !o.is_empty())
        {
            self.warn(format!("{at}/options"), YESNO_OPTIONS_IGNORED);
        }
        if self.dialect == Dialect::Gemini
            && out.get("kind") == Some(&json!("choice"))
            && typed_text
            && let Some(options) = out.remove("options")
            && options.as_array().is_some_and(|o| !o.is_empty())
        {
            self.warn(format!("{at}/options"), TEXT_OPTIONS_IGNORED);
        }
        Value::Object(out)
    }

    /// The options of a question, with plain strings read as labels; `canon` is their canonical
    /// path and `at` their caller path.
    fn options(&mut self, value: Value, (canon, at): (&str, &str)) -> Value {
        let items = match value {
            Value::Array(items) => items,
            other => return other,
        };
        let strings_allowed = matches!(self.dialect, Dialect::Canonical | Dialect::Cline);
        let options = items
            .into_iter()
            .enumerate()
            .map(|(j, item)| match item {
                Value::String(label) if strings_allowed => {
                    if self.dialect == Dialect::Canonical {
                        self.warn(
                            format!("{at}/{j}"),
                            "an option given as a plain string was read as {\"label\": \"…\"}; give each option as an object",
                        );
                    }
                    self.map_path(format!("{canon}/options/{j}/label"), format!("{at}/{j}"));
                    json!({ "label": label })
                }
                other => other,
            })
            .collect();
        Value::Array(options)
    }

    /// Roo Code, Cline and the simplified form: one question at the root.
    fn single(&mut self, input: Value) -> Value {
        let object = match input {
            Value::Object(object) => object,
            other => {
                // The root itself is wrong: reported at the root.
                self.map_path("/questions", "");
                self.map_path("", "");
                return json!({ "questions": other });
            }
        };
        self.map_path("/questions/0/question", "/question");
        self.map_path("/questions/0", "");
        self.map_path("/questions", "");
        let list_key = match self.dialect {
            Dialect::Roo => "follow_up",
            Dialect::Cline => "options",
            _ => "suggestions",
        };
        let allowed: &'static [&'static str] = match self.dialect {
            Dialect::Roo => &["question", "follow_up"],
            Dialect::Cline => &["question", "options"],
            _ => &["question", "suggestions"],
        };
        let mut question = Map::new();
        for (key, value) in object {
            if key == list_key {
                self.map_path("/questions/0/options", format!("/{key}"));
                let options = self.suggestions(value, &key);
                question.insert("options".into(), options);
            } else if key == "question" {
                question.insert(key, value);
            } else {
                let kind = ProblemKind::UnknownField {
                    field: key.clone(),
                    allowed,
                };
                self.problems
                    .push(Problem::new(format!("/{}", escape(&key)), kind));
            }
        }
        json!({ "questions": [Value::Object(question)] })
    }

    /// The suggestions of a one-question dialect as canonical options.
    fn suggestions(&mut self, value: Value, key: &str) -> Value {
        let value = match value {
            // Cline's tool parameter is text holding a JSON array.
            Value::String(text) if self.dialect == Dialect::Cline => {
                match serde_json::from_str::<Value>(&text) {
                    Ok(array @ Value::Array(_)) => array,
                    _ => Value::String(text),
                }
            }
            other => other,
        };
        let Value::Array(items) = value else {
            return value;
        };
        let options = items
            .into_iter()
            .enumerate()
            .map(|(j, item)| match (self.dialect, item) {
                (Dialect::Roo, Value::Object(suggestion)) => {
                    self.map_path(
                        format!("/questions/0/options/{j}/label"),
                        format!("/{key}/{j}/text"),
                    );
                    self.map_path(format!("/questions/0/options/{j}"), format!("/{key}/{j}"));
                    self.modes.push(
                        suggestion
                            .get("mode")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    );
                    let mut option = Map::new();
                    for (field, v) in suggestion {
                        match field.as_str() {
                            "text" => {
                                option.insert("label".into(), v);
                            }
                            "mode" => {}
                            _ => {
                                option.insert(field, v);
                            }
                        }
                    }
                    Value::Object(option)
                }
                (Dialect::Roo, other) => {
                    self.modes.push(None);
                    self.map_path(format!("/questions/0/options/{j}"), format!("/{key}/{j}"));
                    other
                }
                (_, Value::String(label)) => {
                    self.map_path(
                        format!("/questions/0/options/{j}/label"),
                        format!("/{key}/{j}"),
                    );
                    json!({ "label": label })
                }
                (_, other) => {
                    self.refuse(format!("/{key}/{j}"), wrong_type(JsonType::String, &other));
                    json!({ "label": "" })
                }
            })
            .collect();
        Value::Array(options)
    }
    /// The problems of the canonical value, with paths in the caller's shape below `prefix`.
    /// Together with the problems of the dialect's own shape.
    pub(super) fn remap(&self, problems: Vec<Problem>, prefix: &str) -> Problems {
        let list = problems
            .into_iter()
            .map(|p| {
                let kind = match p.kind {
                    // A required field is named as the caller spells it (`text`, not `label`).
                    ProblemKind::MissingField { field } => {
                        let canon = format!("{}/{}", p.path, escape(&field));
                        let caller = caller_path(&self.paths, &canon);
                        let field = match caller.rsplit_once('/') {
                            Some((_, name)) if caller != canon => name.to_string(),
                            _ => field,
                        };
                        ProblemKind::MissingField { field }
                    }
                    ProblemKind::WrongType {
                        expected,
                        found,
                        shape,
                    } => ProblemKind::WrongType {
                        expected,
                        found,
                        shape: self
                            .shape(&p.path)
                            .or(shape.filter(|_| !self.dialect.single())),
                    },
                    kind => kind,
                };
                Problem::new(caller_path(&self.paths, &p.path), kind)
            })
            // A value already refused in the dialect's shape is not refused again as read.
            .filter(|p| !self.problems.iter().any(|own| within(&p.path, &own.path)))
            .map(|p| Problem::new(format!("{prefix}{}", p.path), p.kind))
            .chain(
                self.problems
                    .iter()
                    .map(|p| Problem::new(format!("{prefix}{}", p.path), p.kind.clone())),
            )
            .collect::<Vec<_>>();
        let mut list = list;
        dedup_and_sort(&mut list);
        Problems::from_vec(list).unwrap_or_else(unreachable_problems)
    }
}

impl Convert {
    /// The value expected at a canonical path, written in a one-question dialect's shape.
    fn shape(&self, canonical: &str) -> Option<&'static str> {
        let parts: Vec<&str> = canonical.split('/').skip(1).collect();
        Some(match (self.dialect, parts.as_slice()) {
            (Dialect::Roo, [] | ["questions"] | ["questions", "0"]) => {
                r#"{"question": "…", "follow_up": [{"text": "…"}, …]}"#
            }
            (Dialect::Roo, ["questions", "0", "options"]) => r#"[{"text": "…"}, …]"#,
            (Dialect::Roo, ["questions", "0", "options", _]) => r#"{"text": "…", "mode": null}"#,
            (Dialect::Cline, [] | ["questions"] | ["questions", "0"]) => {
                r#"{"question": "…", "options": ["…", …]}"#
            }
            (Dialect::Simple, [] | ["questions"] | ["questions", "0"]) => {
                r#"{"question": "…", "suggestions": ["…", …]}"#
            }
            (Dialect::Cline | Dialect::Simple, ["questions", "0", "options"]) => r#"["…", …]"#,
            _ => return None,
        })
    }
}

/// The problem of a value of the wrong JSON type where `expected` was.
fn wrong_type(expected: JsonType, found: &Value) -> ProblemKind {
    ProblemKind::WrongType {
        expected,
        found: JsonType::of(found),
        shape: None,
    }
}

/// True when `path` is `parent` or below it.
fn within(path: &str, parent: &str) -> bool {
    path == parent || (path.starts_with(parent) && path[parent.len()..].starts_with('/'))
}

/// A key as a JSON pointer segment.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `path` with the longest matching canonical prefix of `paths` replaced by its caller path.
fn caller_path(paths: &[(String, String)], path: &str) -> String {
    let matching = paths
        .iter()
        .filter(|(canon, _)| within(path, canon))
        .max_by_key(|(canon, _)| canon.len());
    match matching {
        Some((canon, caller)) => format!("{caller}{}", &path[canon.len()..]),
        None => path.to_string(),
    }
}
