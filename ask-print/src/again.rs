//! The model's next call of questions whose answers wait in the pending file (a frontend whose
//! answers go back through that call, as `ask-user mcp`'s): the answers it takes, whether the
//! file is the one pass 1 wrote or one the person wrote by hand in its place.

use std::path::{Path, PathBuf};

use ask_core::{Outcome, ValidatedInput};

use crate::answers::{self, read_file_answers};
use crate::store::Store;
use crate::{
    Commands, Existing, PassTwo, PassTwoStep, PrintError, absolute, answer, existing, state,
};

/// A call of a frontend whose answers go back through the model's next call, with a pending
/// file already there: the same questions get their answers (the `answered` state, or complete
/// answers written into the file, which are taken as pass 2 takes them) and the file is removed,
/// or, while answers are missing, the same instructions; other questions are refused. `None`
/// when no file is there.
pub(crate) fn call_again(
    path: &Path,
    input: &ValidatedInput,
    host: &Commands,
) -> Result<Option<Outcome>, PrintError> {
    let store = Store::new(path);
    let loaded = {
        let _lock = store.lock()?;
        match existing(&store)? {
            None => return Ok(None),
            Some(Existing::Call { .. }) => store.read()?,
            Some(Existing::Unreadable) => None,
        }
    };
    let Some(loaded) =
        loaded.filter(|loaded| loaded.file.asks(input.input()) || loaded.file.shows(input.input()))
    else {
        let state = state(path)?;
        return Err(PrintError::EarlierCallPending {
            path: PathBuf::from(absolute(path)),
            count: state.questions,
            answered: state.answered,
            names: host.names.clone(),
        });
    };
    let shown = absolute(path);
    if loaded.file.fingerprints.is_empty() {
        return hand_written_again(path, input, host);
    }
    match answer(path, PassTwo::Edited, host) {
        Ok(PassTwoStep::Answered(answering)) => {
            let record = answering.remove()?;
            Ok(Some(Outcome::Answered(record.answers)))
        }
        Ok(PassTwoStep::Incomplete { .. }) => Ok(Some(Outcome::Pending {
            instructions: host.instructions(&shown, loaded.file.questions.len()),
            file: shown,
        })),
        Err(error) => Err(error),
    }
}

/// A call of the questions that a hand-written pending file shows (the person wrote it over the
/// one this frontend wrote, without its fingerprints): its answers are read against the questions
/// as the model asked them, so that a label picks its option, and the file is removed once they
/// are complete; while answers are missing, the same instructions.
fn hand_written_again(
    path: &Path,
    input: &ValidatedInput,
    host: &Commands,
) -> Result<Option<Outcome>, PrintError> {
    let store = Store::new(path);
    let _lock = store.lock()?;
    let Some(loaded) = store.read()? else {
        return Ok(None);
    };
    let values: Vec<&serde_json::Value> = loaded.file.questions.iter().map(|q| &q.answer).collect();
    let progress = read_file_answers(input.input(), &values)?;
    let progress = answers::with_file_notes(progress, &loaded.file.questions)?;
    let shown = absolute(path);
    match progress.complete() {
        Some(answers) => {
            store.remove(&loaded)?;
            Ok(Some(Outcome::Answered(answers)))
        }
        None => Ok(Some(Outcome::Pending {
            instructions: host.instructions(&shown, input.questions.len()),
            file: shown,
        })),
    }
}
