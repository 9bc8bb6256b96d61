//! The 50-option list in dialoguer's `Select`; prints the chosen label.

fn main() -> std::io::Result<()> {
    let options = ask_user_bench_peers::options();
    let chosen = dialoguer::Select::new()
        .with_prompt(ask_user_bench_peers::QUESTION)
        .items(&options)
        .default(0)
        .max_length(ask_user_bench_peers::PAGE)
        .interact()
        .map_err(std::io::Error::other)?;
    println!("{}", options[chosen]);
    Ok(())
}
