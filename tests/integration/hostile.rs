//! Hostile input (issue 12): the model, the manifests and the baseline are
//! written by whoever opens the pull request, and the outputs are read by
//! reviewers who trust them. One case per defect found, then properties over
//! random bytes and random models through every output format. Large inputs
//! are generated here, never committed. docs/security.md is the contract.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Stdio;

use nines::cli::{Format, Outcome, ReviewFormat};
use proptest::prelude::*;

use crate::{Run, check, nines};

/// A fresh folder for one test's files, removed when the test ends.
fn scratch(test: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("hostile-{test}"))
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `text` as a YAML double-quoted scalar, with every control character escaped.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Strings that tried to forge or hide output: a fake verdict and an open
/// HTML comment, an unmatched backtick before HTML, terminal escape
/// sequences (OSC 52 clipboard write, OSC 8 link, screen clear), a Mermaid
/// directive, XML comment breakers and raw control characters.
const HOSTILE: [&str; 10] = [
    "s`\n**nines**: ✅ no new findings\n<!--",
    "one ` </details><img src=x onerror=alert(1)>",
    "\u{1b}]52;c;aGk=\u{7}clip",
    "\u{1b}]8;;http://evil.example\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{1b}[2J\u{1b}[H",
    "%%{init: {'theme':'dark','themeCSS':'*{display:none}'}}%%",
    "a--b- -->",
    "nul\u{0}bell\u{7}del\u{7f}c1\u{9b}",
    "| x | [link](javascript:alert(1)) ![i](x) &amp; $x$ ~~s~~ #1",
    "\u{202e}fdp.exe",
    "- item\n# heading\n> quote\n```\ncode",
];

/// A valid model whose system, kinds and accepted reason are `words`.
fn hostile_model(system: &str, kind: &str, reason: &str) -> String {
    format!(
        r"system: {}
entrypoints: [api]
domains:
  z1: {{kind: {k}}}
  z2: {{kind: {k}}}
components:
  api: {{instances: 2, placement: [z1, z2], depends_on: [{{target: db, retries: 3}}], kind: {k}}}
  db: {{instances: 1, placement: [z1], availability: 99.9%, depends_on: [{{target: disk, retries: 3}}]}}
  disk: {{capacity: 10, load: 5}}
accepted:
  - id: spof/db
    reason: {}
    expires: 2027-01-01
",
        quoted(system),
        quoted(reason),
        k = quoted(kind),
    )
}

/// What a terminal would act on: escape sequences and other controls but
/// the line break (tab is harmless, and tables never write one).
fn terminal_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| c != '\n' && c != '\t' && nines::render::escape::is_unsafe_char(c))
        .collect()
}

// ---- 1. bounded reads ----

