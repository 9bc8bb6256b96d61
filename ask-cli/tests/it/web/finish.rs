//! The page's finish, in Chromium: box-drawing previews drawn without gaps between their rows.
//! The confirmation's own buttons are checked by the cancelling tests beside.

use super::browser_with;
use crate::common;

use serde_json::json;

/// A layout drawn with box-drawing characters, as an option's preview.
fn boxes_call() -> serde_json::Value {
    json!({"questions": [{"question": "Which layout?", "header": "Layout", "options": [
        {"label": "Sidebar", "preview": "┌──────┬─────────┐\n│ nav  │ content │\n│      │         │\n│      │         │\n├──────┴─────────┤\n│ footer         │\n└────────────────┘"},
        {"label": "Top bar"}]}]})
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_draws_box_drawing_previews_without_gaps_between_rows() {
    let _heavy = common::heavy::heavy("web");
    for viewport in ["desktop", "phone"] {
        let (seen, code, _) = browser_with(&boxes_call(), "boxes", viewport);
        // The left line runs through all seven rows without a row of background in it.
        assert_eq!(
            seen["text"],
            boxes_call()["questions"][0]["options"][0]["preview"]
        );
        assert!(seen["inkedRows"].as_u64().unwrap() > 50, "{seen}");
        assert_eq!(seen["gapRows"], 0, "{viewport}: {seen}");
        assert_eq!(code, 130);
    }
}
