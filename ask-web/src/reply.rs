//! The replies of the routes: JSON bodies, the JSON sentence of a refusal, and the extractor of
//! a JSON request body. It calls nothing of this crate, so a route and a check may both use it.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub(crate) fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response {
    let body = serde_json::to_string(value).unwrap_or_else(|_| "{}".to_string());
    (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body,
    )
        .into_response()
}

pub(crate) fn error_response(status: StatusCode, message: &str) -> Response {
    json_response(status, &serde_json::json!({ "error": message }))
}

/// `404` for an address that serves nothing.
pub(crate) fn no_such_address() -> Response {
    error_response(StatusCode::NOT_FOUND, "no such address")
}

/// What a JSON body is called in the sentence that refuses it: "the body is not an ask".
pub(crate) trait Named {
    /// "an ask", "a hello", ….
    const NAME: &'static str;
}

/// A JSON body, read by the guard in front of its route ([`crate::http::read_body`]) and
/// parsed; one that does not parse is refused with `400` and the parser's sentence.
#[derive(Debug)]
pub(crate) struct JsonBody<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned + Named> FromRequest<S> for JsonBody<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<Self, Response> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|error| {
                error_response(
                    StatusCode::BAD_REQUEST,
                    &format!("the body is not {}: {error}", T::NAME),
                )
            })
    }
}
