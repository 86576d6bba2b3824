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

/// The most any input file may hold: the model, a manifest, a baseline.
pub const MAX_BYTES: usize = crate::model::load::MAX_MODEL_BYTES;

/// Reads at most `limit + 1` bytes from `reader`: a larger input (or an
/// endless one such as `/dev/zero`) is refused after that many bytes,
/// never read whole.
///
/// # Errors
/// The read error, or `None` inside `Ok` when there is more than `limit`.
pub fn read_bounded(reader: impl Read, limit: usize) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader.take(cap).read_to_end(&mut bytes)?;
    Ok((bytes.len() <= limit).then_some(bytes))
}

/// Reads `path`, or standard input for `-`, as UTF-8 text of at most
/// [`MAX_BYTES`]; `what` names it in messages (`the model`), and `hint`
/// says what it should be.
///
/// # Errors
/// A sentence saying what could not be read and why; a file over the cap
/// gives `[model::too-large] …`, which [`super::Terminal::error`] shows as
/// the code.
pub fn read_text(path: &str, what: &str, hint: &str) -> Result<ModelText, String> {
    let (name, result) = if path == "-" {
        (
            "<stdin>".to_owned(),
            read_bounded(std::io::stdin().lock(), MAX_BYTES),
        )
    } else {
        (
            crate::report::escape::terminal(path).into_owned(),
            std::fs::File::open(path).and_then(|f| read_bounded(f, MAX_BYTES)),
        )
    };
    let bytes = match result {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return Err(format!(
                "[model::too-large] {what} {name} is larger than 64 MiB ({MAX_BYTES} bytes), the most nines reads; {hint}: check that this is the right file"
            ));
        }
        Err(err) => {
            let why = match err.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_owned(),
                std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
                std::io::ErrorKind::IsADirectory => format!("it is a directory; give {what} file"),
                _ => err.to_string(),
            };
            return Err(format!("cannot read {what} {name}: {why}"));
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(ModelText { name, text }),
        Err(err) => Err(format!(
            "cannot read {what} {name}: it is not UTF-8 text (invalid byte at offset {}); {hint}",
            err.utf8_error().valid_up_to()
        )),
    }
}
