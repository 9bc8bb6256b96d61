//! The kill -9 torture of `ask-user serve --store`: real `ask-user --via` agents wait, a
//! scripted person answers some of them in a burst through the page's API, `serve` is killed
//! with SIGKILL at a random instant of that burst and started again on the same store and port.
//! In half the iterations some agents are frozen (SIGSTOP) before the burst, so that they miss
//! the restart and the person's answers to them after it take the saved path (`202`); then they
//! are woken (SIGCONT) and attach again, and `serve` is killed once more at a random instant of
//! that re-attachment and started again.
//!
//! Each iteration checks that no answer acknowledged to the person (`200` or `202`) is lost,
//! that every ask still waiting at the kill is listed again by the restarted inbox, that every
//! agent ends with exit code 0 once the person answered the rest, and that no agent gets answers
//! it was not given.
//! `ASK_USER_TORTURE_ITERATIONS` sets the number of iterations (50 by default) and
//! `ASK_USER_TORTURE_SEED` the seed of the random choices (printed at the start, so that a
//! failure can be run again).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long anything of one iteration may take before the test fails: a bound on a test that
/// would otherwise hang, never a pace.
const PATIENCE: Duration = Duration::from_secs(30);

/// The latest instant of the kill after the burst of answers starts: on a machine of two
/// cores, the first answer of a burst is acknowledged after about 5 ms and the last of up to
/// five after about 5 to 20 ms, so that most kills fall between the two.
const KILL_WITHIN: Duration = Duration::from_millis(16);

/// The latest instant of the kill after frozen agents are woken: an agent notices at once that
/// its connection died with the killed `serve`, and its re-attachment (a challenge, then
/// `POST /api/agent/wait`) takes a few milliseconds, so that many kills fall inside it.
const REATTACH_WITHIN: Duration = Duration::from_millis(20);

/// Sends `signal` (`STOP` or `CONT`) to the process `child`.
fn signal(child: &Child, signal: &str) {
    let sent = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal} {}", child.id());
}

/// Two questions: a choice, and a free-text question whose answer names the answer given.
fn call() -> Value {
    json!({"questions": [
        {"question": "Which database should we use?", "header": "Database", "options": [
            {"label": "PostgreSQL", "description": "Relational"},
            {"label": "SQLite", "description": "File-based"}]},
        {"question": "What should we name this service?", "header": "Name"}]})
}

/// The random choices of the test, from a seed (SplitMix64).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A child process killed when the test ends, however it ends: no stray process is left.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A running `ask-user serve --store`.
struct Serve {
    process: Process,
    base: String,
    host: String,
}

