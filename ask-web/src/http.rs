//! What every route shares: the headers every response carries, the refusals, and the checks in
//! front of the routes (the `Host` check, the `Origin` check, the person's session, the JSON
//! content type, and the cap on request bodies) as plain functions, which the page's one
//! middleware ([`page_guard`]) and the agents' ([`crate::inbox`]'s guard) call in turn.

use std::net::IpAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Extensions, HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::SemaphorePermit;

use crate::auth::same_secret;
use crate::reply::{error_response, no_such_address};
use crate::shared::Shared;
use crate::trusted::trust;
use crate::{BODY_TIMEOUT, CSP, MAX_BODY};

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    Host,
    Origin,
    NoSession,
    SpentLink,
}

impl Refusal {
    pub(crate) fn response(self) -> Response {
        let (status, text) = match self {
            Refusal::Host => (
                StatusCode::MISDIRECTED_REQUEST,
                "refused: the Host header must be an IP address or localhost (see SECURITY.md)",
            ),
            Refusal::Origin => (
                StatusCode::FORBIDDEN,
                "refused: the request comes from another origin",
            ),
            Refusal::NoSession => (
                StatusCode::UNAUTHORIZED,
                "refused: open the link that ask-user printed; this browser has no session",
            ),
            Refusal::SpentLink => (
                StatusCode::FORBIDDEN,
                "refused: this link was already used; ask for a fresh link where ask-user runs",
            ),
        };
        (status, text).into_response()
    }

    /// The refusal as a check gives it.
    pub(crate) fn refused(self) -> Refused {
        Box::new(self.response())
    }
}

/// What a check answers instead of the route: a response, boxed, as it is large and a check's
/// `Ok` is not.
pub(crate) type Refused = Box<Response>;

/// The `Host` of a request when it names this machine by an IP address or `localhost`; a
/// name that DNS could point anywhere (rebinding) is refused.
pub(crate) fn checked_host(headers: &HeaderMap) -> Result<&str, Refusal> {
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .ok_or(Refusal::Host)?;
    let name = match host.strip_prefix('[') {
        // [v6]:port
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    if name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok() {
        Ok(host)
    } else {
        Err(Refusal::Host)
    }
}

/// Checks `Origin` (and `Sec-Fetch-Site`): when sent, the page's own origin; a POST must send
/// it. The page's origin is `http://` or `https://` with the request's host and port: one port
/// speaks one of the two, so no other server can hold the origin of the other scheme there.
pub(crate) fn check_origin(
    method: &Method,
    headers: &HeaderMap,
    host: &str,
) -> Result<(), Refusal> {
    if let Some(site) = headers.get("sec-fetch-site")
        && !matches!(site.as_bytes(), b"same-origin" | b"none")
    {
        return Err(Refusal::Origin);
    }
    match headers.get(header::ORIGIN) {
        Some(origin)
            if [
                origin.as_bytes().strip_prefix(b"http://"),
                origin.as_bytes().strip_prefix(b"https://"),
            ]
            .contains(&Some(host.as_bytes())) =>
        {
            Ok(())
        }
        Some(_) => Err(Refusal::Origin),
        None if method == Method::GET => Ok(()),
        None => Err(Refusal::Origin),
    }
}

/// The person's credential, `Authorization: Bearer SESSION`, if the request carries one.
pub(crate) fn session_credential(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
}

/// The headers every response carries: the layer over every route, refusals included.
pub(crate) async fn with_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// What the page's guard checks of a route besides the `Host` and the `Origin`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PageChecks {
    /// The person's credential ([`session`]).
    pub(crate) session: bool,
    /// A body sent as `application/json` ([`json_type`]).
    pub(crate) json: bool,
    /// A body read within the bounds ([`read_body`]).
    pub(crate) body: bool,
}

/// The one middleware in front of each route of the page's side: the `Host` check, the
/// `Origin` check, then what `checks` asks for, in this order: the session, the JSON content
/// type, the body. The route runs only when every check passed, and the body's room is held
/// until it answered.
pub(crate) async fn page_guard(
    State((shared, checks)): State<(Arc<Shared>, PageChecks)>,
    request: Request,
    next: Next,
) -> Response {
    run_checked(page_checks(&shared, checks, request).await, next).await
}