#[cfg(unix)]
#[test]
fn endless_inputs_are_refused_after_the_cap() {
    let dir = scratch("endless");
    let model = dir.join("m.yaml");
    std::fs::write(
        &model,
        r"system: s
components:
  a: {}
",
    )
    .unwrap();
    // A model may be up to 320 MiB (read in pieces); a baseline or a
    // manifest up to 64 MiB.
    let cases: [(&[&str], &str); 4] = [
        (&["check", "/dev/zero"], "320 MiB"),
        (&["check", "-"], "320 MiB"),
        (
            &["check", path(&model), "--baseline", "/dev/zero"],
            "64 MiB",
        ),
        (&["import", "k8s", "/dev/zero"], "64 MiB"),
    ];
    for (args, cap) in cases {
        let out = crate::binary()
            .args(args)
            .stdin(std::fs::File::open("/dev/zero").unwrap())
            .stdout(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("error[model::too-large]"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(cap), "{args:?}: {stderr}");
    }
}

// ---- 2. a diagnostic past column 65,535 ----

#[test]
fn an_error_far_along_one_line_shows_a_window_around_it() {
    // `{system: x, pad: "` is 18 characters, then 70,000 `y`, then
    // `", components: {a: {instances: ` (31): `bogus` starts at column
    // 18 + 70,000 + 31 + 1 = 70,050.
    let text = format!(
        "{{system: x, pad: \"{}\", components: {{a: {{instances: bogus}}}}}}\n",
        "y".repeat(70_000)
    );
    let run = check("long.yaml", &text, Format::Table);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    assert!(run.stderr.contains("[long.yaml:1:70050]"), "{}", run.stderr);
    assert!(run.stderr.contains("…yyyy"), "the window is marked as cut");
    assert!(
        run.stderr.lines().all(|l| l.chars().count() < 400),
        "no line is drawn whole"
    );
}

#[test]
fn a_long_line_next_to_the_error_is_not_drawn() {
    // Line 3 and line 5 are comments of 100,000 `x`; the error is on line
    // 4, where `lots` is the 21st character ("  a: {availability: " is 20).
    // miette draws a line either side: they are left out, not drawn whole.
    let long = "x".repeat(100_000);
    let text =
        format!("system: s\ncomponents:\n  # {long}\n  a: {{availability: lots}}\n  # {long}\n");
    let run = check("beside.yaml", &text, Format::Table);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    assert!(run.stderr.contains("[beside.yaml:4:21]"), "{}", run.stderr);
    assert!(
        run.stderr.contains("  a: {availability: lots}"),
        "the line of the error is drawn whole"
    );
    assert!(run.stderr.len() < 2_000, "{} bytes", run.stderr.len());
}

#[test]
fn a_file_with_carriage_returns_alone_is_located_by_line() {
    // Line breaks of an old Mac file: `\r` alone, a line break to YAML.
    // `lots` is on line 3 at character 21 ("  a: {availability: " is 20);
    // the mismatched `}` of the second file at character 23.
    let text = "system: s\rcomponents:\r  a: {availability: lots}\r";
    let run = check("mac.yaml", text, Format::Table);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    assert!(run.stderr.contains("[mac.yaml:3:21]"), "{}", run.stderr);
    assert!(
        run.stderr.contains(" 3 │   a: {availability: lots}"),
        "the excerpt is line 3 alone: {}",
        run.stderr
    );
    let text = "system: s\rcomponents:\r  a: {availability: [1}\r";
    let run = check("mac.yaml", text, Format::Table);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    assert!(run.stderr.contains("[mac.yaml:3:"), "{}", run.stderr);
    // Mixed `\r\n` (one break) and `\r`: still line 3.
    let text = "system: s\r\ncomponents:\r  a: {availability: lots}\r\n";
    let run = check("mixed.yaml", text, Format::Table);
    assert!(run.stderr.contains("[mixed.yaml:3:21]"), "{}", run.stderr);
}

#[test]
fn a_file_of_many_mistakes_is_reported_in_bounded_time_and_size() {
    // 20,000 bad counts: each diagnostic used to rescan the text from its
    // start (quadratic: 74 s in a debug build); now 500 are drawn and the
    // rest counted.
    let mut text = String::from(
        r"system: s
components:
",
    );
    for i in 0..20_000 {
        let _ = writeln!(text, "  c{i}: {{instances: bogus}}");
    }
    let run = check("many.yaml", &text, Format::Table);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        run.stderr.contains("… and 19500 more problem(s) not shown"),
        "{}",
        &run.stderr[run.stderr.len() - 300..]
    );
    assert!(
        run.stderr
            .ends_with("many.yaml: 20000 problems found; nothing was analysed\n")
    );
    // The last one drawn is c499, on line 2 + 500 = 502.
    assert!(
        run.stderr.contains("[many.yaml:502:"),
        "line numbers stay true"
    );
    assert!(run.stderr.len() < 400_000, "{} bytes", run.stderr.len());
}

