//! The HTML review of every example model, rendered by headless Chromium:
//! the page must load from a file with no network and its DOM must hold the
//! diagram (an `<svg>` naming every component) and every finding. Skipped,
//! with the reason printed, where Chromium is not installed (CI installs the
//! Debian package `chromium`).

use std::path::{Path, PathBuf};
use std::process::Command;

use nines::cli::{ReviewFormat, review};
use nines::model::Date;

pub(crate) fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// Runs Chromium headless on a local file with every network feature off.
pub(crate) fn headless(
    browser: &Path,
    profile: &Path,
    extra: &[&str],
    page: &Path,
) -> std::process::Output {
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs")
}

#[test]
#[ignore = "slow: starts headless Chromium once per example model; .ci/run runs it with --include-ignored"]
fn html_reports_render_in_headless_chromium() {
    let Some(browser) = chromium() else {
        crate::skip("chromium not installed (apt-get install -y chromium)");
        return;
    };
    let work = std::env::temp_dir().join(format!("nines-html-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let entries = crate::example_models();
    let today = Date::parse("2026-11-30").unwrap();
    for (index, path) in entries.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        let model = nines::model::parse(&text).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let html = review(&stem, &text, &model, today, ReviewFormat::Html);
        let page = work.join(format!("{stem}.html"));
        std::fs::write(&page, &html).unwrap();
        let profile = work.join(format!("profile-{stem}"));
        let output = headless(&browser, &profile, &["--dump-dom"], &page);
        assert!(
            output.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let dom = String::from_utf8_lossy(&output.stdout);
        // Scaled to the page, never clipped: the diagram takes the width it
        // is given (at most its natural width) and keeps its proportions.
        assert!(
            dom.contains("width=\"100%\" viewBox=\"0 0 "),
            "{stem}: the diagram does not scale to the page"
        );
        // The diagram's SVG (the recovery plot comes before it).
        let from = dom.find("class=\"diagram-box\"").unwrap_or(0);
        let start = from
            + dom[from..]
                .find("<svg")
                .unwrap_or_else(|| panic!("{stem}: no <svg> in the rendered page"));
        assert!(
            dom.contains("class=\"plot-box\"") && dom.contains("time after the restart"),
            "{stem}: no recovery plot on the page"
        );
        let end = dom[start..].find("</svg>").map_or(dom.len(), |e| start + e);
        let svg = &dom[start..end];
        for component in &model.components {
            assert!(
                svg.contains(&format!(">{}<", component.name))
                    || svg.contains(&format!(">{} <", component.name)),
                "{stem}: the diagram does not show {}",
                component.name
            );
        }
        let audit = nines::cli::audit_selected(&model, &text, today, &|_| true);
        for finding in &audit.findings {
            let id = finding.id().to_string();
            assert!(
                dom.contains(&format!("id=\"{}\"", id.replace('>', "&gt;"))),
                "{stem}: finding {id} is not on the page",
            );
        }
        if index == 0 {
            let shot = work.join(format!("{stem}.png"));
            let output = headless(
                &browser,
                &work.join("profile-screenshot"),
                &[
                    "--window-size=1400,2000",
                    &format!("--screenshot={}", shot.display()),
                ],
                &page,
            );
            assert!(output.status.success());
            let png = std::fs::read(&shot).unwrap();
            assert!(
                png.starts_with(b"\x89PNG") && png.len() > 20_000,
                "{} bytes",
                png.len()
            );
        }
    }
    std::fs::remove_dir_all(&work).unwrap();
}