/// What a guard's checks gave: the request to hand the route and the room its body holds, or
/// the refusal.
pub(crate) type Checked<'a> = Result<(Request, Option<SemaphorePermit<'a>>), Refused>;

/// Runs the route of a request that passed its guard's checks, holding its body's room until
/// the route answered; gives the refusal of one that did not.
pub(crate) async fn run_checked(checked: Checked<'_>, next: Next) -> Response {
    match checked {
        Ok((request, room)) => {
            let response = next.run(request).await;
            drop(room);
            response
        }
        Err(refused) => *refused,
    }
}

/// The checks of [`page_guard`]: the request to hand the route, and the room of its body.
async fn page_checks(shared: &Shared, checks: PageChecks, request: Request) -> Checked<'_> {
    same_origin(&request)?;
    if checks.session {
        session(shared, &request)?;
    }
    if checks.json {
        json_type(&request)?;
    }
    if !checks.body {
        return Ok((request, None));
    }
    let (request, room) = read_body(shared, request).await?;
    Ok((request, Some(room)))
}

/// Refuses a request whose `Host` is not an IP address or `localhost`: the first check in
/// front of every address, the fallbacks included.
pub(crate) fn host(request: &Request) -> Result<(), Refused> {
    checked_host(request.headers())
        .map(|_| ())
        .map_err(Refusal::refused)
}

/// Refuses a request of the page that is not for this machine's name ([`checked_host`]) or
/// comes from another origin ([`check_origin`]), except a browser opening the page itself
/// ([`opens_the_page`]).
fn same_origin(request: &Request) -> Result<(), Refused> {
    let host = checked_host(request.headers()).map_err(Refusal::refused)?;
    if opens_the_page(request) {
        return Ok(());
    }
    check_origin(request.method(), request.headers(), host).map_err(Refusal::refused)
}

/// Whether the request is a browser opening the page's document from elsewhere: a top-level
/// navigation (not a frame, not a script's request) to `/`, sent with no `Origin`, such as a
/// link clicked on another site or the file that `ask-user mcp` hands a browser, which the
/// browser marks cross-site. It carries no credential and gets only the page, the same for
/// everyone; the page's script then spends the link from the page's own origin.
fn opens_the_page(request: &Request) -> bool {
    let headers = request.headers();
    let says = |name: &str, value: &[u8]| {
        headers
            .get(name)
            .is_some_and(|sent| sent.as_bytes() == value)
    };
    request.method() == Method::GET
        && request.uri().path() == "/"
        && says("sec-fetch-mode", b"navigate")
        && says("sec-fetch-dest", b"document")
        && !headers.contains_key(header::ORIGIN)
}

/// Whether the request carries the credential of one of the people's sessions; marks its
/// connection trusted when it does.
fn in_session(shared: &Shared, headers: &HeaderMap, extensions: &Extensions) -> bool {
    let session = session_credential(headers)
        .is_some_and(|sent| shared.lock().sessions.iter().any(|s| same_secret(s, sent)));
    if session {
        // The person's connection: never closed to make room for unauthenticated ones.
        trust(extensions);
    }
    session
}

/// Refuses a request without the credential of a session: the page's data is for the person.
fn session(shared: &Shared, request: &Request) -> Result<(), Refused> {
    if in_session(shared, request.headers(), request.extensions()) {
        Ok(())
    } else {
        Err(Refusal::NoSession.refused())
    }
}

/// Every address that serves nothing, and every method an address does not take: from the
/// page's side, as any request that is not the page itself, checked for its `Host`, its origin
/// and its session first.
pub(crate) async fn elsewhere(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let checked = host(&request)
        .and_then(|()| same_origin(&request))
        .and_then(|()| session(&shared, &request));
    match checked {
        Ok(()) => no_such_address(),
        Err(refused) => *refused,
    }
}

/// Refuses a body not sent as `application/json`, before it is read.
fn json_type(request: &Request) -> Result<(), Refused> {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    if json {
        Ok(())
    } else {
        Err(Box::new(error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the body as application/json",
        )))
    }
}

