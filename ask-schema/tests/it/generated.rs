//! The checked-in `schema/*.json` files must match what the code generates.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

#[test]
fn schema_files_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut stale = Vec::new();
    for (path, contents) in ask_schema::generated_files() {
        let on_disk = std::fs::read_to_string(root.join(&path)).unwrap_or_default();
        if on_disk.replace("\r\n", "\n") != contents {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "{} out of date; run `cargo xtask schema` and commit the result",
        stale.join(", ")
    );
}