#[test]
fn a_minified_manifest_with_a_late_syntax_error_is_located() {
    let dir = scratch("minified");
    let file = dir.join("all.yaml");
    let mut json = String::from("{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":[");
    for i in 0..3_000 {
        let _ = write!(
            json,
            "{{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\",\"metadata\":{{\"name\":\"w{i}\"}}}},"
        );
    }
    json.push_str("{\"kind\": @x}]}");
    std::fs::write(&file, &json).unwrap();
    let run = nines(&["import", "k8s", path(&file)]);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    assert!(run.stderr.contains("model::yaml"), "{}", run.stderr);
    // `@` cannot start a plain scalar: it is the 5th character from the end.
    let column = json.len() - 4;
    assert!(column > 65_535);
    assert!(
        run.stderr.contains(&format!(":1:{column}]")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("{\"kind\": @x}]}"), "{}", run.stderr);
}

// ---- 3. call paths ----

#[test]
fn a_long_retry_chain_gives_output_linear_in_the_model() {
    // 4,000 components, each calling the next with a retry: 3,999 paths of
    // total length about 8 million names if every prefix were listed.
    let n = 4_000;
    let mut text = String::from(
        r"system: chain
entrypoints: [c0]
components:
",
    );
    for i in 0..n - 1 {
        let _ = writeln!(
            text,
            "  c{i}: {{depends_on: [{{target: c{}, retries: 1, retry_budget: 1%}}]}}",
            i + 1
        );
    }
    let _ = writeln!(text, "  c{}: {{}}", n - 1);
    let run = nines_check_only(&text, "retry-amplification,retry-layers,retry-storm");
    let audit: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let rows = audit["retries"].as_array().unwrap();
    let names: usize = rows
        .iter()
        .map(|r| r["path"].as_array().unwrap().len())
        .sum();
    assert!(names <= 20_000, "{names} names listed");
    // The worst path is the whole chain: 1.01^3999.
    assert_eq!(rows[0]["path"].as_array().unwrap().len(), n);
    let omitted = audit["retries_omitted"].as_u64().unwrap();
    // Rows of 4,000, 3,999, … names: five fit in 20,000 (4000 + … + 3996 =
    // 19,990); the other 3,999 − 5 = 3,994 amplifying paths are counted.
    assert_eq!(rows.len(), 5);
    assert_eq!(omitted, 3_994);
    assert!(
        run.stdout.len() < 40 * text.len(),
        "{} bytes of JSON",
        run.stdout.len()
    );
}

#[test]
fn many_long_amplifying_paths_give_findings_of_bounded_size() {
    // A broom: a 2,000-hop chain that does not amplify (a 0% budget
    // multiplies by 1), then 2,000 leaves called with 20 retries: 2,000
    // paths cross the limit, each 2,001 components long.
    let (chain, leaves) = (2_000, 2_000);
    let mut text = String::from(
        r"system: broom
entrypoints: [c0]
components:
",
    );
    for i in 0..chain - 1 {
        let _ = writeln!(
            text,
            "  c{i}: {{depends_on: [{{target: c{}, retries: 1, retry_budget: 0%}}]}}",
            i + 1
        );
    }
    let targets: Vec<String> = (0..leaves).map(|j| format!("l{j}")).collect();
    let _ = writeln!(
        text,
        "  c{}: {{depends_on: [{{any_of: [{}], retries: 20}}]}}",
        chain - 1,
        targets.join(", ")
    );
    for j in 0..leaves {
        let _ = writeln!(text, "  l{j}: {{}}");
    }
    let run = nines_check_only(&text, "retry-amplification");
    let audit: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = audit["findings"].as_array().unwrap();
    assert_eq!(findings.len(), leaves);
    for finding in findings {
        let id = finding["id"].as_str().unwrap();
        // 16 names, `…` and a 16-digit hash: far below the 2,001 names.
        assert!(id.len() < 200, "{id}");
        assert!(id.contains(">…>"), "{id}");
    }
    // Every id is different: the leaf differs, and the hash covers the
    // names left out.
    let ids: std::collections::BTreeSet<&str> =
        findings.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), leaves);
    assert!(
        run.stdout.len() < 40 * text.len(),
        "{} bytes of JSON",
        run.stdout.len()
    );
}

fn nines_check_only(text: &str, only: &str) -> Run {
    let only: Vec<String> = only.split(',').map(str::to_owned).collect();
    let args = nines::cli::CheckArgs {
        fail_on: nines::cli::FailOn::Never,
        ..crate::check_args("chain.yaml", Format::Json, &only)
    };
    crate::capture(|terminal| nines::cli::check_source("chain.yaml", text, &args, terminal))
}

// ---- 5, 6, 10. Markdown ----

/// The structure a forged comment would need: a second verdict line, an
/// HTML comment or tag of the user's, a closed `<details>` of the user's.
fn assert_markdown_holds(text: &str) {
    let verdicts = text.lines().filter(|l| l.starts_with("**nines**")).count();
    assert!(verdicts <= 1, "a second verdict line:\n{text}");
    let prose = outside_code(text);
    assert_eq!(
        prose.matches("<!--").count(),
        prose.matches("<!-- nines-report -->").count(),
        "{text}"
    );
    for tag in ["<img", "<b>", "<a ", "<script", "<h1", "</details><img"] {
        assert!(!prose.contains(tag), "raw {tag} outside code:\n{text}");
    }
    // Every table row has as many cells as its header.
    let mut columns = None;
    for line in text.lines() {
        if line.starts_with('|') {
            let cells = unescaped_pipes(line);
            match columns {
                None => columns = Some(cells),
                Some(n) => assert_eq!(cells, n, "a broken row: {line}"),
            }
        } else {
            columns = None;
        }
    }
}

/// The comment read by an independent `CommonMark` parser with GitHub's
/// extensions (tables, strikethrough, math, autolinks): the only HTML is
/// nines' own tags, and no link, image, math, strikethrough, heading or
/// list comes from a user string. `headings` is how many headings nines
/// itself writes.
fn assert_gfm_holds(text: &str, headings: usize, lists: usize) {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    const OURS: [&str; 8] = [
        "<!-- nines-report -->",
        "<details>",
        "</details>",
        "<summary>",
        "</summary>",
        "<br>",
        "<sub>",
        "</sub>",
    ];
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM
        | Options::ENABLE_TASKLISTS;
    let (mut seen_headings, mut seen_lists, mut strong) = (0, 0, 0);
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => {
                let mut rest = html.to_string();
                for tag in OURS {
                    rest = rest.replace(tag, "");
                }
                assert!(!rest.contains('<'), "HTML of the user's: {html:?}\n{text}");
            }
            Event::Start(Tag::Link { dest_url, .. }) => panic!("a link to {dest_url}:\n{text}"),
            Event::Start(Tag::Image { dest_url, .. }) => panic!("an image {dest_url}:\n{text}"),
            Event::Start(Tag::Strikethrough) => panic!("strikethrough:\n{text}"),
            Event::InlineMath(m) | Event::DisplayMath(m) => panic!("math {m}:\n{text}"),
            Event::Start(Tag::Heading { .. }) => seen_headings += 1,
            Event::Start(Tag::List(_) | Tag::BlockQuote(_) | Tag::CodeBlock(_)) => seen_lists += 1,
            Event::Start(Tag::Strong) => strong += 1,
            _ => {}
        }
    }
    // Bold: the verdict's `nines`, and `Fixed` when the baseline has some.
    assert!(strong <= 2, "bold of the user's:\n{text}");
    assert_eq!(seen_headings, headings, "headings:\n{text}");
    assert_eq!(seen_lists, lists, "lists, quotes and code blocks:\n{text}");
}

