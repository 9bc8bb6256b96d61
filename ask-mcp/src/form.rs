//! The elicitation form of one call: its fields for the client that draws it, the schema with
//! the answers so far as defaults, and the answers read back from a reply. What a reply does to
//! the call (another round, the end, or the next presenter) is the stepper's, in `rounds`.

use ask_core::{Answer, AnswerValue, Question};
use rmcp::model::{ElicitRequestParams, ElicitationSchema};
use serde_json::{Map, Value, json};

/// The clients (by `clientInfo.name`) known to draw a multi-select question as one field, a
/// list of choices (the array-of-enum form of the 2025-11-25 protocol). Every other client gets
/// a check box (a boolean field) per option, which every form can draw: interactive Codex draws
/// no form at all for a field it does not know.
pub(crate) const LIST_DRAWING_CLIENTS: [&str; 1] = ["claude-code"];

/// The clients (by `clientInfo.name`) that submit a form only from its last field and take Enter
/// in an empty text field as nothing (interactive Codex): their forms end on a choice.
pub(crate) const LAST_FIELD_CLIENTS: [&str; 1] = ["codex-mcp-client"];

/// The elicitation form for a call: one field per question (for a multi-select question, one
/// boolean field per option, unless the client draws a list of choices), plus an optional
/// "Other" text field for each question with options. A multi-select question also has a
/// "None of these" boolean field: ticked, with no option ticked and nothing typed, it answers the
/// question with none of its options; an option ticked or an answer typed beside it wins, and the
/// field says so. No field but a free-text question's is required, so a form submits from any
/// field.
#[derive(Debug)]
pub(crate) struct Form<'a> {
    questions: &'a [Question],
    /// The client draws a multi-select question as a list of choices.
    lists: bool,
    /// The client submits a form only from its last field and takes Enter in an empty text
    /// field as nothing (interactive Codex): the form ends on a choice, not on an "Other".
    ends_on_choice: bool,
}

