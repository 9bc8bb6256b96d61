//! The 50-option list in cliclack's `select`; prints the chosen label.

fn main() -> std::io::Result<()> {
    let options = ask_user_bench_peers::options();
    let mut select =
        cliclack::select(ask_user_bench_peers::QUESTION).max_rows(ask_user_bench_peers::PAGE);
    for option in &options {
        select = select.item(option.as_str(), option.as_str(), "");
    }
    let chosen = select.interact()?;
    println!("{chosen}");
    Ok(())
}