/// The text with code spans removed (cmark: a run of n backticks opens a
/// span closed by the next run of exactly n; a backslash-escaped backtick
/// opens nothing).
fn outside_code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' && i + 1 < chars.len() {
            out.push(chars[i]);
            out.push(chars[i + 1]);
            i += 2;
            continue;
        }
        if chars[i] == '`' {
            let run = chars[i..].iter().take_while(|&&c| c == '`').count();
            let mut j = i + run;
            let mut closed = None;
            while j < chars.len() {
                if chars[j] == '`' {
                    let other = chars[j..].iter().take_while(|&&c| c == '`').count();
                    if other == run {
                        closed = Some(j + other);
                        break;
                    }
                    j += other;
                } else {
                    j += 1;
                }
            }
            if let Some(end) = closed {
                i = end;
                continue;
            }
            out.extend(std::iter::repeat_n('`', run));
            i += run;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn unescaped_pipes(line: &str) -> usize {
    let mut count = 0;
    let mut previous = ' ';
    for c in line.chars() {
        if c == '|' && previous != '\\' {
            count += 1;
        }
        previous = if previous == '\\' && c == '\\' {
            ' '
        } else {
            c
        };
    }
    count
}

#[test]
fn the_pr_comment_cannot_be_forged() {
    for (i, words) in HOSTILE.iter().enumerate() {
        let text = hostile_model(words, words, words);
        let run = check("m.yaml", &text, Format::Markdown);
        assert_ne!(run.outcome, Outcome::Invalid, "case {i}: {}", run.stderr);
        assert_markdown_holds(&run.stdout);
        // One heading, "New findings at or above error"; no list.
        assert_gfm_holds(&run.stdout, 1, 0);
        assert!(terminal_controls(&run.stdout).is_empty(), "case {i}");
        assert!(run.stdout.starts_with("<!-- nines-report -->\n**nines**: "));
    }
}

#[test]
fn the_review_document_cannot_be_forged() {
    for (i, words) in HOSTILE.iter().enumerate() {
        let text = hostile_model(words, words, words);
        let model = nines::model::parse(&text).unwrap_or_else(|p| panic!("case {i}: {p:?}"));
        let today = nines::model::Date::parse("2026-11-30").unwrap();
        let review = nines::cli::review("m.yaml", &text, &model, today, ReviewFormat::Markdown);
        let (prose, diagram) = review.split_once("```mermaid").unwrap();
        assert_markdown_holds(prose);
        assert!(
            prose.lines().filter(|l| l.starts_with("# ")).count() == 1,
            "one title:\n{prose}"
        );
        assert!(terminal_controls(&review).is_empty(), "case {i}");
        assert!(
            !diagram.contains("%%"),
            "a directive in the diagram:\n{diagram}"
        );
    }
}

#[test]
fn a_huge_system_name_keeps_the_comment_under_60000_characters() {
    let system = "x".repeat(100_000);
    let reason = "r".repeat(100_000);
    let run = check(
        "m.yaml",
        &hostile_model(&system, "zone", &reason),
        Format::Markdown,
    );
    assert!(
        run.stdout.chars().count() < 60_000,
        "{} characters",
        run.stdout.chars().count()
    );
    assert!(run.stdout.contains("xxx…`"), "the name is cut, and says so");
}

// ---- 7. terminal ----

#[test]
fn terminal_output_shows_control_characters_instead_of_obeying_them() {
    for words in HOSTILE {
        let text = hostile_model(words, words, words);
        for format in [Format::Table, Format::Github] {
            let run = check("m.yaml", &text, format);
            assert!(
                terminal_controls(&run.stdout).is_empty(),
                "{format:?}: {:?}",
                run.stdout
            );
        }
    }
    let run = check(
        "m.yaml",
        &hostile_model(HOSTILE[2], "zone", "r"),
        Format::Table,
    );
    assert!(
        run.stdout
            .starts_with("\\u{1b}]52;c;aGk=\\u{7}clip (m.yaml)"),
        "{}",
        run.stdout
    );
    // The source lines of a diagnostic too.
    let run = check(
        "m.yaml",
        "system: s\ncomponents:\n  a: {instances: \"\u{1b}[2J\"}\n",
        Format::Table,
    );
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        terminal_controls(&run.stderr).is_empty(),
        "{:?}",
        run.stderr
    );
}

