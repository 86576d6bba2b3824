//! The dependency check: which folder of `src/` may import which. Data
//! flows one way (`model → engine → analyze → render → cli`, ARCHITECTURE.md):
//! a `use` or path that points up the pipeline fails here, with the file and
//! line. Test modules (`#[cfg(test)]` to the end of a file, and `tests.rs`)
//! may reach further, and comments are not code.

use std::path::{Path, PathBuf};

/// The top-level modules of the crate, each with those it may import.
/// `cli/`, `lib.rs` and `main.rs` sit on top and may import anything.
const LAYERS: &[(&str, &[&str])] = &[
    ("human", &[]),
    ("escape", &[]),
    ("model", &["human", "escape"]),
    ("generate", &["model"]),
    ("engine", &["model", "human", "escape"]),
    ("import", &["model", "human", "escape"]),
    ("recover", &["model", "engine", "human"]),
    (
        "analyze",
        &["model", "engine", "import", "recover", "human"],
    ),
    (
        "render",
        &["model", "engine", "analyze", "recover", "human", "escape"],
    ),
];

/// The arrows that still point up: (folder, module it imports, why and
/// what removes it). A new one fails the test, and so does one that is
/// gone, so this list stays true.
const KNOWN: &[(&str, &str, &str)] = &[];

/// Renderer modules of `render/`: nothing below `render/` may import them.
const RENDERERS: &[&str] = &[
    "baseline",
    "budget",
    "diagnostics",
    "diagram",
    "github",
    "json",
    "markdown",
    "recovery",
    "recovery_plot",
    "review",
    "sarif",
    "table",
    "what_if",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The names inside the braces `text` starts with (first level only).
fn braced(text: &str) -> Vec<&str> {
    let Some(inner) = text.strip_prefix('{') else {
        return vec![ident(text)];
    };
    let end = inner.find('}').unwrap_or(inner.len());
    inner[..end]
        .split(',')
        .map(|item| ident(item.trim()))
        .filter(|name| !name.is_empty())
        .collect()
}

/// What a line of code names: `(module, its submodules)` for every
/// `crate::module::sub`, `crate::module::{a, b}` and `crate::{module, …}`.
fn named(line: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if rest.starts_with('{') {
            out.extend(braced(rest).into_iter().map(|m| (m.to_owned(), Vec::new())));
            continue;
        }
        let module = ident(rest);
        let subs = rest[module.len()..]
            .strip_prefix("::")
            .map(|after| braced(after).into_iter().map(str::to_owned).collect())
            .unwrap_or_default();
        out.push((module.to_owned(), subs));
    }
    out
}

/// The lines of `text` that are code outside the test module.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim_start().starts_with("#[cfg(test)]")
                && lines.get(i + 1).is_some_and(|next| {
                    let next = next.trim_start();
                    // `mod tests`, or one other test modules reach
                    // (`pub(super) mod tests`).
                    next.starts_with("mod ") || (next.starts_with("pub") && next.contains(" mod "))
                })
        })
        .unwrap_or(lines.len());
    text.lines()
        .take(end)
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .map(|(i, line)| (i + 1, line))
}

#[test]
fn no_module_imports_one_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut used: Vec<(&str, String)> = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let top = ident(relative.trim_start_matches("src/")).to_owned();
        let Some(&(top, allowed)) = LAYERS.iter().find(|(name, _)| *name == top) else {
            continue;
        };
        if relative.ends_with("/tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (line, code) in code_lines(&text) {
            for (module, subs) in named(code) {
                if module == "render" && top != "render" {
                    for sub in subs.iter().filter(|s| RENDERERS.contains(&s.as_str())) {
                        wrong.push(format!(
                            "{relative}:{line}: {top}/ uses the renderer render::{sub}"
                        ));
                    }
                }
                if module == top || allowed.contains(&module.as_str()) {
                    continue;
                }
                if KNOWN.iter().any(|(t, m, _)| *t == top && *m == module) {
                    used.push((top, module));
                    continue;
                }
                wrong.push(format!(
                    "{relative}:{line}: {top}/ imports {module}/, which is above it"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the pipeline:\n{}",
        wrong.join("\n")
    );
    for (top, module, why) in KNOWN {
        assert!(
            used.iter().any(|(t, m)| t == top && m == module),
            "{top}/ no longer imports {module}/ ({why}): remove it from KNOWN"
        );
    }
}

#[test]
fn the_check_reads_every_form_of_path() {
    let names = |line: &str| -> Vec<(String, Vec<String>)> { named(line) };
    assert_eq!(
        names("use crate::render::{table, Audit};"),
        [(
            "render".to_owned(),
            vec!["table".to_owned(), "Audit".to_owned()]
        )]
    );
    assert_eq!(
        names("    let x = crate::render::table::render(r);"),
        [("render".to_owned(), vec!["table".to_owned()])]
    );
    assert_eq!(
        names("use crate::{engine, model::Model};"),
        [("engine".to_owned(), vec![]), ("model".to_owned(), vec![])]
    );
    let test_module = "use crate::model;\n#[cfg(test)]\nmod tests {\n    use crate::cli;\n}\n";
    assert_eq!(code_lines(test_module).count(), 1);
}
