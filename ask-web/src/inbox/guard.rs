//! The one middleware in front of each route of the agents' API ([`agents_guard`]), and the
//! answer to another method than `POST`, which passes the same first checks ([`use_post`]).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

use super::proof::{self, Role};
use crate::http::{Checked, host, read_body, run_checked};
use crate::reply::error_response;
use crate::shared::Shared;

/// What an agents' route asks its request to prove.
#[derive(Debug, Clone, Copy)]
pub(super) enum Needs {
    /// Nothing: the `hello` that starts a proof, and the addresses that serve nothing.
    Nothing,
    /// That it holds the agents' token.
    Agent,
    /// That it holds the people's token.
    People,
    /// The capability of a waiting ask, which the route finds as [`proof::AskOf`].
    Capability,
}

/// What the agents' guard checks of a route besides the `Host` and the absence of a browser.
#[derive(Debug, Clone, Copy)]
pub(super) struct AgentChecks {
    /// What the request proves.
    pub(super) needs: Needs,
    /// A body read within the bounds ([`read_body`]).
    pub(super) body: bool,
}

/// The one middleware in front of each route of the agents' API: the `Host` check, the refusal
/// of a browser, then what `checks` asks for, in this order: the proof, the body. The route runs
/// only when every check passed, and the body's room is held until it answered.
pub(super) async fn agents_guard(
    State((shared, checks)): State<(Arc<Shared>, AgentChecks)>,
    request: Request,
    next: Next,
) -> Response {
    run_checked(agent_checks(&shared, checks, request).await, next).await
}

/// The checks of [`agents_guard`]: the request to hand the route, and the room of its body.
async fn agent_checks(shared: &Shared, checks: AgentChecks, mut request: Request) -> Checked<'_> {
    host(&request)?;
    proof::no_browsers(&request)?;
    match checks.needs {
        Needs::Nothing => {}
        Needs::Agent => proof::proves(shared, Role::Agent, &request)?,
        Needs::People => proof::proves(shared, Role::People, &request)?,
        Needs::Capability => {
            let ask = proof::capability(shared, &request)?;
            request.extensions_mut().insert(ask);
        }
    }
    if !checks.body {
        return Ok((request, None));
    }
    let (request, room) = read_body(shared, request).await?;
    Ok((request, Some(room)))
}

/// `405` for an agents' address asked with another method than `POST`, once the request passed
/// the `Host` check and the refusal of a browser.
pub(super) async fn use_post(request: Request) -> Response {
    match host(&request).and_then(|()| proof::no_browsers(&request)) {
        Ok(()) => error_response(StatusCode::METHOD_NOT_ALLOWED, "use POST"),
        Err(refused) => *refused,
    }
}