impl<'a> Form<'a> {
    #[cfg(test)]
    pub(crate) fn new(questions: &'a [Question]) -> Form<'a> {
        Form {
            questions,
            lists: false,
            ends_on_choice: false,
        }
    }

    /// The form for the client named `client` (its `clientInfo.name`).
    pub(crate) fn for_client(questions: &'a [Question], client: Option<&str>) -> Form<'a> {
        Form {
            questions,
            lists: client.is_some_and(|name| LIST_DRAWING_CLIENTS.contains(&name)),
            ends_on_choice: client.is_some_and(|name| LAST_FIELD_CLIENTS.contains(&name)),
        }
    }

    /// True when question `question` is drawn as a check box per option.
    fn boxes(&self, question: &Question) -> bool {
        question.multi_select && !self.lists
    }

    /// The field of question `index` (counted from 0). In the layout that ends on a choice,
    /// the last question's is `qN_pick`, which sorts after its `qN_other`: clients see the
    /// fields in the order of their names (the wire keeps no other order).
    fn key(&self, index: usize) -> String {
        if self.ends_on_choice && index + 1 == self.questions.len() {
            format!("q{}_pick", index + 1)
        } else {
            format!("q{}", index + 1)
        }
    }

    /// The check box of option `option` of question `index` (both counted from 0), numbered
    /// with as many digits as the last option needs, so that the names sort in option order.
    fn box_key(&self, index: usize, option: usize) -> String {
        let count = self.questions.get(index).map_or(0, |q| q.options().len());
        let width = count.to_string().len();
        format!("{}_{:0width$}", self.key(index), option + 1)
    }

    /// The "Other" field of question `index`.
    fn other_key(&self, index: usize) -> String {
        format!("q{}_other", index + 1)
    }

    /// The "None of these" field of the multi-select question `index`, which sorts after its
    /// choices and, but in the layout that ends on a choice, before its "Other".
    fn none_key(&self, index: usize) -> String {
        format!("{}_none", self.key(index))
    }

    /// The field names in the order the person reads them: each question's choices, then its
    /// "Other" field; in the layout that ends on a choice, the last question's "Other" comes
    /// before its choices. The names sort in this order, which is the order clients show.
    fn order(&self) -> Vec<String> {
        let mut order = Vec::new();
        let last = self.questions.len().saturating_sub(1);
        for (index, question) in self.questions.iter().enumerate() {
            let other_first = self.ends_on_choice && index == last && !question.is_free_text();
            if other_first {
                order.push(self.other_key(index));
            }
            if self.boxes(question) {
                order.extend((0..question.options().len()).map(|at| self.box_key(index, at)));
            } else {
                order.push(self.key(index));
            }
            if question.multi_select {
                order.push(self.none_key(index));
            }
            if !question.is_free_text() && !other_first {
                order.push(self.other_key(index));
            }
        }
        order
    }

    /// The fields a reply is read from: those of the form, and the list of choices of a
    /// multi-select question drawn as check boxes, for a client that answers with a list anyway.
    pub(crate) fn reply_keys(&self) -> Vec<String> {
        let mut keys = self.order();
        for (index, question) in self.questions.iter().enumerate() {
            if self.boxes(question) {
                keys.push(self.key(index));
            }
        }
        keys
    }

    /// The requested schema: a flat object of primitive fields, as elicitation requires, with
    /// the answers in `given` as the fields' defaults.
    pub(crate) fn schema(&self, given: &Map<String, Value>) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (index, question) in self.questions.iter().enumerate() {
            let title = question
                .header
                .clone()
                .unwrap_or_else(|| format!("Question {}", index + 1));
            let answer = self.read_one(index, &Value::Object(given.clone()));
            let (default, other_default) = defaults(answer.as_ref());
            if question.is_free_text() {
                let mut field =
                    json!({"type": "string", "title": title, "description": question.question});
                if let Some(text) = other_default {
                    field["default"] = Value::String(text);
                }
                properties.insert(self.key(index), field);
                required.push(Value::String(self.key(index)));
                continue;
            }
            let choices: Vec<Value> = question
                .options()
                .iter()
                .map(|option| {
                    let title = match &option.description {
                        Some(description) => format!("{} — {description}", option.label),
                        None => option.label.clone(),
                    };
                    json!({"const": option.label, "title": title})
                })
                .collect();
            let mut field = if self.boxes(question) {
                let chosen = default.as_ref().and_then(Value::as_array);
                for (at, option) in question.options().iter().enumerate() {
                    let ticked = chosen.is_some_and(|labels| {
                        labels
                            .iter()
                            .any(|label| label.as_str() == Some(&option.label))
                    });
                    let description = match &option.description {
                        Some(description) => format!("{} — {description}", question.question),
                        None => question.question.clone(),
                    };
                    properties.insert(
                        self.box_key(index, at),
                        json!({"type": "boolean", "title": format!("{title}: {}", option.label),
                               "description": description, "default": ticked}),
                    );
                }
                Value::Null
            } else if question.multi_select {
                json!({"type": "array", "title": title, "description": question.question,
                       "items": {"anyOf": choices}})
            } else {
                json!({"type": "string", "title": title, "description": question.question,
                       "oneOf": choices})
            };
            if !field.is_null() {
                if let Some(default) = default {
                    field["default"] = default;
                }
                properties.insert(self.key(index), field);
            }
            let mut other = if question.multi_select {
                let none = answer.as_ref().is_some_and(|a| a.answer.is_none_of_these());
                properties.insert(
                    self.none_key(index),
                    json!({"type": "boolean", "title": format!("{title}: None of these"),
                           "description": format!(
                               "Tick to answer with none of the options (an option ticked or \
                                an answer typed counts instead): {}", question.question),
                           "default": none}),
                );
                json!({"type": "string",
                    "title": format!("{title}: Other (added to your picks)"),
                    "description": format!("Type an answer of your own; it is added to the \
                                            options you pick: {}", question.question)})
            } else {
                json!({"type": "string",
                    "title": format!("{title}: Other (type your answer)"),
                    "description": format!("Type your own answer instead of choosing: {}",
                                           question.question)})
            };
            if let Some(text) = other_default {
                other["default"] = Value::String(text);
            }
            properties.insert(self.other_key(index), other);
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema
    }

    /// The elicitation request showing this form under `message`.
    pub(crate) fn request(
        &self,
        message: String,
        given: &Map<String, Value>,
    ) -> Result<ElicitRequestParams, serde_json::Error> {
        let mut schema: ElicitationSchema = serde_json::from_value(self.schema(given))?;
        schema.property_order = Some(self.order());
        Ok(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        })
    }

    /// The message shown above the first form.
    pub(crate) fn message(&self) -> String {
        match self.questions {
            [one] => one.question.clone(),
            many => format!("Please answer these {} questions.", many.len()),
        }
    }

    /// The message when the form came back with questions left unanswered.
    pub(crate) fn again(&self, missing: &[usize]) -> String {
        let list: Vec<String> = missing
            .iter()
            .filter_map(|index| self.questions.get(*index))
            .map(|question| format!("\"{}\"", question.question))
            .collect();
        let multi = missing
            .iter()
            .any(|index| self.questions.get(*index).is_some_and(|q| q.multi_select));
        let or_none = if multi {
            " (or tick \"None of these\")"
        } else {
            ""
        };
        format!(
            "Please answer every question; choose an option{or_none} or type an answer for: {}",
            list.join(", ")
        )
    }

    /// The questions still open in `given`.
    pub(crate) fn missing(&self, given: &Map<String, Value>) -> Vec<usize> {
        self.read(&Value::Object(given.clone()))
            .err()
            .unwrap_or_default()
    }

    /// The answers in a form, or the indices of the questions left unanswered.
    pub(crate) fn read(&self, content: &Value) -> Result<Vec<Answer>, Vec<usize>> {
        let mut answers = Vec::new();
        let mut missing = Vec::new();
        for index in 0..self.questions.len() {
            match self.read_one(index, content) {
                Some(answer) => answers.push(answer),
                None => missing.push(index),
            }
        }
        if missing.is_empty() {
            Ok(answers)
        } else {
            Err(missing)
        }
    }

    /// The answers in a form, question by question, `None` where a question is open.
    pub(crate) fn partial(&self, content: &Value) -> Vec<Option<Answer>> {
        self.questions
            .iter()
            .enumerate()
            .map(|(index, _)| self.read_one(index, content))
            .collect()
    }
}

/// True for a field value that answers nothing: blank text or an empty list.
pub(crate) fn blank(value: &Value) -> bool {
    match value {
        Value::String(text) => text.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

/// The defaults that show `answer` in the form: the value of the question's field (a label or a
/// list of labels) and the text of its "Other" field (for a free-text question: its one field).
fn defaults(answer: Option<&Answer>) -> (Option<Value>, Option<String>) {
    let Some(answer) = answer else {
        return (None, None);
    };
    match &answer.answer {
        AnswerValue::Text(text) => match &answer.selected_option {
            Some(label) => (Some(Value::String(label.clone())), None),
            None => (None, Some(text.clone())),
        },
        AnswerValue::Choices(choices) => {
            let mut labels = choices.clone();
            let typed = if answer.was_custom {
                labels.pop()
            } else {
                None
            };
            let labels = (!labels.is_empty())
                .then(|| Value::Array(labels.into_iter().map(Value::String).collect()));
            (labels, typed)
        }
    }
}

impl Form<'_> {
    /// The answer to `question` in the form `content`, if the person gave one.
    fn read_one(&self, index: usize, content: &Value) -> Option<Answer> {
        let question = self.questions.get(index)?;
        let text = |key: String| {
            content
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .map(str::to_string)
        };
        let other = text(self.other_key(index));
        if question.is_free_text() {
            return text(self.key(index)).map(|typed| Answer::from_text(question, &typed));
        }
        if question.multi_select {
            // A list of labels, or a check box per option: either way the reply carries them.
            let mut chosen: Vec<bool> = (0..question.options().len())
                .map(|at| content.get(self.box_key(index, at)) == Some(&Value::Bool(true)))
                .collect();
            let picked = content.get(self.key(index)).and_then(Value::as_array);
            for label in picked.into_iter().flatten().filter_map(Value::as_str) {
                if let Some(found) = question.find_option(label) {
                    chosen[found] = true;
                }
            }
            let labels = question.chosen_labels(&chosen);
            if labels.is_empty() && other.is_none() {
                // Nothing ticked and nothing typed is no answer, unless the person said
                // "None of these"; a pick or a typed answer beside it wins.
                let none = content.get(self.none_key(index)) == Some(&Value::Bool(true));
                return none.then(|| Answer::none_of_these(&question.question));
            }
            return Some(Answer::multi(&question.question, labels, other));
        }
        // Typed text wins over a chosen option: the person went out of their way to write it.
        if let Some(typed) = other {
            return Some(Answer::custom(&question.question, typed));
        }
        text(self.key(index)).map(|chosen| Answer::from_text(question, &chosen))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A choice, a multi-select and a text question: the call these tests and the stepper's ask.
    pub(crate) fn questions() -> Vec<Question> {
        vec![
            Question::choice("Which database?", ["PostgreSQL (Recommended)", "SQLite"]),
            Question::choice("Which features?", ["Auth", "API", "Admin"]).multi(),
            Question::text("Project name?"),
        ]
    }

    #[track_caller]
    fn check(content: Value, expected: Result<Vec<Answer>, Vec<usize>>) {
        let questions = questions();
        assert_eq!(Form::new(&questions).read(&content), expected);
    }

    #[test]
    fn options_and_text_are_read_in_question_order() {
        check(
            json!({"q1": "SQLite", "q2": ["Admin", "Auth"], "q3": "Falcon"}),
            Ok(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::multi("Which features?", vec!["Auth".into(), "Admin".into()], None),
                Answer::custom("Project name?", "Falcon"),
            ]),
        );
    }

    #[test]
    fn ticked_boxes_are_the_chosen_options_in_option_order() {
        check(
            json!({"q1": "SQLite", "q2_3": true, "q2_1": true, "q2_2": false, "q3": "x"}),
            Ok(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::multi("Which features?", vec!["Auth".into(), "Admin".into()], None),
                Answer::custom("Project name?", "x"),
            ]),
        );
        // No box ticked and no "Other": the question is open.
        check(
            json!({"q1": "SQLite", "q2_1": false, "q3": "x"}),
            Err(vec![1]),
        );
        check(
            json!({"q1": "SQLite", "q2_1": false, "q2_none": false, "q3": "x"}),
            Err(vec![1]),
        );
    }

    #[test]
    fn none_of_these_answers_a_multi_select_with_no_option() {
        check(
            json!({"q1": "SQLite", "q2_1": false, "q2_none": true, "q3": "x"}),
            Ok(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::none_of_these("Which features?"),
                Answer::custom("Project name?", "x"),
            ]),
        );
        // An option ticked or an answer typed beside it counts instead.
        check(
            json!({"q1": "SQLite", "q2_2": true, "q2_none": true, "q2_other": "Search", "q3": "x"}),
            Ok(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::multi("Which features?", vec!["API".into()], Some("Search".into())),
                Answer::custom("Project name?", "x"),
            ]),
        );
        let questions = questions();
        let lists = Form::for_client(&questions, Some("claude-code"));
        assert_eq!(
            lists.read(&json!({"q1": "SQLite", "q2": [], "q2_none": true, "q3": "x"})),
            Ok(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::none_of_these("Which features?"),
                Answer::custom("Project name?", "x"),
            ])
        );
        // The field shows the earlier answer, and a multi-select's "Other" adds to the picks.
        let given = json!({"q2_none": true});
        let schema = Form::new(&questions).schema(given.as_object().unwrap());
        assert_eq!(schema["properties"]["q2_none"]["default"], true);
        assert_eq!(
            schema["properties"]["q2_none"]["title"],
            "Question 2: None of these"
        );
        assert_eq!(
            schema["properties"]["q2_other"]["title"],
            "Question 2: Other (added to your picks)"
        );
        assert!(
            !schema["properties"]["q2_other"]["description"]
                .as_str()
                .unwrap()
                .contains("instead")
        );
        assert_eq!(
            Form::new(&questions).again(&[1]),
            "Please answer every question; choose an option (or tick \"None of these\") or type \
             an answer for: \"Which features?\""
        );
    }

    #[test]
    fn other_text_is_a_custom_answer() {
        check(
            json!({"q1": "SQLite", "q1_other": " MariaDB ", "q2_other": "Search", "q3": "x"}),
            Ok(vec![
                Answer::custom("Which database?", "MariaDB"),
                Answer::multi("Which features?", Vec::new(), Some("Search".into())),
                Answer::custom("Project name?", "x"),
            ]),
        );
    }

    #[test]
    fn blank_and_missing_fields_leave_the_question_open() {
        check(
            json!({"q1_other": "  ", "q2": [], "q3": ""}),
            Err(vec![0, 1, 2]),
        );
        check(Value::Null, Err(vec![0, 1, 2]));
    }

    #[test]
    fn fields_are_ordered_as_the_questions() {
        let questions = questions();
        assert_eq!(
            Form::new(&questions).order(),
            [
                "q1", "q1_other", "q2_1", "q2_2", "q2_3", "q2_none", "q2_other", "q3"
            ]
        );
        assert_eq!(
            Form::for_client(&questions, Some("claude-code")).order(),
            ["q1", "q1_other", "q2", "q2_none", "q2_other", "q3"]
        );
        // For Codex the form ends on a choice, never on an optional text field.
        let codex = |questions| Form::for_client(questions, Some("codex-mcp-client")).order();
        assert_eq!(
            codex(&questions[..2]),
            [
                "q1",
                "q1_other",
                "q2_other",
                "q2_pick_1",
                "q2_pick_2",
                "q2_pick_3",
                "q2_pick_none"
            ]
        );
        assert_eq!(codex(&questions[..1]), ["q1_other", "q1_pick"]);
        // Clients show the fields sorted by name (the wire keeps no other order): the names
        // sort in the order meant, also past nine options.
        let many: Vec<String> = (1..=12).map(|n| format!("Option {n}")).collect();
        let long = vec![
            Question::choice("Which?", many).multi(),
            questions[0].clone(),
        ];
        for order in [
            Form::new(&questions).order(),
            codex(&questions),
            codex(&questions[..2]),
            codex(&long),
            Form::new(&long).order(),
        ] {
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(order, sorted);
        }
    }

    #[test]
    fn form_schema_with_defaults_is_accepted_as_an_elicitation_schema() {
        let questions = questions();
        let given = json!({"q1": "sqlite", "q2_3": true, "q3": "Falcon"});
        let schema: ElicitationSchema =
            serde_json::from_value(Form::new(&questions).schema(given.as_object().unwrap()))
                .unwrap();
        assert_eq!(schema.properties.len(), 8);
        // Only a free-text question's field is required; "Other" never is.
        assert_eq!(schema.required, Some(vec!["q3".to_string()]));
        let back = serde_json::to_value(&schema).unwrap();
        // The default is the label as written, whatever the case of the earlier reply.
        assert_eq!(back["properties"]["q1"]["default"], "SQLite");
        // A check box per option, titled with the question's header and the option's label.
        assert_eq!(
            back["properties"]["q2_3"],
            json!({"type": "boolean", "title": "Question 2: Admin",
                   "description": "Which features?", "default": true})
        );
        assert_eq!(back["properties"]["q2_1"]["default"], false);
        assert_eq!(back["properties"]["q3"]["default"], "Falcon");
        // A client known to draw a list of choices gets one.
        let given = json!({"q2": ["Admin"]});
        let lists = Form::for_client(&questions, Some("claude-code"));
        let schema: ElicitationSchema =
            serde_json::from_value(lists.schema(given.as_object().unwrap())).unwrap();
        let back = serde_json::to_value(&schema).unwrap();
        assert_eq!(back["properties"]["q2"]["type"], "array");
        assert_eq!(back["properties"]["q2"]["default"], json!(["Admin"]));
    }
}