#[test]
fn baseline_ids_reach_the_terminal_escaped() {
    let dir = scratch("baseline-ids");
    let model = dir.join("m.yaml");
    std::fs::write(
        &model,
        r"system: s
components:
  a: {instances: 2}
",
    )
    .unwrap();
    let baseline = dir.join("known.json");
    std::fs::write(
        &baseline,
        r#"{"version": 1, "tool": "nines", "findings": [{"id": "spof/\u001b]52;c;aGk=\u0007", "rule": "spof", "severity": "error"}]}"#,
    )
    .unwrap();
    for format in ["table", "markdown", "github", "sarif", "json"] {
        let run = nines(&[
            "check",
            path(&model),
            "--baseline",
            path(&baseline),
            "--format",
            format,
        ]);
        assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
        assert!(
            terminal_controls(&run.stdout).is_empty(),
            "{format}: {:?}",
            run.stdout
        );
    }
}

// ---- 8. MEF ----

/// A strict XML 1.0 well-formedness check, enough for what nines writes:
/// one root element, matched tags, quoted attributes, known entities only,
/// comments without `--`, and only characters XML allows.
fn well_formed(xml: &str) -> Result<(), String> {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r') || !(c.is_control() || c == '\u{fffe}' || c == '\u{ffff}')
    };
    if let Some(c) = xml.chars().find(|&c| !allowed(c)) {
        return Err(format!("character U+{:04X} is not allowed", u32::from(c)));
    }
    let check_text = |text: &str| -> Result<(), String> {
        let mut rest = text;
        while let Some(at) = rest.find('&') {
            let after = &rest[at + 1..];
            let end = after.find(';').ok_or("an `&` without `;`")?;
            let name = &after[..end];
            let known = matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
                || (name.starts_with('#') && name.len() > 1);
            if !known {
                return Err(format!("unknown entity &{name};"));
            }
            rest = &after[end + 1..];
        }
        if text.contains('<') {
            return Err("a raw `<` in text".to_owned());
        }
        Ok(())
    };
    let mut rest = xml.strip_prefix("<?xml version=\"1.0\"?>").unwrap_or(xml);
    let mut stack: Vec<String> = Vec::new();
    let mut roots = 0;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            if !stack.is_empty() || !rest.trim().is_empty() {
                check_text(rest)?;
                if !rest.trim().is_empty() {
                    return Err("text after the root".to_owned());
                }
            }
            break;
        };
        let text = &rest[..open];
        if stack.is_empty() && !text.trim().is_empty() {
            return Err(format!("text outside the root: {text:?}"));
        }
        check_text(text)?;
        rest = &rest[open..];
        if let Some(body) = rest.strip_prefix("<!--") {
            let end = body.find("-->").ok_or("an unclosed comment")?;
            let comment = &body[..end];
            if comment.contains("--") || comment.ends_with('-') {
                return Err(format!("`--` inside a comment: {comment:?}"));
            }
            rest = &body[end + 3..];
            continue;
        }
        let end = rest.find('>').ok_or("an unclosed tag")?;
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            if stack.pop().as_deref() != Some(name.trim()) {
                return Err(format!("mismatched </{name}>"));
            }
            continue;
        }
        let empty = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name: String = tag.chars().take_while(|c| !c.is_whitespace()).collect();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || "-_.:".contains(c))
        {
            return Err(format!("bad element name {name:?}"));
        }
        let mut attributes = tag[name.len()..].trim();
        while !attributes.is_empty() {
            let (key, value) = attributes
                .split_once("=\"")
                .ok_or(format!("bad attribute in <{tag}>"))?;
            if key.trim().is_empty() || key.trim().contains(char::is_whitespace) {
                return Err(format!("bad attribute name in <{tag}>"));
            }
            let close = value.find('"').ok_or("an unclosed attribute")?;
            check_text(&value[..close])?;
            attributes = value[close + 1..].trim_start();
        }
        if stack.is_empty() {
            roots += 1;
        }
        if !empty {
            stack.push(name);
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed <{}>", stack.join("> <")));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(())
}

