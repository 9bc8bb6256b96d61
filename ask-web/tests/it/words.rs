//! The page's words (`GET /text.json`): in the language given to the presenter, else in the
//! browser's `Accept-Language`, else English; the same for a browser without a session.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ask_core::lang::Lang;
use ask_web::WebFrontend;
use ask_web::testing::CSP;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use tower::ServiceExt;

/// `GET /text.json` of a page that speaks `fixed`, with `Accept-Language: accept` when given.
async fn words(fixed: Option<Lang>, accept: Option<&str>) -> Value {
    let web = WebFrontend::bind("127.0.0.1:0".parse().unwrap())
        .unwrap()
        .speaking(fixed);
    let mut request = Request::get("/text.json").header(header::HOST, "127.0.0.1");
    if let Some(accept) = accept {
        request = request.header(header::ACCEPT_LANGUAGE, accept);
    }
    let response = web
        .router()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers();
    assert_eq!(headers[header::CONTENT_SECURITY_POLICY], CSP);
    assert_eq!(headers[header::VARY], "accept-language");
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    serde_json::from_slice(&body).unwrap()
}

#[tokio::test]
async fn the_browser_language_decides_unless_one_was_given() {
    let cases = [
        (
            None,
            None,
            "en",
            "Your answers were sent. You can close this page.",
        ),
        (
            None,
            Some("de-DE,de;q=0.9,en;q=0.8"),
            "de",
            "Deine Antworten wurden gesendet. Du kannst diese Seite schließen.",
        ),
        (
            None,
            Some("pt-BR, fr;q=0.4, es;q=0.6"),
            "es",
            "Sus respuestas se enviaron. Puede cerrar esta página.",
        ),
        (
            None,
            Some("nl, pt;q=0.5"),
            "en",
            "Your answers were sent. You can close this page.",
        ),
        (
            Some(Lang::Ja),
            Some("de"),
            "ja",
            "回答を送信しました。このページは閉じてかまいません。",
        ),
        (
            Some(Lang::Zh),
            None,
            "zh",
            "你的回答已发送。可以关闭此页面了。",
        ),
    ];
    for (fixed, accept, lang, sent) in cases {
        let words = words(fixed, accept).await;
        assert_eq!(words["lang"], lang, "{fixed:?} {accept:?}");
        assert_eq!(words["text"]["sent"], sent, "{fixed:?} {accept:?}");
        assert!(words["text"]["discard"]["one"].is_string());
    }
}
