//! `fn main() {}` built with the same profile as the peers and as ask-user's `dist` binary: the
//! floor of a whole-process figure (`bench/peers.py` compares `ask-user validate` with it).

fn main() {}
