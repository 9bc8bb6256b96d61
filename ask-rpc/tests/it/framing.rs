//! Properties of the framing: arbitrary bytes never panic or lose the line structure, and every
//! message survives serialise → frame → parse.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ask_core::AnswerValue;
use ask_rpc::{AnswerInput, AskUserCancel, AskUserResponse, ClientMessage, FrameError, LineReader};
use proptest::prelude::*;

fn lines_of(bytes: &[u8], max: usize) -> Vec<Result<String, FrameError>> {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async {
            let mut reader = LineReader::with_max(bytes, max);
            let mut out = Vec::new();
            while let Some(line) = reader.next_line().await.unwrap() {
                out.push(line);
            }
            out
        })
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,30}"
}

fn client_message() -> impl Strategy<Value = ClientMessage> {
    let answer = prop_oneof![
        text().prop_map(AnswerValue::Text),
        proptest::collection::vec(text(), 0..4).prop_map(AnswerValue::Choices),
    ];
    let input = (
        proptest::option::of(text()),
        answer,
        proptest::option::of(any::<bool>()),
    )
        .prop_map(|(question, answer, was_custom)| AnswerInput {
            question,
            answer,
            selected_option: None,
            was_custom,
            notes: None,
        });
    prop_oneof![
        (text(), proptest::collection::vec(input, 0..4)).prop_map(|(request_id, answers)| {
            ClientMessage::AskUserResponse(AskUserResponse {
                request_id,
                answers,
            })
        }),
        text().prop_map(|request_id| ClientMessage::AskUserCancel(AskUserCancel { request_id })),
    ]
}

proptest! {
    #[test]
    fn arbitrary_bytes_keep_the_line_count(bytes in proptest::collection::vec(any::<u8>(), 0..512), max in 1usize..64) {
        let lines = lines_of(&bytes, max);
        let feeds = bytes.iter().filter(|b| **b == b'\n').count();
        let trailing = usize::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'));
        prop_assert_eq!(lines.len(), feeds + trailing);
        for line in lines.iter().flatten() {
            prop_assert!(line.len() <= max);
            prop_assert!(!line.contains('\n'));
        }
    }

    #[test]
    fn messages_survive_framing(messages in proptest::collection::vec(client_message(), 1..8)) {
        let mut bytes = Vec::new();
        for message in &messages {
            bytes.extend(message.to_line().into_bytes());
        }
        let lines = lines_of(&bytes, ask_rpc::MAX_LINE);
        prop_assert_eq!(lines.len(), messages.len());
        for (line, message) in lines.into_iter().zip(&messages) {
            let parsed: ClientMessage = serde_json::from_str(&line.unwrap()).unwrap();
            prop_assert_eq!(&parsed, message);
        }
    }
}

#[test]
fn a_line_without_end_is_reported_before_the_input_ends() {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            use tokio::io::AsyncWriteExt;
            let (mut client, server) = tokio::io::duplex(4096);
            let mut reader = LineReader::with_max(tokio::io::BufReader::new(server), 1000);
            // A client that writes and writes without a line feed, and keeps the connection open.
            client.write_all(&[b'x'; 3000]).await.unwrap();
            // Without the early report this would wait for a line feed that never comes.
            let line = tokio::time::timeout(std::time::Duration::from_secs(10), reader.next_line())
                .await
                .expect("reported without waiting for the line feed")
                .unwrap()
                .unwrap();
            assert!(
                matches!(line, Err(FrameError::TooLong { read }) if read > 1000),
                "{line:?}"
            );
            // The rest of it is skipped; the next line is whole.
            client.write_all(&[b'x'; 3000]).await.unwrap();
            client.write_all(b"\n{\"ok\":1}\n").await.unwrap();
            let line = reader.next_line().await.unwrap().unwrap();
            assert_eq!(line, Ok("{\"ok\":1}".to_string()));
        });
}
