//! The client's form on the wire: the stateful driver of the form stepper as a frontend that
//! sends elicitation requests to the client, the stateless driver's input-required results, and
//! the one handover past the form when it cannot finish the call (the client declined the first
//! form at once, or left questions open too often).
//!
//! The handler builds [`ElicitationFrontend`] with all that the form needs from the call, so
//! that nothing here calls back into the handler: the stateless driver gives the handler what to
//! do with the call ([`InRounds`]) rather than running the ask itself.

use ask_core::{
    Answer, AskRequest, Capabilities, Frontend, Outcome, PresentError, Presenter, Question,
};
use async_trait::async_trait;
use rmcp::Peer;
use rmcp::model::{
    CallToolRequestParams, ElicitRequest, InputRequest, InputRequests, InputRequiredResult,
};
use rmcp::service::{RoleServer, ServiceError};

use crate::form::Form;
use crate::rounds::{
    self, AnswerTooLongIn, FormEnd, Handover, InOneCall, MAX_INCOMPLETE_ROUNDS, Next, Round,
    Stepper,
};
use crate::route::{Chosen, WebRoute};
use crate::server::McpServer;

/// The key of the form in the input requests of a stateless round.
const FORM_REQUEST: &str = "ask_user";

/// The tool error when the form came back incomplete too often and no presenter follows it.
fn gave_up_text() -> String {
    format!(
        "The user left questions open in the form {MAX_INCOMPLETE_ROUNDS} times, and no other \
         presenter was configured; nothing was answered. Proceed without these answers."
    )
}

/// The line for people when a form's answer was over the cap of one answer.
fn too_long_line(found: AnswerTooLongIn) -> String {
    format!(
        "the form's answer to question {} {}, so the form counts as declined; the next \
         presenter takes the call",
        found.index + 1,
        found.too_long
    )
}

/// The tool error when a form's answer was over the cap and no presenter follows the form.
fn too_long_text(found: AnswerTooLongIn) -> String {
    format!(
        "The form's answer to question {} {}, so the form counted as declined, and no other \
         presenter was configured; nothing was answered. Proceed without these answers.",
        found.index + 1,
        found.too_long
    )
}

/// The line for people when the client declined its form at once.
const CANNOT_ASK: &str = "the client declined the form at once, so it cannot ask; the next \
                          presenter takes the call";

/// Takes the call past the client's form: logs why, and gives the next presenter of the list
/// (the first after `elicitation` that can reach the person; `web` is the call's `web` route)
/// with the answers it starts from, or the tool error when no presenter follows.
fn past_form<'a>(
    server: &'a McpServer,
    handover: Handover,
    web: WebRoute<'a>,
) -> Result<(Chosen<'a>, Vec<Option<Answer>>), String> {
    match &handover {
        Handover::CannotAsk => server.say(CANNOT_ASK),
        Handover::GaveUp(_) => server.say(&format!(
            "the form came back with questions left open {MAX_INCOMPLETE_ROUNDS} times"
        )),
        Handover::TooLong(found) => server.say(&too_long_line(*found)),
    }
    match (server.after_form(web), handover) {
        (Some(next), Handover::CannotAsk | Handover::TooLong(_)) => Ok((next, Vec::new())),
        (Some(next), Handover::GaveUp(given)) => Ok((next, given)),
        (None, Handover::CannotAsk) => Err(server.unreachable()),
        (None, Handover::GaveUp(_)) => Err(gave_up_text()),
        (None, Handover::TooLong(found)) => Err(too_long_text(found)),
    }
}

/// What the handler does with a `tools/call` answered in rounds on the stateless protocol.
pub(crate) enum InRounds<'a> {
    /// Ask the client for input: the next form, and the state it echoes.
    Ask(InputRequiredResult),
    /// The form's reply ends the ask: run it through this frontend, whose outcome is known.
    Replied(Replied),
    /// The next presenter of the list takes the call, starting from these answers.
    PastForm(Chosen<'a>, Vec<Option<Answer>>),
    /// End the call with this tool error.
    Failed(String),
}

/// A frontend whose outcome is already known: the reply to a form sent in an earlier round.
pub(crate) struct Replied(Outcome);

#[async_trait]
impl Frontend for Replied {
    fn presenter(&self) -> Presenter {
        Presenter::Elicitation
    }

