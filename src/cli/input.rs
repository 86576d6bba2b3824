//! Reading the model: a file or `-` for standard input, as UTF-8 text.

use std::io::Read;

/// A model's text and the name to show in diagnostics.
pub struct ModelText {
    /// The name shown in diagnostics (`<stdin>` for standard input).
    pub name: String,
    /// The text.
    pub text: String,
}

/// Writes `text` to `path`, or to standard output without one.
pub fn write_output(
    path: Option<&str>,
    text: &str,
    terminal: &mut super::Terminal,
) -> super::Outcome {
    let written = match path {
        Some(path) => {
            std::fs::write(path, text).map_err(|err| format!("cannot write {path}: {err}"))
        }
        None => terminal
            .out
            .write_all(text.as_bytes())
            .map_err(|err| format!("cannot write the output: {err}")),
    };
    match written {
        Ok(()) => super::Outcome::Pass,
        Err(message) => {
            terminal.error(&message);
            super::Outcome::Invalid
        }
    }
}

/// Reads the model at `path`, or standard input for `-`.
///
/// # Errors
/// A sentence saying what could not be read and why.
pub fn read(path: &str) -> Result<ModelText, String> {
    read_text(path, "the model", "a model is a YAML file")
}

/// Reads `path`, or standard input for `-`, as UTF-8 text; `what` names it
/// in messages (`the model`), and `hint` says what it should be.
///
/// # Errors
/// A sentence saying what could not be read and why.
pub fn read_text(path: &str, what: &str, hint: &str) -> Result<ModelText, String> {
    let mut bytes = Vec::new();
    let (name, result) = if path == "-" {
        (
            "<stdin>".to_owned(),
            std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
        )
    } else {
        (
            path.to_owned(),
            std::fs::File::open(path)
                .and_then(|mut f| f.read_to_end(&mut bytes))
                .map(|_| ()),
        )
    };
    if let Err(err) = result {
        let why = match err.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_owned(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
            std::io::ErrorKind::IsADirectory => format!("it is a directory; give {what} file"),
            _ => err.to_string(),
        };
        return Err(format!("cannot read {what} {name}: {why}"));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(ModelText { name, text }),
        Err(err) => Err(format!(
            "cannot read {what} {name}: it is not UTF-8 text (invalid byte at offset {}); {hint}",
            err.utf8_error().valid_up_to()
        )),
    }
}
