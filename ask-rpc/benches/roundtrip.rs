//! Round trips over an in-memory duplex: one ask at a time, and 1,000 asks in flight at once;
//! and the memory an ask in flight holds. Run with `cargo bench -p ask-rpc`.

#![allow(clippy::expect_used, clippy::print_stdout)]
// `#[global_allocator]` expands to the allocator's `realloc` shim, which takes four arguments.
#![allow(clippy::too_many_arguments)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use ask_core::{AnswerValue, AskUserInput, Question};
use ask_rpc::{Client, Connection, ServerMessage};
use tokio::runtime::Runtime;

/// Counts the bytes in use, to measure the memory per ask in flight.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn input() -> AskUserInput {
    AskUserInput {
        questions: vec![Question::choice(
            "Which database should we use?",
            ["PostgreSQL", "SQLite", "MongoDB"],
        )],
        metadata: None,
    }
}

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

/// A connection whose client answers every request at once with the first option.
fn connected() -> Connection {
    runtime().block_on(async {
        let (agent, client) = tokio::io::duplex(1 << 20);
        let (agent_read, agent_write) = tokio::io::split(agent);
        let (client_read, client_write) = tokio::io::split(client);
        tokio::spawn(async move {
            let mut client = Client::new(client_read, client_write);
            while let Ok(Some(message)) = client.next_message().await {
                if let ServerMessage::AskUserRequest(request) = message {
                    let answer = vec![AnswerValue::Text("PostgreSQL".into())];
                    if client.answer(&request.request_id, answer).await.is_err() {
                        break;
                    }
                }
            }
        });
        Connection::new(agent_read, agent_write)
    })
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

fn next_id() -> String {
    format!("req-{}", NEXT_ID.fetch_add(1, Ordering::Relaxed))
}

fn main() {
    memory_per_ask_in_flight();
    divan::main();
}

/// Prints the bytes held per ask while 1,000 asks wait for a client that does not answer.
fn memory_per_ask_in_flight() {
    let rt = runtime();
    rt.block_on(async {
        let (agent, _client) = tokio::io::duplex(64 << 20);
        let (agent_read, agent_write) = tokio::io::split(agent);
        let connection = Connection::new(agent_read, agent_write);
        let input = Arc::new(input());
        tokio::task::yield_now().await;
        let before = LIVE.load(Ordering::Relaxed);
        let mut tasks = Vec::new();
        for i in 0..1000 {
            let (connection, input) = (connection.clone(), Arc::clone(&input));
            tasks.push(tokio::spawn(async move {
                connection.ask(&format!("m-{i}"), &input).await
            }));
        }
        while connection.in_flight() < 1000 {
            tokio::task::yield_now().await;
        }
        connection.flush().await;
        let after = LIVE.load(Ordering::Relaxed);
        println!(
            "memory per ask in flight: {} bytes (1,000 asks waiting; includes their queued lines)",
            (after - before) / 1000
        );
        drop(tasks);
    });
}

#[divan::bench(sample_count = 200)]
fn one_in_flight(bencher: divan::Bencher<'_, '_>) {
    let connection = connected();
    let input = input();
    bencher.bench_local(|| runtime().block_on(connection.ask(&next_id(), &input)));
}

#[divan::bench(sample_count = 20)]
fn thousand_in_flight(bencher: divan::Bencher<'_, '_>) {
    let connection = connected();
    let input = Arc::new(input());
    bencher
        .counter(divan::counter::ItemsCount::new(1000usize))
        .bench_local(|| {
            runtime().block_on(async {
                let tasks: Vec<_> = (0..1000)
                    .map(|_| {
                        let (connection, input) = (connection.clone(), Arc::clone(&input));
                        tokio::spawn(async move { connection.ask(&next_id(), &input).await })
                    })
                    .collect();
                for task in tasks {
                    let _ = task.await;
                }
            })
        });
}
