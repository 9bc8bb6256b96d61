//! The names of the ways a call reaches a person, one set for the whole product: flags
//! (`ask-user mcp --present`), environment variables and, where they match, the `mode` of records.

use std::fmt;
use std::str::FromStr;

use crate::result::Mode;

/// One way of showing the questions to a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Presenter {
    /// A form in an MCP client (elicitation in form mode).
    Elicitation,
    /// A page the MCP client opens (elicitation in URL mode).
    Url,
    /// A local web page.
    Web,
    /// The terminal UI on the controlling terminal.
    Tui,
    /// The pending-questions file (print mode).
    File,
    /// An external client over the JSON-lines protocol.
    Rpc,
    /// Frames drawn inside a host's own terminal UI.
    Embedded,
}

impl Presenter {
    /// Every presenter, in the order of the list above.
    pub const ALL: [Presenter; 7] = [
        Presenter::Elicitation,
        Presenter::Url,
        Presenter::Web,
        Presenter::Tui,
        Presenter::File,
        Presenter::Rpc,
        Presenter::Embedded,
    ];

    /// The name used in flags and environment variables.
    pub fn as_str(self) -> &'static str {
        match self {
            Presenter::Elicitation => "elicitation",
            Presenter::Url => "url",
            Presenter::Web => "web",
            Presenter::Tui => "tui",
            Presenter::File => "file",
            Presenter::Rpc => "rpc",
            Presenter::Embedded => "embedded",
        }
    }

    /// The `mode` a record of a call answered this way holds: `file` is recorded as `print`,
    /// `tui` as `interactive`, an MCP client's form as `rpc` and its page (`url`) as `web`. The
    /// values on disk are the record's own and never change.
    pub fn record_mode(self) -> Mode {
        match self {
            Presenter::Tui => Mode::Interactive,
            Presenter::File => Mode::Print,
            Presenter::Rpc | Presenter::Elicitation => Mode::Rpc,
            Presenter::Embedded => Mode::Embedded,
            Presenter::Web | Presenter::Url => Mode::Web,
        }
    }

    /// Reads a comma-separated list such as `elicitation,file`, keeping the order and dropping
    /// repeats; spaces around names are ignored.
    ///
    /// ```
    /// use ask_core::Presenter;
    /// assert_eq!(Presenter::parse_list("elicitation, tui,file"),
    ///            Ok(vec![Presenter::Elicitation, Presenter::Tui, Presenter::File]));
    /// assert!(Presenter::parse_list("form").unwrap_err().to_string().contains("`form`"));
    /// ```
    pub fn parse_list(text: &str) -> Result<Vec<Presenter>, PresenterError> {
        let mut list = Vec::new();
        for name in text.split(',').map(str::trim) {
            let presenter: Presenter = name.parse()?;
            if !list.contains(&presenter) {
                list.push(presenter);
            }
        }
        Ok(list)
    }
}

impl fmt::Display for Presenter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A presenter name that names no presenter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PresenterError {
    /// An empty name, as between two commas.
    #[error("an empty presenter name; the names are {}", presenter_names())]
    Empty,
    /// A name that is not one of [`Presenter::ALL`].
    #[error("unknown presenter `{name}`; the names are {}", presenter_names())]
    Unknown {
        /// The name given.
        name: String,
    },
}

/// The presenters' names, comma-separated.
fn presenter_names() -> String {
    let names: Vec<&str> = Presenter::ALL.iter().map(|p| p.as_str()).collect();
    names.join(", ")
}

impl FromStr for Presenter {
    type Err = PresenterError;

    fn from_str(name: &str) -> Result<Presenter, PresenterError> {
        Presenter::ALL
            .into_iter()
            .find(|presenter| presenter.as_str() == name)
            .ok_or_else(|| {
                if name.is_empty() {
                    PresenterError::Empty
                } else {
                    PresenterError::Unknown {
                        name: name.to_string(),
                    }
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_map_to_record_modes() {
        for presenter in Presenter::ALL {
            assert_eq!(presenter.as_str().parse(), Ok(presenter));
        }
        assert_eq!(Presenter::File.record_mode(), Mode::Print);
        assert_eq!(Presenter::Tui.record_mode(), Mode::Interactive);
        assert_eq!(Presenter::Web.record_mode(), Mode::Web);
        assert_eq!(Presenter::Url.record_mode(), Mode::Web);
        assert_eq!(Presenter::Elicitation.record_mode(), Mode::Rpc);
    }

    #[test]
    fn lists_keep_their_order_and_refuse_unknown_or_empty_names() {
        assert_eq!(
            Presenter::parse_list("file,elicitation,file"),
            Ok(vec![Presenter::File, Presenter::Elicitation])
        );
        assert_eq!(
            Presenter::parse_list("elicitation,,file").map_err(|e| e.to_string()),
            Err(
                "an empty presenter name; the names are elicitation, url, web, tui, file, rpc, \
                 embedded"
                    .to_string()
            )
        );
        assert!(Presenter::parse_list("TUI").is_err());
    }
}