#[test]
fn the_checker_rejects_what_is_not_xml() {
    assert!(
        well_formed("<?xml version=\"1.0\"?>\n<!-- ok -->\n<a x=\"1\"><b/>t &amp; u</a>\n").is_ok()
    );
    assert!(well_formed("<!-- a--b --><a/>").is_err());
    assert!(well_formed("<a>\u{1}</a>").is_err());
    assert!(well_formed("<a>&nbsp;</a>").is_err());
    assert!(well_formed("<a><b></a>").is_err());
    assert!(well_formed("<a/><b/>").is_err());
}

#[test]
fn mef_is_well_formed_whatever_the_system_is_called() {
    for words in HOSTILE {
        let model = nines::model::parse(&hostile_model(words, words, words)).unwrap();
        let xml = nines::engine::mef::export(&model);
        well_formed(&xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
    }
}

// ---- 9. Mermaid ----

#[test]
fn mermaid_labels_cannot_hold_a_directive() {
    let words = HOSTILE[4];
    let model = nines::model::parse(&hostile_model("s", words, "r")).unwrap();
    let text = nines::cli::graph(&model, "", nines::cli::GraphFormat::Mermaid);
    assert!(!text.contains('%'), "{text}");
    assert!(!text.contains('{') || !text.contains("init"), "{text}");
    assert!(
        text.contains("#37;#37;#123;init: #123;'theme':'dark'"),
        "{text}"
    );
}

// ---- 11. -o ----

#[cfg(unix)]
#[test]
fn o_never_overwrites_the_input() {
    let dir = scratch("overwrite");
    let model = dir.join("m.yaml");
    let text = r"system: s
components:
  a: {instances: 2}
";
    std::fs::write(&model, text).unwrap();
    let link = dir.join("link.yaml");
    std::os::unix::fs::symlink(&model, &link).unwrap();
    let hard = dir.join("hard.yaml");
    std::fs::hard_link(&model, &hard).unwrap();
    for target in [&model, &link, &hard] {
        let t = path(target);
        for args in [
            vec!["report", path(&model), "-o", t],
            vec!["export", path(&model), "--format", "mef", "-o", t],
            vec!["baseline", path(&model), "-o", t],
        ] {
            let run = nines(&args);
            assert_eq!(run.outcome, Outcome::Invalid, "{args:?}");
            assert!(run.stderr.contains("would destroy it"), "{}", run.stderr);
            assert_eq!(std::fs::read_to_string(&model).unwrap(), text, "{args:?}");
        }
    }
    let manifest = dir.join("app.yaml");
    let deployment =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n";
    std::fs::write(&manifest, deployment).unwrap();
    let run = nines(&["import", "k8s", path(&dir), "-o", path(&manifest)]);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), deployment);
}

