//! `nines import k8s PATH… [-o FILE] [--zones a,b,c] [--system NAME]`: a
//! first model written from Kubernetes manifests, with notes and a summary
//! of what was read on standard error.

use std::fmt::Write as _;
use std::path::Path;

use clap::{Args, Subcommand};

use super::{CliError, Outcome, Terminal, input};
use crate::import::{self, Options, Source};
use crate::model::units::is_name;
use crate::render::diagnostics;

/// Arguments of `nines import`.
#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// What to import from.
    #[command(subcommand)]
    pub from: ImportFrom,
}

/// The sources a model can be imported from.
#[derive(Debug, Clone, Subcommand)]
pub enum ImportFrom {
    /// Kubernetes manifests: Deployments, StatefulSets and DaemonSets become
    /// components, Services and ConfigMaps give dependencies (docs/import.md).
    #[command(name = "k8s", visible_alias = "kubernetes")]
    K8s(K8sArgs),
    /// The service graph a tracing backend measured: Jaeger or Zipkin
    /// dependency lists, or the OpenTelemetry service-graph metrics
    /// (docs/import.md); `--merge` adds it to an existing model.
    Traces(super::traces::TracesArgs),
}

/// Arguments of `nines import k8s`.
#[derive(Debug, Clone, Args)]
pub struct K8sArgs {
    /// Manifest files, folders (read recursively: *.yaml, *.yml) or `-` for standard input.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Write the model to this file instead of standard output (`-`: standard output).
    #[arg(short = 'o', long)]
    pub output: Option<String>,
    /// The zones that workloads spread by zone are placed across
    /// (comma-separated; default: three placeholders, zone-a,zone-b,zone-c).
    #[arg(long, value_delimiter = ',')]
    pub zones: Vec<String>,
    /// The system's name (default: the first namespace, else the first file's name).
    #[arg(long)]
    pub system: Option<String>,
}

pub(super) fn run(args: &ImportArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    match &args.from {
        ImportFrom::K8s(args) => kubernetes(args, terminal),
        ImportFrom::Traces(args) => super::traces::run(args, terminal),
    }
}

/// How deep folders are followed.
const MAX_DEPTH: usize = 32;

fn kubernetes(args: &K8sArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let options = resolve(args)?;
    let mut files = Vec::new();
    for path in &args.paths {
        collect(Path::new(path), 0, &mut files)?;
    }
    if files.is_empty() {
        return Err(format!(
            "no .yaml or .yml file in {}; give manifest files or folders",
            args.paths.join(", ")
        )
        .into());
    }
    let mut sources = Vec::new();
    let mut total = 0usize;
    for file in &files {
        let text = input::read_text(file, "the manifest", "Kubernetes manifests are YAML files")?;
        if total + text.text.len() > input::MAX_BYTES {
            return Err(format!(
                "[model::too-large] the manifests up to {} hold more than 64 MiB ({} bytes) together, the most nines reads; give only the folders with the workloads to import",
                text.name,
                input::MAX_BYTES
            )
            .into());
        }
        total += text.text.len();
        sources.push(Source {
            name: text.name,
            text: text.text,
        });
    }
    let imported = import::kubernetes(&sources, &options)
        .map_err(|failure| failed(&failure, &sources, terminal))?;
    for note in &imported.notes {
        let at = note.origin.map_or_else(String::new, |origin| {
            let source = &sources[origin.source];
            let (line, column) = origin.span.line_column(&source.text);
            format!("{}:{line}:{column}: ", source.name)
        });
        let message = crate::render::escape::terminal_lines(&note.message);
        let _ = writeln!(terminal.err, "note: {at}{message}");
    }
    let summary = imported.summary.to_string();
    let summary = crate::render::escape::terminal_lines(&summary);
    let _ = writeln!(terminal.err, "{summary}");
    let inputs: Vec<&str> = files.iter().map(String::as_str).collect();
    input::write_output(args.output.as_deref(), &imported.model, &inputs, terminal)?;
    Ok(Outcome::Pass)
}

/// Why nothing was imported: the problems of each source, located, their
/// count, and whether no workload was found.
fn failed(failure: &import::Failure, sources: &[Source], terminal: &Terminal) -> CliError {
    let mut out = String::new();
    for (index, source) in sources.iter().enumerate() {
        let problems: Vec<_> = failure
            .problems
            .iter()
            .filter(|(s, _)| *s == index)
            .map(|(_, p)| p.clone())
            .collect();
        if !problems.is_empty() {
            out.push_str(&diagnostics::render_problems(
                &source.name,
                &source.text,
                &problems,
                terminal.width,
                terminal.color_err,
            ));
        }
    }
    let count = failure.problems.len();
    if count > 0 {
        let _ = writeln!(
            out,
            "{count} problem{} found; nothing was imported",
            if count == 1 { "" } else { "s" }
        );
    }
    if failure.no_workload {
        out.push_str(&super::error::line(
            "no Deployment, StatefulSet or DaemonSet in the inputs: nothing to import",
        ));
    }
    CliError::Diagnostics(out)
}

fn resolve(args: &K8sArgs) -> Result<Options, String> {
    let mut zones: Vec<String> = Vec::new();
    for zone in &args.zones {
        let zone = zone.trim();
        if !is_name(zone) {
            return Err(format!(
                "--zones: `{}` is not a valid name (a letter or digit, then letters, digits, `.`, `_` or `-`)",
                crate::model::error::printable(zone)
            ));
        }
        if zones.iter().any(|z| z == zone) {
            return Err(format!("--zones: `{zone}` is listed twice"));
        }
        zones.push(zone.to_owned());
    }
    Ok(Options {
        zones,
        system: args.system.clone(),
    })
}

/// The manifest files under `path`: the path itself when it is not a
/// folder (reading it reports what is wrong), else its `*.yaml` and `*.yml`
/// files, recursively, sorted, leaving out hidden entries.
fn collect(path: &Path, depth: usize, files: &mut Vec<String>) -> Result<(), String> {
    if !path.is_dir() {
        files.push(path.to_string_lossy().into_owned());
        return Ok(());
    }
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let entries = std::fs::read_dir(path).map_err(|err| {
        let shown = path.to_string_lossy();
        format!(
            "cannot read the folder {}: {err}",
            crate::render::escape::terminal(&shown)
        )
    })?;
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        // Linked folders are not followed: they could loop.
        if kind.is_dir() {
            collect(&path, depth + 1, files)?;
        } else if path.is_file()
            && Path::new(name.as_ref())
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
        {
            files.push(path.to_string_lossy().into_owned());
        }
    }
    Ok(())
}
