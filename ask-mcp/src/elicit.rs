//! The client's form on the wire: the stateful driver of the form stepper as a frontend that
//! sends elicitation requests to the client, the stateless driver's input-required results, and
//! the one handover past the form when it cannot finish the call (the client declined the first
//! form at once, or left questions open too often).

use ask_core::{
    Answer, AskRequest, Capabilities, Frontend, Outcome, PresentError, Presenter, ValidatedInput,
};
use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitRequest, InputRequest, InputRequests,
    InputRequiredResult,
};
use rmcp::service::ServiceError;

use crate::form::Form;
use crate::handler::{Call, error_result};
use crate::rounds::{self, FormEnd, Handover, MAX_INCOMPLETE_ROUNDS, Round, Stepper};
use crate::route::Chosen;

/// The key of the form in the input requests of a stateless round.
const FORM_REQUEST: &str = "ask_user";

/// The tool error when the form came back incomplete too often and no presenter follows it.
fn gave_up_text() -> String {
    format!(
        "The user left questions open in the form {MAX_INCOMPLETE_ROUNDS} times, and no other \
         presenter was configured; nothing was answered. Proceed without these answers."
    )
}

/// The line for people when the client declined its form at once.
const CANNOT_ASK: &str = "the client declined the form at once, so it cannot ask; the next \
                          presenter takes the call";

impl<'a> Call<'a> {
    /// Takes the call past the client's form: logs why, and gives the next presenter of the list
    /// (the first after `elicitation` that can reach the person) with the answers it starts
    /// from, or the tool error when no presenter follows.
    pub(crate) fn past_form(
        &self,
        handover: Handover,
    ) -> Result<(Chosen<'a>, Vec<Option<Answer>>), String> {
        match &handover {
            Handover::CannotAsk => self.server.say(CANNOT_ASK),
            Handover::GaveUp(_) => self.server.say(&format!(
                "the form came back with questions left open {MAX_INCOMPLETE_ROUNDS} times"
            )),
        }
        let next = self.server.after_form(|| self.web());
        match (next, handover) {
            (Some(next), Handover::CannotAsk) => Ok((next, Vec::new())),
            (Some(next), Handover::GaveUp(given)) => Ok((next, given)),
            (None, Handover::CannotAsk) => Err(self.server.unreachable()),
            (None, Handover::GaveUp(_)) => Err(gave_up_text()),
        }
    }

    /// Asks through the client's form on a protocol where the server sends no requests of its
    /// own (2026-07-28 and later): the result asks the client for input, and the client calls
    /// again with the person's reply and the echoed state.
    pub(crate) async fn in_rounds(
        &self,
        input: ValidatedInput,
        request: &CallToolRequestParams,
    ) -> CallToolResponse {
        let questions = input.questions.clone();
        let client = self.client();
        let form = Form::for_client(&questions, client.as_deref());
        let stepper = Stepper::new(form, self.server.quick_decline);
        let reply = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(FORM_REQUEST));
        match rounds::next_round(&stepper, request.request_state.as_deref(), reply) {
            Round::Ask { form, state } => {
                let request = InputRequest::Elicitation(ElicitRequest::new(form));
                let requests = InputRequests::from([(FORM_REQUEST.to_string(), request)]);
                InputRequiredResult::new(Some(requests), Some(state)).into()
            }
            Round::End(FormEnd::Done(outcome)) => self.run(&Replied(outcome), input).await.into(),
            Round::End(FormEnd::PastForm(handover)) => match self.past_form(handover) {
                Err(text) => error_result(text).into(),
                Ok((next, given)) => {
                    let next = ask_core::Given {
                        inner: &next,
                        given,
                    };
                    self.run(&self.until_disconnect(&next), input).await.into()
                }
            },
            Round::UnreadableReply(error) => error_result(format!(
                "The client's reply to the questions form could not be read: {error}"
            ))
            .into(),
            Round::UnbuildableForm(error) => error_result(format!(
                "The questions form could not be built for the client: {error}"
            ))
            .into(),
        }
    }
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
/// one left incomplete too often, hands the call to the next presenter of the list.
pub(crate) struct ElicitationFrontend<'c, 'a> {
    pub(crate) call: &'c Call<'a>,
}

#[async_trait]
impl Frontend for ElicitationFrontend<'_, '_> {
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
        let client = self.call.client();
        let form = Form::for_client(&request.input.questions, client.as_deref());
        let stepper = Stepper::new(form, self.call.server.quick_decline);
        let peer = &self.call.context.peer;
        let end = rounds::in_one_call(&stepper, |params| async move {
            match peer.create_elicitation(params).await {
                Ok(reply) => Ok(Some(reply)),
                Err(
                    ServiceError::TransportClosed
                    | ServiceError::TransportSend(_)
                    | ServiceError::Cancelled { .. },
                ) => Ok(None),
                Err(error) => Err(PresentError::failed(error)),
            }
        })
        .await?;
        match end {
            FormEnd::Done(outcome) => Ok(outcome),
            FormEnd::PastForm(handover) => {
                let (next, given) = self
                    .call
                    .past_form(handover)
                    .map_err(PresentError::Unasked)?;
                let mut request = request.clone();
                request.given = given;
                next.present(&request).await
            }
        }
    }
}
