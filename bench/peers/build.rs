//! `fn main() {}` is linked as `ask-user`'s optimised Linux binary is (at a fixed address, see
//! `ask-cli/build.rs`), so that the `validate` comparison measures only what `ask-user` adds.
//! The prompt libraries keep the toolchain's default, as they are shipped.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo::rustc-link-arg-bin=empty=-no-pie");
    }
}
