//! The page's finish, in Chromium: the "Other" box labelled apart from the note, a long answer
//! warned of as it is typed and shortened in the review, Esc on every review, and box-drawing
//! previews drawn without gaps between their rows. The recap of what was sent and the
//! confirmation's own buttons are checked by the answering, cancelling and secret tests beside.

use super::{browser, browser_with};
use crate::common;

use serde_json::json;

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_labels_the_other_box_of_a_choice_apart_from_the_note_on_a_phone() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, _) = browser("other-label", "phone");
    // A single choice and a multi-select: each box has its own visible label, above it, and
    // the note's label comes after the box.
    assert_eq!(
        seen["labels"],
        json!(["Your own answer", "Your own answer"]),
        "{seen}"
    );
    assert_eq!(seen["above"], json!([true, true]), "{seen}");
    assert_eq!(
        seen["notes"],
        json!([
            "Note on this answer (optional)",
            "Note on this answer (optional)"
        ])
    );
    // Its name still says which question it answers, and holds the visible words.
    assert_eq!(
        seen["names"],
        json!([
            "Your own answer to: Which database should we use?",
            "Your own answer to: Which features should we include?"
        ])
    );
    assert_eq!(seen["labelFocuses"], "a0-q1-other-text");
    assert_eq!(seen["otherChosen"], true);
    assert_eq!(code, 130);
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_warns_of_a_long_answer_as_it_is_typed_and_shortens_it_in_the_review_on_a_phone() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, out) = browser("long-review", "phone");
    // Nothing at 2,000 characters; the warning with the 2,001st, before any Next or Submit.
    assert_eq!(seen["countAtLimit"], "");
    assert_eq!(
        seen["countPast"],
        "Answer is long (2,001 chars): Submit asks before sending it."
    );
    assert_eq!(
        seen["count"],
        "Answer is long (2,500 chars): Submit asks before sending it."
    );
    assert_eq!(seen["countVisible"], true);
    // The review shows the answer's first three lines and how much more there is, so that its
    // title and Submit are on the phone's screen together.
    let line = "c".repeat(49);
    let shortened = format!(
        "Which database should we use?\nSQLite\nWhich features should we include?\nREST API\n\
         What should we name this service?\n{line}\n{line}\n{line}\n… 2,351 more characters"
    );
    assert_eq!(seen["review"], shortened.as_str());
    assert_eq!(seen["fits"], true, "{seen}");
    // Submit then asks, as the terminal does, with Yes under the keyboard: Enter sends.
    assert_eq!(
        seen["dialog"],
        "Answer is long (2,500 chars). Continue anyway?"
    );
    assert_eq!(seen["dialogFocus"], "confirm-yes");
    assert_eq!(seen["recap"], shortened.as_str());
    assert_eq!(code, 0);
    assert_eq!(
        out["answers"][2]["answer"],
        format!("{line}\n").repeat(50).as_str()
    );
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_esc_on_the_review_reached_by_next_asks_before_discarding_on_a_desktop() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, out) = browser("escape", "desktop");
    assert_eq!(seen["selectedTab"], "✓ Submit");
    // With a question still open, with every one answered, and after a click on the text.
    let asked = "Discard 1 answer?";
    assert_eq!(seen["openReview"], asked, "{seen}");
    assert_eq!(seen["kept"], true);
    assert_eq!(seen["answeredReview"], "Discard 2 answers?");
    assert_eq!(seen["focusedAfterClick"], "BODY");
    assert_eq!(seen["afterClick"], "Discard 2 answers?");
    assert_eq!(code, 130);
    assert_eq!(out["cancelled"], true);
}

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