    async fn present(&self, _request: &AskRequest) -> Result<Outcome, PresentError> {
        Ok(self.0.clone())
    }
}

/// Shows the questions as a form in the MCP client (elicitation in form mode), round after
/// round, through the stateful driver of the form stepper; a form the client cannot show, or
/// one left incomplete too often, hands the call to the next presenter of the list. It holds
/// what the form needs from its call, given by the handler; [`ElicitationFrontend::in_rounds`]
/// is the stateless driver of the same call.
pub(crate) struct ElicitationFrontend<'a> {
    pub(crate) server: &'a McpServer,
    /// The client's `clientInfo.name`.
    pub(crate) client: Option<String>,
    /// The client, which the stateful driver sends its forms to.
    pub(crate) peer: Peer<RoleServer>,
    /// The call's `web` route, for a handover to `web`.
    pub(crate) web: WebRoute<'a>,
}

impl<'a> ElicitationFrontend<'a> {
    /// The one form stepper for `questions`, as this client is shown them.
    fn stepper<'q>(&self, questions: &'q [Question]) -> Stepper<'q> {
        let form = Form::for_client(questions, self.client.as_deref());
        Stepper::new(form, self.server.quick_decline)
    }

    /// Asks through the client's form on a protocol where the server sends no requests of its
    /// own (2026-07-28 and later): the result asks the client for input, and the client calls
    /// again with the person's reply and the echoed state.
    pub(crate) fn in_rounds(
        &self,
        questions: &[Question],
        request: &CallToolRequestParams,
    ) -> InRounds<'a> {
        let stepper = self.stepper(questions);
        let reply = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(FORM_REQUEST));
        match rounds::next_round(&stepper, request.request_state.as_deref(), reply) {
            Round::Ask { form, state } => {
                let request = InputRequest::Elicitation(ElicitRequest::new(form));
                let requests = InputRequests::from([(FORM_REQUEST.to_string(), request)]);
                InRounds::Ask(InputRequiredResult::new(Some(requests), Some(state)))
            }
            Round::End(FormEnd::Done(outcome)) => InRounds::Replied(Replied(outcome)),
            Round::End(FormEnd::PastForm(handover)) => {
                match past_form(self.server, handover, self.web.clone()) {
                    Ok((next, given)) => InRounds::PastForm(next, given),
                    Err(text) => InRounds::Failed(text),
                }
            }
            Round::UnreadableReply(error) => InRounds::Failed(format!(
                "The client's reply to the questions form could not be read: {error}"
            )),
            Round::UnbuildableForm(error) => InRounds::Failed(format!(
                "The questions form could not be built for the client: {error}"
            )),
        }
    }

    /// The stateful driver's rounds: sends each form the stepper gives as an elicitation request
    /// and hands it the reply, until the call's part in the form is over; a client that went
    /// away ends the ask as connection lost.
    async fn in_one_call(&self, stepper: &Stepper<'_>) -> Result<FormEnd, PresentError> {
        let mut rounds = InOneCall::new(stepper);
        let mut reply = None;
        loop {
            match rounds.step(reply.take()).map_err(PresentError::failed)? {
                Next::End(end) => return Ok(end),
                Next::Show(params) => match self.peer.create_elicitation(params).await {
                    Ok(result) => reply = Some(result),
                    Err(
                        ServiceError::TransportClosed
                        | ServiceError::TransportSend(_)
                        | ServiceError::Cancelled { .. },
                    ) => return Ok(FormEnd::Done(Outcome::ConnectionLost)),
                    Err(error) => return Err(PresentError::failed(error)),
                },
            }
        }
    }
}

#[async_trait]
impl Frontend for ElicitationFrontend<'_> {
    fn presenter(&self) -> Presenter {
        Presenter::Elicitation
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            // The protocol forbids sensitive data in form elicitation.
            carries_secrets: false,
            // The first form starts empty: only the fields of its own earlier rounds come back
            // as defaults.
            shows_given: false,
            ..Capabilities::default()
        }
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let stepper = self.stepper(&request.input.questions);
        match self.in_one_call(&stepper).await? {
            FormEnd::Done(outcome) => Ok(outcome),
            FormEnd::PastForm(handover) => {
                let (next, given) = past_form(self.server, handover, self.web.clone())
                    .map_err(PresentError::Unasked)?;
                let mut request = request.clone();
                request.given = given;
                next.present(&request).await
            }
        }
    }
}
