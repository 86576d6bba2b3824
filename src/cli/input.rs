//! Reading the model: a file or `-` for standard input, as UTF-8 text.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A model's text and the name to show in diagnostics.
pub struct ModelText {
    /// The name shown in diagnostics (`<stdin>` for standard input).
    pub name: String,
    /// The text.
    pub text: String,
}

/// Writes `text` to `path`, or to standard output without one or for `-`.
/// A file is written whole or not at all: to a temporary file in the same
/// folder, then renamed over the target. Writing over one of `inputs` (the
/// model or a manifest, also through a link) is refused: an `-o` mistake
/// must not destroy the file it was run on.
pub fn write_output(
    path: Option<&str>,
    text: &str,
    inputs: &[&str],
    terminal: &mut super::Terminal,
) -> Result<(), super::CliError> {
    match path {
        Some(path) if path != "-" => write_file(path, text, inputs)?,
        _ => terminal
            .out
            .write_all(text.as_bytes())
            .map_err(|err| format!("cannot write the output: {err}"))?,
    }
    Ok(())
}

/// Whether `a` and `b` name the same existing file (links followed).
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(first), Ok(second)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if first.dev() == second.dev() && first.ino() == second.ino() {
            return true;
        }
    }
    let _ = (first, second);
    matches!(
        (std::fs::canonicalize(a), std::fs::canonicalize(b)),
        (Ok(x), Ok(y)) if x == y
    )
}

/// Writes `text` to the file `path` atomically, unless it is an input.
///
/// # Errors
/// The path is an input or a folder, or the write failed.
pub fn write_file(path: &str, text: &str, inputs: &[&str]) -> Result<(), String> {
    let target = Path::new(path);
    let shown = crate::render::escape::terminal(path);
    if let Some(input) = inputs
        .iter()
        .find(|input| **input != "-" && same_file(Path::new(input), target))
    {
        let input = crate::render::escape::terminal(input);
        return Err(format!(
            "-o {shown} is the input file {input}: writing there would destroy it; name another file, or `-o -` for standard output"
        ));
    }
    if target.is_dir() {
        return Err(format!(
            "cannot write {shown}: it is a directory; name a file"
        ));
    }
    let folder = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let temporary = folder.join(format!(".{file_name}.nines-{}.tmp", std::process::id()));
    let result = std::fs::File::create(&temporary)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, target));
    if let Err(err) = result {
        let _ = std::fs::remove_file(&temporary);
        return Err(format!("cannot write {shown}: {err}"));
    }
    Ok(())
}

/// Reads the model at `path`, or standard input for `-`.
///
/// # Errors
/// A sentence saying what could not be read and why.
pub fn read(path: &str) -> Result<ModelText, String> {
    read_within(
        path,
        "the model",
        "a model is a YAML file",
        crate::model::load::MAX_LARGE_MODEL_BYTES,
    )
}

/// The most any other input file may hold: a manifest, a baseline.
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
/// gives `[model::too-large] …`, which [`super::CliError::Message`] shows as
/// the code.
pub fn read_text(path: &str, what: &str, hint: &str) -> Result<ModelText, String> {
    read_within(path, what, hint, MAX_BYTES)
}

/// [`read_text`] with a cap of `limit` bytes (models may be larger than
/// other inputs: they are read in pieces).
fn read_within(path: &str, what: &str, hint: &str, limit: usize) -> Result<ModelText, String> {
    let (name, result) = if path == "-" {
        (
            "<stdin>".to_owned(),
            read_bounded(std::io::stdin().lock(), limit),
        )
    } else {
        (
            crate::render::escape::terminal(path).into_owned(),
            std::fs::File::open(path).and_then(|f| read_bounded(f, limit)),
        )
    };
    let bytes = match result {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return Err(format!(
                "[model::too-large] {what} {name} is larger than {} MiB ({limit} bytes), the most nines reads; {hint}: check that this is the right file",
                limit >> 20
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
