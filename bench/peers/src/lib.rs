//! What the peer programs share: the list they show.

/// The 50 options of the list, as `bench/peers.py` gives them to `ask-user`.
pub fn options() -> Vec<String> {
    (1..=50).map(|i| format!("Option {i:02}")).collect()
}

/// The question above the list.
pub const QUESTION: &str = "Which one should we use?";

/// How many options a prompt shows at once.
pub const PAGE: usize = 10;
