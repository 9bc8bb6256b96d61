//! The 50-option list in inquire's `Select`; prints the chosen label.

fn main() -> std::io::Result<()> {
    let chosen = inquire::Select::new(
        ask_user_bench_peers::QUESTION,
        ask_user_bench_peers::options(),
    )
    .with_page_size(ask_user_bench_peers::PAGE)
    .prompt()
    .map_err(std::io::Error::other)?;
    println!("{chosen}");
    Ok(())
}
