//! Why a command could not run, as a value. Every subcommand returns
//! `Result<Outcome, CliError>` and passes problems up with `?`; [`super::run`]
//! prints the error once, to standard error, and exits with code 2.

use std::io;

/// A command that could not run (exit code 2).
#[derive(Debug)]
pub enum CliError {
    /// One sentence, printed as `error: …`; a message that starts with a
    /// code in brackets (`[model::too-large] …`) is printed as
    /// `error[model::too-large]: …`.
    Message(String),
    /// Standard-error text already rendered (located diagnostics, and the
    /// lines that close them), printed as it is.
    Diagnostics(String),
    /// Standard output could not be written (a closed pipe): there is
    /// nowhere left to say so, so nothing more is printed.
    Output(io::Error),
}

impl From<String> for CliError {
    fn from(message: String) -> Self {
        Self::Message(message)
    }
}

impl From<io::Error> for CliError {
    fn from(err: io::Error) -> Self {
        Self::Output(err)
    }
}

impl From<serde_json::Error> for CliError {
    fn from(err: serde_json::Error) -> Self {
        Self::Output(err.into())
    }
}

impl CliError {
    /// Rendered diagnostics followed by one error line.
    #[must_use]
    pub fn diagnostics_then(mut rendered: String, message: &str) -> Self {
        rendered.push_str(&line(message));
        Self::Diagnostics(rendered)
    }

    /// What is printed on standard error for this error.
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            Self::Message(message) => line(message),
            Self::Diagnostics(text) => text.clone(),
            Self::Output(_) => String::new(),
        }
    }
}

/// The error line for `message`: `error: …\n`, or `error[code]: …\n` when
/// the message starts with a code in brackets (`[model::too-large] …`).
#[must_use]
pub fn line(message: &str) -> String {
    let coded = message
        .strip_prefix('[')
        .and_then(|rest| rest.split_once("] "))
        .filter(|(code, _)| code.contains("::") && !code.contains(' '));
    match coded {
        Some((code, rest)) => format!("error[{code}]: {rest}\n"),
        None => format!("error: {message}\n"),
    }
}
