//! The one form stepper, and the two drivers that run it.
//!
//! A call answered by the client's form goes round after round: each reply joins the answers
//! given so far, and the stepper says what comes next: another form, the end of the call, or the
//! next presenter of the list (the client declined the first form at once, or the form came back
//! with questions left open [`MAX_INCOMPLETE_ROUNDS`] times). Both drivers are stepped by their
//! caller, which does the sending: the stateful driver ([`InOneCall`]) gives each form to send as
//! a request of the server's own and takes the reply; the stateless driver ([`next_round`])
//! answers each `tools/call` with the next form and carries the rounds in its `requestState`.
//! Both follow the same rules because both ask the one stepper.

use std::time::Duration;

use ask_core::{Answer, Outcome, now_ms};
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::form::{Form, blank};

/// How many forms may come back with a question left open before the call goes to the next
/// presenter of the list.
pub(crate) const MAX_INCOMPLETE_ROUNDS: usize = 3;

/// What the rounds of one call have gathered: the form fields the person filled in so far and
/// how many forms came back incomplete. On the stateless protocol it travels as `requestState`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RoundState {
    /// Incomplete forms so far.
    incomplete: usize,
    /// When the first form was sent (milliseconds since the Unix epoch), to tell a decline the
    /// client made at once from the person's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sent_ms: Option<u64>,
    /// The filled fields, by field name (`q1`, `q1_other`, …).
    given: Map<String, Value>,
}

impl RoundState {
    /// The state echoed by a client; anything unreadable starts afresh. The fields are only
    /// ever read back like a form reply.
    fn read(text: &str) -> RoundState {
        serde_json::from_str(text).unwrap_or_default()
    }

    fn write(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// How long ago the first form was sent, when its time of sending is known.
    fn since_sent(&self) -> Option<Duration> {
        self.sent_ms
            .map(|sent| Duration::from_millis(now_ms().saturating_sub(sent)))
    }

    /// True when `reply` declines or cancels the first form within `quick` of its sending: the
    /// client's doing (it cannot ask), not the person's.
    fn declined_at_once(&self, reply: &Reply, quick: Duration) -> bool {
        self.incomplete == 0
            && reply.result.action != ElicitationAction::Accept
            && reply.after.is_some_and(|after| after < quick)
    }
}

/// What one form reply does to the call.
#[derive(Debug, PartialEq)]
enum Step {
    /// The ask is over.
    Done(Outcome),
    /// Show the form again with this message.
    Again(String),
    /// Too many incomplete forms: hand over to the next presenter with these answers.
    GiveUp(Vec<Option<Answer>>),
    /// An answer over the cap of one answer: the form counts as declined, and the next
    /// presenter takes the call.
    TooLong(AnswerTooLongIn),
}

/// An answer in a form over [`ask_core::MAX_ANSWER_BYTES`], and the question it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AnswerTooLongIn {
    /// The question's index, from 0.
    pub(crate) index: usize,
    /// How long the answer is.
    pub(crate) too_long: ask_core::AnswerTooLong,
}

/// A reply to a form, and how long after the form's sending it came (when that is known).
#[derive(Debug)]
struct Reply {
    result: ElicitResult,
    after: Option<Duration>,
}

/// Why a call leaves the client's form for the next presenter of the list.
#[derive(Debug, PartialEq)]
pub(crate) enum Handover {
    /// The client declined or cancelled the first form at once: it cannot ask.
    CannotAsk,
    /// The form came back with questions left open too often; the answers given so far, in
    /// question order.
    GaveUp(Vec<Option<Answer>>),
    /// The form came back with an answer over the cap of one answer, which counts as declining
    /// it; nothing of that form is kept.
    TooLong(AnswerTooLongIn),
}

/// How a call's part in the client's form ended.
#[derive(Debug, PartialEq)]
pub(crate) enum FormEnd {
    /// The ask is over (answered, cancelled, or its client went away).
    Done(Outcome),
    /// The next presenter of the list takes the call.
    PastForm(Handover),
}

