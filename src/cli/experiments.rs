//! `nines experiments MODEL [--top N] [--only LOSS] [--format table|json|chaostoolkit|chaos-mesh|fis] [-o DIR]`:
//! the experiments worth running, each credible loss with the model's
//! prediction (docs/experiments.md). The plan is `analyze::experiments`;
//! this file resolves the arguments and writes the files.

use clap::{Args, ValueEnum};

use super::budget::{argument, both};
use super::{CliError, Outcome, Terminal, input, today};
use crate::analyze::experiments::{self, Options, Plan};
use crate::model::Duration;
use crate::model::units::Probability;
use crate::render::experiments::{self as render, Settings, chaos_mesh, chaostoolkit, fis};
use crate::render::table;

/// Output formats of `experiments`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExperimentsFormat {
    /// The game-day plan for a terminal.
    Table,
    /// The plan as JSON (docs/json.md).
    Json,
    /// Chaos Toolkit experiments (JSON).
    Chaostoolkit,
    /// Chaos Mesh manifests (`PodChaos`, `NetworkChaos`).
    ChaosMesh,
    /// AWS FIS experiment templates (JSON).
    Fis,
}

/// Arguments of `nines experiments`.
#[derive(Debug, Clone, Args)]
pub struct ExperimentsArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// At most this many experiments, most informative first (0: all).
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Only the experiment of this loss (`az-a`, `links-cache`, `api:1`, `slow:db`).
    #[arg(long, value_name = "LOSS")]
    pub only: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExperimentsFormat::Table)]
    pub format: ExperimentsFormat,
    /// Write one file per experiment into this folder (created if
    /// missing), plus `index.json`.
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output: Option<String>,
    /// The hypothesis' tolerance under the predicted served share.
    #[arg(long, default_value = "2%")]
    pub margin: String,
    /// How long each experiment injects its loss.
    #[arg(long, default_value = "5m")]
    pub duration: String,
    /// The pod label (or AWS tag) whose value is a component's name.
    #[arg(long, value_name = "KEY", default_value = "app.kubernetes.io/name")]
    pub label: String,
    /// The Kubernetes namespace of the components.
    #[arg(long, default_value = "default")]
    pub namespace: String,
    /// The `CloudWatch` alarm that stops a FIS experiment (its name or ARN).
    #[arg(long, value_name = "NAME")]
    pub alarm: Option<String>,
    /// The Prometheus the probes query.
    #[arg(long, value_name = "URL", default_value = "http://prometheus:9090")]
    pub prometheus: String,
    /// "Now" for expiry dates and drill ages, YYYY-MM-DD (default: today, UTC).
    #[arg(long)]
    pub today: Option<String>,
}

pub(super) fn run(args: &ExperimentsArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let margin = argument::<Probability>("--margin", &args.margin, "margin", terminal);
    let duration = argument::<Duration>("--duration", &args.duration, "duration", terminal);
    let (margin, duration) = both(margin, duration)?;
    if duration.0 == 0 {
        return Err("--duration must be above 0, such as `5m`".to_owned().into());
    }
    let today = today(args.today.as_deref())?;
    let source = input::read(&args.model)?;
    let model = super::parse_model(&source.name, &source.text, terminal)?;
    let options = Options {
        today,
        margin: margin.0,
        duration_s: duration.seconds(),
        only: args.only.clone(),
        top: args.top,
    };
    let plan = experiments::plan(&model, &source.text, &options)?;
    let settings = Settings {
        label: args.label.clone(),
        namespace: args.namespace.clone(),
        alarm: args.alarm.clone(),
        prometheus: args.prometheus.clone(),
    };
    match &args.output {
        Some(dir) if dir != "-" => {
            write_folder(dir, &plan, args, &settings, &source.name, terminal)
        }
        _ => write_stdout(&plan, args, &settings, &source.name, terminal),
    }?;
    Ok(Outcome::Pass)
}

/// One experiment as the chosen format's file: its extension and text
/// (the table and JSON formats write each experiment as JSON).
fn file(
    plan: &Plan,
    at: usize,
    format: ExperimentsFormat,
    settings: &Settings,
) -> (&'static str, String) {
    let e = &plan.experiments[at];
    match format {
        ExperimentsFormat::Chaostoolkit => (
            chaostoolkit::EXTENSION,
            chaostoolkit::render(plan, e, settings),
        ),
        ExperimentsFormat::ChaosMesh => {
            (chaos_mesh::EXTENSION, chaos_mesh::render(plan, e, settings))
        }
        ExperimentsFormat::Fis => (fis::EXTENSION, fis::render(plan, e, settings)),
        ExperimentsFormat::Table | ExperimentsFormat::Json => {
            let mut text = serde_json::to_string_pretty(e).unwrap_or_default();
            text.push('\n');
            ("json", text)
        }
    }
}

