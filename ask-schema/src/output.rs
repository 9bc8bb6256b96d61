//! The document a finished call is handed back as: the structured result, the answer map or the
//! tool output, in the canonical shapes or in an agent's dialect.

use ask_core::{Record, ToolOutput};

use crate::Dialect;

/// Which document of a finished call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputForm {
    /// The structured result, `{answered, answers, …}`.
    Result,
    /// The answer map, `{"answers": {"question": "answer"}}`.
    Answers,
    /// The tool output, `{content, details, isError}`.
    Tool,
}

/// The document a finished call is handed back as: its form, in the dialect of the agent that
/// asked when one is named (its own result shape for `Result` and `Answers`, its own words in
/// the tool output for `Tool`), else in the canonical shapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputShape {
    /// The document.
    pub form: OutputForm,
    /// The agent's dialect, unless it is the canonical one.
    pub dialect: Option<Dialect>,
    /// Roo Code's mode of each suggestion, when the call carried them.
    pub modes: Vec<Option<String>>,
}

impl OutputShape {
    /// `form` in the canonical shapes.
    pub fn plain(form: OutputForm) -> OutputShape {
        OutputShape {
            form,
            dialect: None,
            modes: Vec::new(),
        }
    }

    /// The document of `record`, as one line of JSON.
    ///
    /// ```
    /// use ask_core::{Answer, Mode, Outcome, Question, Record, AskUserInput};
    /// use ask_schema::{OutputForm, OutputShape};
    /// let q = Question::choice("Which database?", ["PostgreSQL", "SQLite"]);
    /// let answer = Answer::from_text(&q, "sqlite");
    /// let input = AskUserInput { questions: vec![q], metadata: None };
    /// let record = Record::new(input, Mode::Interactive, Outcome::Answered(vec![answer]));
    /// assert_eq!(OutputShape::plain(OutputForm::Answers).render(&record),
    ///            r#"{"answers":{"Which database?":"SQLite"}}"#);
    /// ```
    pub fn render(&self, record: &Record) -> String {
        if let Some(dialect) = self.dialect {
            let value = match self.form {
                OutputForm::Result | OutputForm::Answers => {
                    crate::dialect_output::result_in(dialect, record, &self.modes)
                }
                OutputForm::Tool => {
                    crate::dialect_output::tool_output_in(dialect, record, &self.modes)
                }
            };
            return value.to_string();
        }
        match self.form {
            OutputForm::Result => serde_json::to_string(&record.result()).unwrap_or_default(),
            OutputForm::Answers => record.answers_output(),
            OutputForm::Tool => {
                serde_json::to_string(&ToolOutput::from_record(record.clone())).unwrap_or_default()
            }
        }
    }
}