impl Serve {
    /// Starts `serve` on `listen` with its token files in `dir` and its asks in `store`, once it
    /// listens; tries again while the port is still held by the killed one.
    fn start(listen: &str, dir: &Path, store: &Path) -> Serve {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let mut child = common::serve_in(common::ask_user(), listen, dir)
                .arg("--store")
                .arg(store)
                .spawn()
                .unwrap();
            let mut stderr = BufReader::new(child.stderr.take().unwrap());
            let mut first = String::new();
            stderr.read_line(&mut first).unwrap();
            if let Some(base) = first
                .strip_prefix("ask-user: inbox at ")
                .and_then(|rest| rest.split(": ").next())
            {
                let base = base.to_string();
                std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
                let host = base.strip_prefix("http://").unwrap().to_string();
                return Serve {
                    process: Process(child),
                    base,
                    host,
                };
            }
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            let _ = child.wait();
            assert!(
                Instant::now() < deadline,
                "serve starts again on {listen}: {first}{rest}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A person's credential on the page: a fresh one-time link from `ask-user serve --link`,
    /// spent as the page spends it.
    fn visit(&self, dir: &Path) -> String {
        let fresh = common::ask_user()
            .args(["serve", "--link", "--via", &self.base])
            .env("XDG_RUNTIME_DIR", dir)
            .env_remove("ASK_USER_LINK_TOKEN")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&fresh.stderr);
        assert_eq!(fresh.status.code(), Some(0), "{said}");
        let link = said.trim().rsplit(' ').next().unwrap();
        common::spend_link(link).unwrap()
    }

    /// The page's list of asks.
    fn asks(&self, credential: &str) -> Vec<Value> {
        let reply = common::http(
            &self.host,
            "GET",
            "/api/asks",
            &[("Host", &self.host), ("Authorization", credential)],
            "",
        );
        assert_eq!(reply.status, 200, "{reply:?}");
        let list: Value = serde_json::from_str(&reply.body).unwrap();
        list["asks"].as_array().unwrap().clone()
    }
}

/// The person answers the ask `id` with `name`, as the page does: the status of the reply, or
/// the error of a connection that ended before one.
fn answer(host: &str, credential: &str, id: &str, name: &str) -> std::io::Result<u16> {
    let body = json!({"answers": [{"answer": "SQLite"}, {"answer": name}]}).to_string();
    let mut stream = std::net::TcpStream::connect(host)?;
    stream.set_read_timeout(Some(PATIENCE))?;
    let request = format!(
        "POST /api/asks/{id}/answer HTTP/1.1\r\nConnection: close\r\nHost: {host}\r\n\
         Authorization: {credential}\r\nOrigin: http://{host}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes())?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw)?;
    raw.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))
}

/// One agent of an iteration.
struct Agent {
    process: Process,
    name: String,
    /// Every name the person answered its ask with.
    given: Vec<String>,
    /// The names whose answer the person was told was sent or saved (`200` or `202`).
    acknowledged: Vec<String>,
}

/// What the whole run counted.
#[derive(Debug, Default)]
struct Counts {
    iterations: u64,
    acknowledged: u64,
    lost: u64,
    reattached: u64,
    /// Kills that came while the burst had some of its answers acknowledged and some not.
    mid_burst: u64,
    /// Answers of a burst not acknowledged before the kill that still reached their agent.
    unacknowledged_kept: u64,
    /// Agents frozen across a restart.
    frozen: u64,
    /// Answers acknowledged as saved for an agent not connected (`202`).
    saved: u64,
    /// Kills while frozen agents, just woken, attached again.
    reattach_kills: u64,
}

/// The page's entry for the agent `name`, if listed.
fn listed<'a>(asks: &'a [Value], name: &str) -> Option<&'a Value> {
    asks.iter().find(|ask| ask["agent"] == name)
}