/// What the stepper says comes next.
enum Turn {
    /// Send the form (again) under this message.
    Show(String),
    /// The call's part in the form is over.
    End(FormEnd),
}

/// The one form stepper: the form of a call and the rule that tells a client's decline from the
/// person's.
///
/// Both drivers, the stateful one and the stateless one, step through here, so each fallback
/// rule exists once. Nothing partial reaches the model: a form that comes back with a question
/// left open is asked again until it has come back so [`MAX_INCOMPLETE_ROUNDS`] times, then the
/// call is handed to the next presenter with the answers given so far; the `requestState` a
/// client echoes is read back only like a form reply.
#[derive(Debug)]
pub(crate) struct Stepper<'a> {
    form: Form<'a>,
    /// A first form declined or cancelled this soon after it was sent was the client's doing.
    quick_decline: Duration,
}

impl<'a> Stepper<'a> {
    pub(crate) fn new(form: Form<'a>, quick_decline: Duration) -> Stepper<'a> {
        Stepper {
            form,
            quick_decline,
        }
    }

    /// Takes the reply to the last form (none before the first) into the rounds, and says what
    /// comes next.
    fn turn(&self, rounds: &mut RoundState, reply: Option<Reply>) -> Turn {
        let Some(reply) = reply else {
            if rounds.incomplete == 0 {
                // The first form's time of sending is kept, so that a decline can be told from
                // the person's.
                rounds.sent_ms = Some(now_ms());
                return Turn::Show(self.form.message());
            }
            return Turn::Show(self.form.again(&self.form.missing(&rounds.given)));
        };
        if rounds.declined_at_once(&reply, self.quick_decline) {
            return Turn::End(FormEnd::PastForm(Handover::CannotAsk));
        }
        match self.form.step(rounds, reply.result) {
            Step::Done(outcome) => Turn::End(FormEnd::Done(outcome)),
            Step::Again(message) => Turn::Show(message),
            Step::GiveUp(given) => Turn::End(FormEnd::PastForm(Handover::GaveUp(given))),
            Step::TooLong(found) => Turn::End(FormEnd::PastForm(Handover::TooLong(found))),
        }
    }
}

/// What the stateful driver says comes next.
#[derive(Debug)]
pub(crate) enum Next {
    /// Send this form to the client, as a request of the server's own, and hand its reply to
    /// [`InOneCall::step`].
    Show(ElicitRequestParams),
    /// The call's part in the form is over.
    End(FormEnd),
}

/// The stateful driver: the rounds of a call whose forms go out as requests of the server's own
/// within the one `tools/call`. Its caller sends each form it gives and hands back the client's
/// reply, until it says the call's part in the form is over.
#[derive(Debug)]
pub(crate) struct InOneCall<'s, 'a> {
    stepper: &'s Stepper<'a>,
    rounds: RoundState,
    /// When the last form was given out to be sent.
    sent: Option<tokio::time::Instant>,
}

impl<'s, 'a> InOneCall<'s, 'a> {
    pub(crate) fn new(stepper: &'s Stepper<'a>) -> InOneCall<'s, 'a> {
        InOneCall {
            stepper,
            rounds: RoundState::default(),
            sent: None,
        }
    }