fn write_stdout(
    plan: &Plan,
    args: &ExperimentsArgs,
    settings: &Settings,
    name: &str,
    terminal: &mut Terminal,
) -> Result<(), CliError> {
    let written = match args.format {
        ExperimentsFormat::Table => {
            let shown = crate::render::escape::terminal(name);
            let mut plan = plan.clone();
            escape_for_terminal(&mut plan);
            render::render_table(
                &plan,
                &shown,
                table::Style {
                    width: terminal.width,
                    color: terminal.color_out,
                },
                terminal.out,
            )
        }
        ExperimentsFormat::Json => render::render_json(plan, terminal.out),
        format => {
            // A chaos tool runs what it is given: several experiments in
            // one stream would run at once.
            if plan.experiments.len() != 1 {
                return Err(format!(
                    "{} experiments for one file: give -o DIR for one file each, or --only LOSS or --top 1 for one on standard output",
                    plan.experiments.len()
                )
                .into());
            }
            let (_, text) = file(plan, 0, format, settings);
            terminal.out.write_all(text.as_bytes())
        }
    };
    written.map_err(|err| CliError::from(format!("cannot write the output: {err}")))
}

/// `-o DIR`: `NN-slug.EXT` per experiment, and `index.json` (the plan with
/// each experiment's file); the files written are listed on stderr.
fn write_folder(
    dir: &str,
    plan: &Plan,
    args: &ExperimentsArgs,
    settings: &Settings,
    name: &str,
    terminal: &mut Terminal,
) -> Result<(), CliError> {
    let shown = crate::render::escape::terminal(dir);
    std::fs::create_dir_all(dir).map_err(|err| format!("cannot create {shown}: {err}"))?;
    let width = plan.experiments.len().to_string().len().max(2);
    let mut files = Vec::new();
    for at in 0..plan.experiments.len() {
        let e = &plan.experiments[at];
        let (extension, text) = file(plan, at, args.format, settings);
        let file_name = format!("{:0width$}-{}.{extension}", e.rank, e.slug);
        let path = std::path::Path::new(dir).join(&file_name);
        input::write_file(&path.to_string_lossy(), &text, &[name])?;
        files.push(file_name);
    }
    let index = serde_json::json!({ "plan": plan, "files": files });
    let mut text = serde_json::to_string_pretty(&index).unwrap_or_default();
    text.push('\n');
    let path = std::path::Path::new(dir).join("index.json");
    input::write_file(&path.to_string_lossy(), &text, &[name])?;
    for f in files
        .iter()
        .chain(std::iter::once(&"index.json".to_owned()))
    {
        let _ = writeln!(terminal.err, "wrote {shown}/{f}");
    }
    Ok(())
}

/// Names in the plan shown as escapes, for a terminal.
fn escape_for_terminal(plan: &mut Plan) {
    let esc = |s: &mut String| *s = crate::render::escape::terminal(s).into_owned();
    esc(&mut plan.system);
    for e in &mut plan.experiments {
        esc(&mut e.loss);
        esc(&mut e.title);
        esc(&mut e.why);
        e.what_if.iter_mut().for_each(esc);
        e.blast_radius.iter_mut().for_each(esc);
        e.fires.iter_mut().for_each(esc);
        e.behind.iter_mut().for_each(esc);
        for p in &mut e.predictions {
            esc(&mut p.entrypoint);
        }
        for o in &mut e.overloaded {
            esc(&mut o.component);
        }
        match &mut e.injection {
            crate::analyze::experiments::Injection::StopDomains { domains, pods } => {
                for d in domains {
                    esc(&mut d.name);
                    esc(&mut d.kind);
                }
                for p in pods.iter_mut() {
                    esc(&mut p.component);
                }
            }
            crate::analyze::experiments::Injection::KillGroup { group, pods } => {
                esc(group);
                for p in pods.iter_mut() {
                    esc(&mut p.component);
                }
            }
            crate::analyze::experiments::Injection::KillInstances { component, .. } => {
                esc(component);
            }
            crate::analyze::experiments::Injection::Delay {
                component, callers, ..
            } => {
                esc(component);
                callers.iter_mut().for_each(esc);
            }
        }
    }
}