#[test]
fn o_dash_is_standard_output_and_files_are_written_whole() {
    let dir = scratch("dash");
    let model = dir.join("m.yaml");
    std::fs::write(
        &model,
        r"system: s
components:
  a: {instances: 2}
",
    )
    .unwrap();
    let previous = std::env::current_dir().unwrap();
    for args in [
        vec!["report", path(&model), "-o", "-"],
        vec!["export", path(&model), "--format", "mef", "-o", "-"],
        vec!["baseline", path(&model), "-o", "-"],
    ] {
        let run = nines(&args);
        assert_eq!(run.outcome, Outcome::Pass, "{args:?}: {}", run.stderr);
        assert!(!run.stdout.is_empty(), "{args:?}");
    }
    assert!(!previous.join("-").exists(), "no file named `-`");
    let out = dir.join("review.md");
    let run = nines(&["report", path(&model), "-o", path(&out)]);
    assert_eq!(run.outcome, Outcome::Pass);
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("# Reliability review: s")
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file is left behind");
}

// ---- 12, 13. import ----

#[test]
fn tens_of_thousands_of_documents_are_imported() {
    let dir = scratch("documents");
    let file = dir.join("dump.yaml");
    let mut text = String::from(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n",
    );
    for i in 0..20_000 {
        let _ = write!(
            text,
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n"
        );
    }
    std::fs::write(&file, &text).unwrap();
    let run = nines(&["import", "k8s", path(&file)]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(!run.stderr.contains("budget"), "{}", run.stderr);
}

#[test]
fn long_workload_names_import_into_a_valid_model() {
    let name = "a".repeat(5_000);
    let text = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec: {{replicas: 2}}\n"
    );
    let imported = nines::import::kubernetes(
        &[nines::import::Source {
            name: "m.yaml".to_owned(),
            text,
        }],
        &nines::import::Options::default(),
    )
    .unwrap();
    let checked = check("imported.yaml", &imported.model, Format::Json);
    assert_ne!(
        checked.outcome,
        Outcome::Invalid,
        "{}\n{}",
        imported.model,
        checked.stderr
    );
}

// ---- 14. parser messages ----

#[test]
fn yaml_errors_never_show_parser_internals() {
    let cases = [
        format!(
            r"system: s
x: {}{}
",
            "[".repeat(100),
            "]".repeat(100)
        ),
        r"system: s
---
system: t
"
        .to_owned(),
        r"system: &a s
components:
  x: {instances: *a}
"
        .to_owned(),
        r"system: s
components: !!binary aGk=
"
        .to_owned(),
        "a: &x [*x]\n".to_owned(),
    ];
    for text in cases {
        let run = check("m.yaml", &text, Format::Table);
        assert_eq!(run.outcome, Outcome::Invalid);
        for leak in [
            "budget breached",
            "from_str",
            "Depth {",
            "(used",
            "(defined",
            "Documents {",
        ] {
            assert!(!run.stderr.contains(leak), "{leak} in:\n{}", run.stderr);
        }
    }
}

// ---- the bounded fuzz: random bytes and random models, every format ----

/// A model with random, often hostile, text in every free-text field.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(HOSTILE.to_vec()).prop_map(str::to_owned),
        any::<String>().prop_map(|s| s.chars().take(40).collect()),
        "[ -~\\n\\t`<>|&%#\\\\-]{0,30}",
    ]
}