    /// Takes the client's reply to the last form (none before the first) and says what comes
    /// next; an error when the form cannot be built for the client.
    pub(crate) fn step(&mut self, reply: Option<ElicitResult>) -> Result<Next, serde_json::Error> {
        let reply = reply.map(|result| Reply {
            result,
            after: self.sent.map(|sent| sent.elapsed()),
        });
        match self.stepper.turn(&mut self.rounds, reply) {
            Turn::End(end) => Ok(Next::End(end)),
            Turn::Show(message) => {
                let params = self.stepper.form.request(message, &self.rounds.given)?;
                self.sent = Some(tokio::time::Instant::now());
                Ok(Next::Show(params))
            }
        }
    }
}

/// What one round of the stateless driver answers.
#[derive(Debug)]
pub(crate) enum Round {
    /// Ask the client for input: this form, and the state it echoes with its reply.
    Ask {
        form: ElicitRequestParams,
        state: String,
    },
    /// The call's part in the form is over.
    End(FormEnd),
    /// The client's reply to the form could not be read.
    UnreadableReply(serde_json::Error),
    /// The form could not be built for the client.
    UnbuildableForm(serde_json::Error),
}

/// The stateless driver: one `tools/call` of a call answered in rounds, from the state the
/// client echoed (its `requestState`, read like a form reply and never trusted further) and its
/// reply to the last form.
pub(crate) fn next_round(
    stepper: &Stepper<'_>,
    state: Option<&str>,
    reply: Option<&Value>,
) -> Round {
    let mut rounds = state.map(RoundState::read).unwrap_or_default();
    let reply = match reply.map(|reply| serde_json::from_value::<ElicitResult>(reply.clone())) {
        None => None,
        Some(Ok(result)) => Some(Reply {
            result,
            after: rounds.since_sent(),
        }),
        Some(Err(error)) => return Round::UnreadableReply(error),
    };
    match stepper.turn(&mut rounds, reply) {
        Turn::End(end) => Round::End(end),
        Turn::Show(message) => match stepper.form.request(message, &rounds.given) {
            Ok(form) => Round::Ask {
                form,
                state: rounds.write(),
            },
            Err(error) => Round::UnbuildableForm(error),
        },
    }
}

impl Form<'_> {
    /// Takes one reply into the rounds: the answers in it join those given before (a field left
    /// blank keeps its earlier answer), and the call ends, goes another round or gives up.
    fn step(&self, rounds: &mut RoundState, reply: ElicitResult) -> Step {
        match reply.action {
            ElicitationAction::Accept => {
                let content = reply.content.unwrap_or(Value::Null);
                for key in self.reply_keys() {
                    let filled = content.get(&key).filter(|value| !blank(value));
                    if let Some(value) = filled {
                        rounds.given.insert(key, value.clone());
                    }
                }
                let given = Value::Object(rounds.given.clone());
                // An answer over the cap never reaches the model: the form counts as declined.
                let over = self
                    .partial(&given)
                    .iter()
                    .enumerate()
                    .find_map(|(index, answer)| {
                        let bytes = answer.as_ref().map_or(0, |a| a.answer.utf8_len());
                        let too_long = ask_core::check_answer_bytes(bytes).err()?;
                        Some(AnswerTooLongIn { index, too_long })
                    });
                if let Some(found) = over {
                    return Step::TooLong(found);
                }
                match self.read(&given) {
                    Ok(answers) => Step::Done(Outcome::Answered(answers)),
                    Err(missing) => {
                        rounds.incomplete += 1;
                        if rounds.incomplete >= MAX_INCOMPLETE_ROUNDS {
                            Step::GiveUp(self.partial(&given))
                        } else {
                            Step::Again(self.again(&missing))
                        }
                    }
                }
            }
            // Decline and cancel, and any answer a later protocol adds, discard everything.
            _ => Step::Done(Outcome::Cancelled),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use serde_json::json;

    use super::*;
    use crate::form::tests::questions;

    fn accept(content: Value) -> ElicitResult {
        serde_json::from_value(json!({"action": "accept", "content": content})).unwrap()
    }

    #[test]
    fn declined_and_cancelled_replies_cancel() {
        let questions = questions();
        let form = Form::new(&questions);
        for action in ["decline", "cancel"] {
            let reply = serde_json::from_value(json!({"action": action})).unwrap();
            let mut rounds = RoundState::default();
            assert_eq!(
                form.step(&mut rounds, reply),
                Step::Done(Outcome::Cancelled),
                "{action}"
            );
        }
    }

    #[test]
    fn answers_of_earlier_rounds_are_kept_and_become_defaults() {
        let questions = questions();
        let form = Form::new(&questions);
        let mut rounds = RoundState::default();
        assert_eq!(
            form.step(&mut rounds, accept(json!({"q1": "SQLite", "q2": []}))),
            Step::Again(
                "Please answer every question; choose an option (or tick \"None of these\") or \
                 type an answer for: \"Which features?\", \"Project name?\""
                    .to_string()
            )
        );
        // The second form shows the first answer as its field's default.
        let schema = form.schema(&rounds.given);
        assert_eq!(schema["properties"]["q1"]["default"], "SQLite");
        assert_eq!(schema["properties"]["q2_1"]["default"], false);
        // Answering only what was open completes the call; the first answer is not asked again.
        assert_eq!(
            form.step(
                &mut rounds,
                accept(json!({"q2": ["API"], "q2_other": "Search"}))
            ),
            Step::Again(
                "Please answer every question; choose an option or type an answer for: \
                 \"Project name?\""
                    .to_string()
            )
        );
        let schema = form.schema(&rounds.given);
        let ticked: Vec<&Value> = (1..=3)
            .map(|at| &schema["properties"][format!("q2_{at}")]["default"])
            .collect();
        assert_eq!(ticked, [&json!(false), &json!(true), &json!(false)]);
        assert_eq!(schema["properties"]["q2_other"]["default"], "Search");
        assert_eq!(
            form.step(&mut rounds, accept(json!({"q3": "Falcon"}))),
            Step::Done(Outcome::Answered(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::multi("Which features?", vec!["API".into()], Some("Search".into())),
                Answer::custom("Project name?", "Falcon"),
            ]))
        );
    }

    #[test]
    fn the_third_incomplete_form_gives_up_with_the_answers_so_far() {
        let questions = questions();
        let form = Form::new(&questions);
        let mut rounds = RoundState::default();
        let partial = json!({"q1_other": "MariaDB"});
        assert!(matches!(
            form.step(&mut rounds, accept(partial)),
            Step::Again(_)
        ));
        assert!(matches!(
            form.step(&mut rounds, accept(json!({}))),
            Step::Again(_)
        ));
        assert_eq!(
            form.step(&mut rounds, accept(json!({}))),
            Step::GiveUp(vec![
                Some(Answer::custom("Which database?", "MariaDB")),
                None,
                None
            ])
        );
        assert_eq!(rounds.incomplete, MAX_INCOMPLETE_ROUNDS);
    }

    #[test]
    fn request_state_round_trips_and_junk_starts_afresh() {
        let state = RoundState {
            incomplete: 2,
            sent_ms: Some(1_700_000_000_000),
            given: json!({"q1": "SQLite"}).as_object().unwrap().clone(),
        };
        assert_eq!(RoundState::read(&state.write()), state);
        assert_eq!(RoundState::read("not json"), RoundState::default());
    }

    #[test]
    fn only_a_first_form_declined_within_the_window_is_the_clients() {
        let decline: ElicitResult = serde_json::from_value(json!({"action": "decline"})).unwrap();
        let accept = accept(json!({}));
        let window = Duration::from_secs(60);
        // The stateless driver's reply: its time from the state the client echoed.
        let at_once = |state: &RoundState, result: &ElicitResult| {
            let reply = Reply {
                result: result.clone(),
                after: state.since_sent(),
            };
            state.declined_at_once(&reply, window)
        };
        let sent = RoundState {
            sent_ms: Some(now_ms()),
            ..RoundState::default()
        };
        assert!(at_once(&sent, &decline));
        assert!(!at_once(&sent, &accept));
        // Long ago, after an incomplete form, or with no time of sending: the person's.
        let long_ago = RoundState {
            sent_ms: Some(now_ms() - 120_000),
            ..RoundState::default()
        };
        assert!(!at_once(&long_ago, &decline));
        let later = RoundState {
            incomplete: 1,
            ..sent
        };
        assert!(!at_once(&later, &decline));
        assert!(!at_once(&RoundState::default(), &decline));
    }

    /// The person of a driver test: the reply to each form in turn.
    type Person = VecDeque<ElicitResult>;

    /// The message of a form request.
    fn message_of(params: &ElicitRequestParams) -> String {
        match params {
            ElicitRequestParams::FormElicitationParams { message, .. } => message.clone(),
            other => panic!("not a form: {other:?}"),
        }
    }

    /// Runs the stateful driver with `person`, each form sent and its reply handed back; how the
    /// form ended and the messages shown.
    fn stateful(stepper: &Stepper<'_>, mut person: Person) -> (FormEnd, Vec<String>) {
        let mut shown = Vec::new();
        let mut call = InOneCall::new(stepper);
        let mut reply = None;
        loop {
            match call.step(reply.take()).unwrap() {
                Next::Show(form) => {
                    shown.push(message_of(&form));
                    reply = Some(person.pop_front().expect("the person has no reply left"));
                }
                Next::End(end) => return (end, shown),
            }
        }
    }

    /// Runs the stateless driver with `person`, one `tools/call` per round, the state echoed.
    fn stateless(stepper: &Stepper<'_>, mut person: Person) -> (FormEnd, Vec<String>) {
        let mut shown = Vec::new();
        let (mut state, mut reply) = (None::<String>, None::<Value>);
        loop {
            match next_round(stepper, state.as_deref(), reply.as_ref()) {
                Round::Ask { form, state: next } => {
                    shown.push(message_of(&form));
                    state = Some(next);
                    let answer = person.pop_front().expect("the person has no reply left");
                    reply = Some(serde_json::to_value(answer).unwrap());
                }
                Round::End(end) => return (end, shown),
                other => panic!("{other:?}"),
            }
        }
    }

    /// The stateful and the stateless drivers, given the same call and the same replies, show
    /// the same forms and end alike: both go through the one stepper.
    #[test]
    fn both_drivers_step_the_same_call_to_the_same_end() {
        let questions = questions();
        let decline: ElicitResult = serde_json::from_value(json!({"action": "decline"})).unwrap();
        let answered = Outcome::Answered(vec![
            Answer::selected("Which database?", "SQLite"),
            Answer::multi("Which features?", vec!["API".into()], None),
            Answer::custom("Project name?", "Falcon"),
        ]);
        let cases: Vec<(Duration, Vec<ElicitResult>, FormEnd)> = vec![
            // Answered over two forms: the second keeps the first's answers.
            (
                Duration::ZERO,
                vec![
                    accept(json!({"q1": "SQLite"})),
                    accept(json!({"q2": ["API"], "q3": "Falcon"})),
                ],
                FormEnd::Done(answered),
            ),
            // Three incomplete forms: the next presenter, with the answers so far.
            (
                Duration::ZERO,
                vec![
                    accept(json!({"q1_other": "MariaDB"})),
                    accept(json!({})),
                    accept(json!({})),
                ],
                FormEnd::PastForm(Handover::GaveUp(vec![
                    Some(Answer::custom("Which database?", "MariaDB")),
                    None,
                    None,
                ])),
            ),
            // The first form declined at once: the client cannot ask.
            (
                Duration::from_secs(60),
                vec![decline.clone()],
                FormEnd::PastForm(Handover::CannotAsk),
            ),
            // A decline after an incomplete form is the person's.
            (
                Duration::from_secs(60),
                vec![accept(json!({"q1": "SQLite"})), decline],
                FormEnd::Done(Outcome::Cancelled),
            ),
        ];
        for (quick, replies, expected) in cases {
            let stepper = Stepper::new(Form::new(&questions), quick);
            let person: Person = replies.into();
            let (by_call, shown_by_call) = stateful(&stepper, person.clone());
            let (by_rounds, shown_by_rounds) = stateless(&stepper, person);
            assert_eq!(by_call, expected);
            assert_eq!(by_rounds, expected);
            assert_eq!(shown_by_call, shown_by_rounds);
            assert_eq!(shown_by_call[0], "Please answer these 3 questions.");
        }
    }
}