#[test]
fn serve_killed_at_random_instants_loses_no_acknowledged_answer() {
    let _heavy = common::heavy::heavy("inbox_torture");
    let iterations: u64 = std::env::var("ASK_USER_TORTURE_ITERATIONS")
        .ok()
        .map_or(50, |n| {
            n.parse().expect("ASK_USER_TORTURE_ITERATIONS is a number")
        });
    let seed: u64 = std::env::var("ASK_USER_TORTURE_SEED").ok().map_or_else(
        || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        },
        |seed| seed.parse().expect("ASK_USER_TORTURE_SEED is a number"),
    );
    // Shown with a failure: ASK_USER_TORTURE_SEED runs the same choices again.
    println!("ASK_USER_TORTURE_SEED={seed}, {iterations} iterations");
    let mut random = Random(seed);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("asks.db");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let call_file = dir.path().join("call.json");
    std::fs::write(&call_file, call().to_string()).unwrap();
    let listen = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let mut serve = Serve::start(&listen, dir.path(), &store);
    let mut counts = Counts::default();
    let started = Instant::now();
    for iteration in 0..iterations {
        let at = format!("seed {seed}, iteration {iteration}");
        let credential = serve.visit(dir.path());
        let mut agents: Vec<Agent> = (0..2 + random.below(4))
            .map(|number| {
                let name = format!("agent-{iteration}-{number}");
                let child = common::ask_user()
                    .args(["--via", &serve.base, "--agent-name", &name, "--call-id"])
                    .arg(format!("call-{iteration}-{number}"))
                    .arg(&call_file)
                    .current_dir(&work)
                    .env("XDG_RUNTIME_DIR", dir.path())
                    .env_remove("ASK_USER_VIA_TOKEN")
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                Agent {
                    process: Process(child),
                    name,
                    given: Vec::new(),
                    acknowledged: Vec::new(),
                }
            })
            .collect();
        // Every agent's ask is on the page before the burst.
        let deadline = Instant::now() + PATIENCE;
        let ids: Vec<String> = loop {
            let asks = serve.asks(&credential);
            let ids: Option<Vec<String>> = agents
                .iter()
                .map(|agent| {
                    listed(&asks, &agent.name)
                        .filter(|ask| ask["state"] == "waiting_for_user")
                        .map(|ask| ask["requestId"].as_str().unwrap().to_string())
                })
                .collect();
            if let Some(ids) = ids {
                break ids;
            }
            assert!(Instant::now() < deadline, "{at}: the asks arrive: {asks:?}");
            std::thread::sleep(Duration::from_millis(5));
        };
        // Some agents frozen, in half the iterations: they miss the restart.
        let frozen: Vec<usize> = if random.below(2) == 0 {
            (0..agents.len()).filter(|_| random.below(2) == 0).collect()
        } else {
            Vec::new()
        };
        for &index in &frozen {
            signal(&agents[index].process.0, "STOP");
        }
        counts.frozen += frozen.len() as u64;
        // The burst: a random subset answered at once, and the kill at a random instant of it.
        let chosen: Vec<usize> = (0..agents.len()).filter(|_| random.below(3) != 0).collect();
        let kill_after = Duration::from_micros(random.below(KILL_WITHIN.as_micros() as u64));
        let burst: Vec<_> = chosen
            .iter()
            .map(|&index| {
                let name = format!("answer-{iteration}-{index}-first");
                agents[index].given.push(name.clone());
                let (host, credential, id) =
                    (serve.host.clone(), credential.clone(), ids[index].clone());
                std::thread::spawn(move || answer(&host, &credential, &id, &name))
            })
            .collect();
        std::thread::sleep(kill_after);
        serve.process.0.kill().unwrap();
        serve.process.0.wait().unwrap();
        let mut acknowledged_now = 0;
        for (thread, &index) in burst.into_iter().zip(&chosen) {
            let status = thread.join().unwrap();
            counts.saved += u64::from(matches!(status, Ok(202)));
            if let Ok(200 | 202) = status {
                let name = agents[index].given.last().unwrap().clone();
                agents[index].acknowledged.push(name);
                acknowledged_now += 1;
            }
        }
        if acknowledged_now > 0 && acknowledged_now < chosen.len() {
            counts.mid_burst += 1;
        }
        serve = Serve::start(&listen, dir.path(), &store);
        let credential = serve.visit(dir.path());
        let asks = serve.asks(&credential);
        // Every agent still waiting has its ask listed again: waiting, or answered and kept
        // for it.
        let mut waiting_again = Vec::new();
        for (index, agent) in agents.iter_mut().enumerate() {
            match agent.process.0.try_wait().unwrap() {
                Some(status) => assert_eq!(
                    status.code(),
                    Some(0),
                    "{at}: {} ended before the person answered the rest",
                    agent.name
                ),
                None => {
                    let Some(ask) = listed(&asks, &agent.name) else {
                        // An answer delivered just before the kill ends the ask for good, so
                        // the restarted inbox lists it no more, while the agent may not have
                        // exited yet: it must have been answered in the burst, and the check
                        // below proves it got an answer the person gave.
                        assert!(
                            !agent.given.is_empty(),
                            "{at}: the ask of {}, waiting at the kill and never answered, is \
                             not listed after the restart: {asks:?}",
                            agent.name
                        );
                        continue;
                    };
                    let state = ask["state"].as_str().unwrap();
                    assert!(
                        state == "waiting_for_user" || state == "answered",
                        "{at}: {} is listed as {state}",
                        agent.name
                    );
                    counts.reattached += 1;
                    if state == "waiting_for_user" {
                        waiting_again.push(index);
                    }
                }
            }
        }
        // The person answers the rest on the restarted inbox.
        for index in waiting_again {
            let name = format!("answer-{iteration}-{index}-again");
            agents[index].given.push(name.clone());
            let status = answer(&serve.host, &credential, &ids[index], &name);
            assert!(
                matches!(status, Ok(200 | 202)),
                "{at}: the answer to {} after the restart: {status:?}",
                agents[index].name
            );
            if frozen.contains(&index) {
                assert_eq!(
                    status.as_ref().ok(),
                    Some(&202),
                    "{at}: a frozen agent's answer is saved for it"
                );
            }
            counts.saved += u64::from(matches!(status, Ok(202)));
            agents[index].acknowledged.push(name);
        }
        // The frozen agents wake and attach again, and `serve` is killed at a random instant of
        // that, then started again: a saved answer still reaches its agent.
        if !frozen.is_empty() {
            for &index in &frozen {
                signal(&agents[index].process.0, "CONT");
            }
            let kill_after =
                Duration::from_micros(random.below(REATTACH_WITHIN.as_micros() as u64));
            std::thread::sleep(kill_after);
            serve.process.0.kill().unwrap();
            serve.process.0.wait().unwrap();
            counts.reattach_kills += 1;
            serve = Serve::start(&listen, dir.path(), &store);
        }
        // Every agent ends with the answers acknowledged to the person, and none other.
        let deadline = Instant::now() + PATIENCE;
        for agent in &mut agents {
            while agent.process.0.try_wait().unwrap().is_none() {
                assert!(
                    Instant::now() < deadline,
                    "{at}: {} never got its answer (given {:?}, acknowledged {:?})",
                    agent.name,
                    agent.given,
                    agent.acknowledged
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            let mut out = String::new();
            let mut err = String::new();
            agent
                .process
                .0
                .stdout
                .take()
                .unwrap()
                .read_to_string(&mut out)
                .unwrap();
            agent
                .process
                .0
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            let code = agent.process.0.wait().unwrap().code();
            assert_eq!(code, Some(0), "{at}: {}: {err}", agent.name);
            let result: Value = serde_json::from_str(&out).unwrap();
            let got = result["answers"][1]["answer"].as_str().unwrap_or_default();
            assert_eq!(result["answers"][0]["answer"], "SQLite", "{at}: {result}");
            assert!(
                agent.given.iter().any(|name| name == got),
                "{at}: {} got {got:?}, which the person never gave it ({:?})",
                agent.name,
                agent.given
            );
            if got.ends_with("-first") && !agent.acknowledged.iter().any(|name| name == got) {
                counts.unacknowledged_kept += 1;
            }
            counts.acknowledged += agent.acknowledged.len() as u64;
            let lost = agent
                .acknowledged
                .iter()
                .filter(|name| *name != got)
                .count() as u64;
            counts.lost += lost;
            assert_eq!(
                lost, 0,
                "{at}: {} got {got:?}, but the person was told {:?} was sent",
                agent.name, agent.acknowledged
            );
        }
        counts.iterations += 1;
    }
    println!(
        "{} iterations in {:.1} s: {} answers acknowledged, {} lost, {} agents re-attached, {} \
         kills in the middle of a burst, {} answers unacknowledged at the kill that reached \
         their agent; {} agents frozen across a restart, {} answers saved for an agent away, \
         {} kills while frozen agents attached again",
        counts.iterations,
        started.elapsed().as_secs_f64(),
        counts.acknowledged,
        counts.lost,
        counts.reattached,
        counts.mid_burst,
        counts.unacknowledged_kept,
        counts.frozen,
        counts.saved,
        counts.reattach_kills
    );
    assert_eq!(counts.lost, 0);
}