/// Reads the request body of at most [`MAX_BODY`] bytes within [`BODY_TIMEOUT`], once there
/// is room for it (its `Content-Length`, else [`MAX_BODY`]) in the server's share of
/// [`crate::BODY_BUDGET`]: the request with the body read, and that room, which the caller
/// holds until the route answered.
pub(crate) async fn read_body(
    shared: &Shared,
    request: Request,
) -> Result<(Request, SemaphorePermit<'_>), Refused> {
    use axum::body::HttpBody as _;
    let (parts, body) = request.into_parts();
    let size = body
        .size_hint()
        .upper()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(MAX_BODY)
        .min(MAX_BODY);
    let kib = u32::try_from(size.div_ceil(1024).max(1)).unwrap_or(u32::MAX);
    let busy = || {
        error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "ask-user is busy reading other requests; try again",
        )
    };
    let room = match tokio::time::timeout(BODY_TIMEOUT, shared.body_room.acquire_many(kib)).await {
        Ok(Ok(room)) => room,
        _ => return Err(Box::new(busy())),
    };
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await
    {
        Ok(Ok(bytes)) => bytes,
        Err(_) => {
            return Err(Box::new(error_response(
                StatusCode::REQUEST_TIMEOUT,
                "the request body did not arrive in time",
            )));
        }
        Ok(Err(_)) => {
            return Err(Box::new(error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is larger than 4 MiB",
            )));
        }
    };
    Ok((Request::from_parts(parts, Body::from(bytes)), room))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue, Method};

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn host_must_be_an_ip_address_or_localhost() {
        for ok in [
            "127.0.0.1:8080",
            "localhost:1",
            "LOCALHOST",
            "[::1]:99",
            "10.0.0.2",
        ] {
            assert_eq!(checked_host(&headers(&[("host", ok)])), Ok(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "127.0.0.1.nip.io",
            "",
            "localhost.evil:1",
        ] {
            assert_eq!(
                checked_host(&headers(&[("host", bad)])),
                Err(Refusal::Host),
                "{bad}"
            );
        }
        assert_eq!(checked_host(&HeaderMap::new()), Err(Refusal::Host));
    }

    #[test]
    fn origin_must_be_the_page_itself_and_posts_must_send_it() {
        let host = "127.0.0.1:8080";
        let own = headers(&[("origin", "http://127.0.0.1:8080")]);
        assert_eq!(check_origin(&Method::POST, &own, host), Ok(()));
        let own_over_tls = headers(&[("origin", "https://127.0.0.1:8080")]);
        assert_eq!(check_origin(&Method::POST, &own_over_tls, host), Ok(()));
        for other in [
            "https://127.0.0.1:8081",
            "https://127.0.0.1",
            "ftp://127.0.0.1:8080",
        ] {
            let other = headers(&[("origin", other)]);
            assert_eq!(
                check_origin(&Method::POST, &other, host),
                Err(Refusal::Origin)
            );
        }
        let foreign = headers(&[("origin", "http://evil.example")]);
        assert_eq!(
            check_origin(&Method::GET, &foreign, host),
            Err(Refusal::Origin)
        );
        assert_eq!(
            check_origin(&Method::POST, &HeaderMap::new(), host),
            Err(Refusal::Origin)
        );
        assert_eq!(check_origin(&Method::GET, &HeaderMap::new(), host), Ok(()));
        let cross = headers(&[("sec-fetch-site", "cross-site")]);
        assert_eq!(
            check_origin(&Method::GET, &cross, host),
            Err(Refusal::Origin)
        );
    }

    #[test]
    fn the_credential_is_a_bearer_authorization_and_never_a_cookie() {
        let map = headers(&[("authorization", "Bearer abc")]);
        assert_eq!(session_credential(&map), Some("abc"));
        let cookie = headers(&[("cookie", "ask_user_session=abc")]);
        assert_eq!(session_credential(&cookie), None);
        assert_eq!(
            session_credential(&headers(&[("authorization", "Basic abc")])),
            None
        );
    }
}