/// Every output of a model: the check formats, the review in both
/// formats, MEF and both graphs.
fn every_output(name: &str, text: &str) -> Vec<(String, String)> {
    let mut outputs = Vec::new();
    for format in [
        Format::Table,
        Format::Json,
        Format::Markdown,
        Format::Sarif,
        Format::Github,
    ] {
        let run = check(name, text, format);
        outputs.push((format!("{format:?}"), run.stdout));
        outputs.push((format!("{format:?} stderr"), run.stderr));
    }
    if let Ok(model) = nines::model::parse(text) {
        let today = nines::model::Date::parse("2026-11-30").unwrap();
        for format in [ReviewFormat::Markdown, ReviewFormat::Html] {
            outputs.push((
                format!("report {format:?}"),
                nines::cli::review(name, text, &model, today, format),
            ));
        }
        outputs.push(("mef".to_owned(), nines::engine::mef::export(&model)));
        for format in [
            nines::cli::GraphFormat::Mermaid,
            nines::cli::GraphFormat::Dot,
        ] {
            outputs.push((
                format!("graph {format:?}"),
                nines::cli::graph(&model, text, format),
            ));
        }
    }
    outputs
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_in_any_format(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        for (format, out) in every_output("bytes.yaml", &text) {
            prop_assert!(terminal_controls(&out).is_empty() || format.starts_with("Json") || format.starts_with("Sarif"), "{format}");
        }
    }

    #[test]
    fn hostile_strings_never_break_an_output(system in hostile_text(), kind in hostile_text(), reason in hostile_text()) {
        // An empty kind or reason is refused, rightly: give each a letter.
        let text = hostile_model(&system, &format!("k{kind}"), &format!("r{reason}"));
        let outputs = every_output("m.yaml", &text);
        prop_assert!(outputs.len() > 10, "the model is valid: {:?}", outputs[1]);
        for (format, out) in &outputs {
            match format.as_str() {
                "Markdown" => {
                    assert_markdown_holds(out);
                    let headings = usize::from(out.contains("\n### New findings"));
                    assert_gfm_holds(out, headings, 0);
                }
                "mef" => prop_assert!(well_formed(out).is_ok(), "{:?}\n{out}", well_formed(out)),
                "Json" | "Sarif" => {
                    prop_assert!(serde_json::from_str::<serde_json::Value>(out).is_ok(), "{format}");
                }
                "graph Mermaid" => prop_assert!(!out.contains('%'), "{out}"),
                _ => {}
            }
            if !matches!(format.as_str(), "Json" | "Sarif") {
                prop_assert!(terminal_controls(out).is_empty(), "{format}: {out:?}");
            }
        }
    }

    #[test]
    fn random_models_render_in_every_format(text in crate::properties::valid_model()) {
        let outputs = every_output("valid.yaml", &text);
        prop_assert!(outputs.len() > 10, "the model is valid: {:?}", outputs[1]);
        for (format, out) in &outputs {
            match format.as_str() {
                "Markdown" => assert_markdown_holds(out),
                "mef" => prop_assert!(well_formed(out).is_ok(), "{:?}\n{out}", well_formed(out)),
                "Json" | "Sarif" => {
                    prop_assert!(serde_json::from_str::<serde_json::Value>(out).is_ok(), "{format}");
                }
                _ => {}
            }
        }
    }

    #[test]
    fn random_model_like_text_renders_or_is_refused(text in crate::properties::model_like_text()) {
        // Every format on near-models: no panic, and a refusal explains itself.
        for (format, out) in every_output("near.yaml", &text) {
            if format == "Table stderr" && !out.is_empty() && !out.starts_with("error") {
                prop_assert!(out.contains("problem"), "{out}");
            }
        }
    }

    #[test]
    fn imports_of_random_manifests_pass_check(
        names in prop::collection::vec("[ -~]{1,40}|a{1000,1100}", 1..4),
        replicas in 0u32..5,
    ) {
        let mut text = String::new();
        for name in &names {
            let _ = write!(
                text,
                "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {}, namespace: {}}}\nspec: {{replicas: {replicas}, template: {{spec: {{containers: [{{name: {}, env: [{{name: URL, value: {}}}]}}]}}}}}}\n",
                quoted(name), quoted(name), quoted(name), quoted(&format!("http://{name}:80"))
            );
        }
        let sources = [nines::import::Source { name: "m.yaml".to_owned(), text }];
        if let Ok(imported) = nines::import::kubernetes(&sources, &nines::import::Options::default()) {
            let checked = check("imported.yaml", &imported.model, Format::Json);
            prop_assert!(checked.outcome != Outcome::Invalid, "{}\n{}", imported.model, checked.stderr);
        }
    }
}

#[test]
fn recover_and_diagnostics_escape_hostile_names() {
    // The system's name reached `nines recover`'s heading raw: an OSC 52
    // clipboard write (ESC ] 52 … BEL) and a right-to-left override worked
    // on the reader's terminal.
    let dir = scratch("recover-names");
    let path = dir.join("m.yaml");
    std::fs::write(
        &path,
        "system: \"s\\e]52;c;aGk=\\a\\u202e<x>\"\ncomponents:\n  web: {depends_on: [db]}\n  db: {instances: 2}\n",
    )
    .unwrap();
    let out = crate::binary().arg("recover").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("Recovery of s"), "{stdout}");
    assert!(terminal_controls(&stdout).is_empty(), "{stdout:?}");
    assert!(!stdout.contains('\u{202e}'), "{stdout:?}");
    // A bidirectional override in a name the validator refuses is shown
    // escaped in the diagnostic, not applied.
    std::fs::write(&path, "components:\n  \"db\\u202e*x*\": {}\n").unwrap();
    let out = crate::binary().arg("check").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains('\u{202e}'), "{stderr:?}");
    assert!(stderr.contains("\\u{202e}"), "{stderr}");
}
