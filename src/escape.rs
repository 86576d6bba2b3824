//! Escaping of user-supplied text for every output format that is read by
//! a person: the model, the manifests and the baseline are written by
//! whoever opens the pull request, and what nines prints is trusted by the
//! reviewers. One function per target, used by every renderer and by the
//! MEF export (so it sits below both, importing nothing of the crate):
//!
//! - [`terminal`]: control characters (escape sequences, OSC 52 clipboard
//!   writes, OSC 8 links, screen clears), bidirectional overrides and other
//!   invisible format characters shown as `\u{1b}`;
//! - [`markdown`] and [`markdown_cell`]: inline GitHub-flavoured Markdown
//!   that cannot open HTML, links, images, entities, math or a new block,
//!   nor break out of a code span or a table row;
//! - [`markdown_code`]: any text as one code span;
//! - [`truncate`]: a string cut to a number of characters, for formats
//!   with a size limit (the pull-request comment).
//!
//! docs/security.md lists what each format escapes.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal, a comment or a report as is: C0
/// and C1 controls, DEL, and the [invisible](is_invisible) format
/// characters.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control() || is_invisible(c)
}

/// Whether `c` is a format character that shows nothing or changes how the
/// text around it is shown: the bidirectional overrides, embeddings,
/// isolates and marks that reorder what a reviewer reads ("Trojan Source":
/// U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), zero-width
/// spaces and joiners (U+200B–U+200D, U+2060–U+2064, U+FEFF), the line and
/// paragraph separators some editors break lines at (U+2028, U+2029), the
/// soft hyphen, the Mongolian vowel separator, the deprecated format
/// controls (U+206A–U+206F), the interlinear annotation characters
/// (U+FFF9–U+FFFB) and the tag characters (U+E0000–U+E007F). Variation
/// selectors are left alone: they only pick how an emoji is drawn.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// `text` with every control character written as `\u{…}`, safe to print
/// on a terminal.
pub fn terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    Cow::Owned(out)
}

/// Like [`terminal`], but a line break stays a line break (for multi-line
/// texts such as a finding's message).
pub fn terminal_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_unsafe_char(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\n' {
            out.push(c);
        } else {
            push_visible(&mut out, c);
        }
    }
    Cow::Owned(out)
}

fn push_visible(out: &mut String, c: char) {
    if is_unsafe_char(c) {
        let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
    } else {
        out.push(c);
    }
}

/// Text for a SARIF plain-text message (SARIF 2.1.0 §3.11.6): `[` and `]`
/// written `\[` and `\]`, so `[click](https://…)` cannot become an
/// embedded link, and a `\` before `\`, `[` or `]` doubled, so the user's
/// own `\[` reads back as written. Other text is left as is (JSON string
/// escaping does the rest).
pub fn sarif(text: &str) -> Cow<'_, str> {
    if !text.contains(['[', ']', '\\']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' | ']' => out.push('\\'),
            '\\' if matches!(chars.peek(), Some('\\' | '[' | ']')) => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// At most `max` characters of `text`; a cut text ends with `…` (counted in
/// `max`).
pub fn truncate(text: &str, max: usize) -> Cow<'_, str> {
    if text.char_indices().nth(max).is_none() {
        return Cow::Borrowed(text);
    }
    let keep = max.saturating_sub(1);
    let end = text
        .char_indices()
        .nth(keep)
        .map_or(text.len(), |(at, _)| at);
    Cow::Owned(format!("{}…", &text[..end]))
}

/// Inline Markdown text, safe in a paragraph, a heading, a list item and a
/// table cell (GitHub-flavoured Markdown, cmark-gfm rules).
///
/// Pairs of backticks in `text` stay code spans (finding messages quote
/// names that way); a backtick without a partner is written `` \` ``. Outside
/// code spans `&` and `<` become entities (no HTML, no autolink, no entity
/// of the user's; a `>` alone opens nothing but a quote at the start), and `\`, `[`, `]`, `~`, `$`, `#`, `!` and `|` are
/// backslash-escaped (no link, image, strikethrough, math, heading, issue
/// reference or column break). A line break becomes `<br>` (a new line
/// would start a new block); `\r` is dropped; other control characters
/// show as `\u{…}`. A leading list marker (`-`, `+`, `*`, `1.` or `1)`
/// before a blank), rule (`---`), quote (`>`) or `=` is escaped so that the text never starts
/// a list, a rule or a heading underline, and leading blanks are
/// removed (they would start an indented code block in a list item).
/// Emphasis (`*`, `_`) inside the text is left alone: it can only change
/// how the user's own words look.
pub fn markdown(text: &str) -> String {
    inline(text, true, false)
}

/// [`markdown`], with the start escaped as a block's start or not (a table
/// cell holds inline text only, so `-` there is just a dash).
fn inline(text: &str, block_start: bool, emphasis: bool) -> String {
    let text = text.trim_start_matches([' ', '\t']);
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    let mut first = true;
    while !rest.is_empty() {
        if let Some(body) = rest.strip_prefix('`') {
            if let Some(close) = body.find('`') {
                let content = &body[..close];
                if content.trim().is_empty() {
                    out.push_str("\\`\\`");
                } else {
                    out.push('`');
                    for c in content.chars() {
                        match c {
                            '\n' | '\r' => out.push(' '),
                            c => push_visible(&mut out, c),
                        }
                    }
                    out.push('`');
                }
                rest = &body[close + 1..];
            } else {
                out.push_str("\\`");
                rest = body;
            }
            first = false;
            continue;
        }
        let end = rest.find('`').unwrap_or(rest.len());
        let plain = &rest[..end];
        let at = out.len();
        if first && block_start {
            plain_start(plain, &mut out);
        } else {
            plain_text(plain, &mut out);
        }
        if emphasis {
            let escaped = escape_emphasis(&out[at..]);
            out.truncate(at);
            out.push_str(&escaped);
        }
        first = false;
        rest = &rest[end..];
    }
    out
}

/// Escapes the start of a text so it cannot open a block (a list item, a
/// thematic break, a setext underline), then the rest as [`plain_text`].
fn plain_start(plain: &str, out: &mut String) {
    let digits = plain.len() - plain.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let first = plain.chars().next();
    let marker = match first {
        Some('=' | '>') => true,
        Some(c @ ('-' | '+' | '*')) => {
            matches!(plain[1..].chars().next(), None | Some(' ' | '\t'))
                || plain.chars().all(|x| x == c || x == ' ' || x == '\t')
        }
        _ => false,
    };
    let (head, rest) = if marker {
        out.push('\\');
        plain.split_at(1)
    } else if (1..=9).contains(&digits)
        && matches!(plain[digits..].chars().next(), Some('.' | ')'))
        && matches!(plain[digits + 1..].chars().next(), None | Some(' ' | '\t'))
    {
        out.push_str(&plain[..digits]);
        out.push('\\');
        plain[digits..].split_at(1)
    } else {
        ("", plain)
    };
    out.push_str(head);
    plain_text(rest, out);
}

fn plain_text(plain: &str, out: &mut String) {
    for c in plain.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '\\' | '[' | ']' | '~' | '$' | '#' | '!' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("<br>"),
            '\r' => {}
            c => push_visible(out, c),
        }
    }
}

/// `*` always, and `_` where it could open or close emphasis (not between
/// two letters or digits), backslash-escaped.
fn escape_emphasis(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let intraword = c == '_'
            && i > 0
            && chars[i - 1].is_alphanumeric()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        let escaped = i > 0 && chars[i - 1] == '\\' && !(i > 1 && chars[i - 2] == '\\');
        if (c == '*' || (c == '_' && !intraword)) && !escaped {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// [`markdown`] for a table cell: `|` is also escaped inside code spans
/// (GitHub splits the row before it reads code spans, and takes `\|` there),
/// and so are emphasis characters, so a cell cannot bold a fake verdict.
pub fn markdown_cell(text: &str) -> String {
    let inline = inline(text, false, true);
    let mut out = String::with_capacity(inline.len());
    let mut previous = ' ';
    for c in inline.chars() {
        if c == '|' && previous != '\\' {
            out.push('\\');
        }
        out.push(c);
        previous = c;
    }
    out
}

/// `text` as one code span, whatever it holds: the fence is one backtick
/// longer than the longest run of backticks inside, line breaks become
/// spaces and control characters show as `\u{…}`.
pub fn markdown_code(text: &str) -> String {
    let mut content = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => content.push(' '),
            c => push_visible(&mut content, c),
        }
    }
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if content.starts_with('`') || content.ends_with('`') || content.trim().is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{content}{pad}{fence}")
}

/// Text for a Mermaid label inside double quotes: `"`, `<`, `>`, `|`, `#`,
/// `&`, backticks and the characters that open directives and comments
/// (`%`, `{`, `}`) are written as Mermaid entity codes (`#37;`), so
/// `%%{init: …}%%` or HTML in a name is shown, never obeyed; line breaks
/// become spaces and control characters show as `\u{…}`.
pub fn mermaid(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            '|' | '#' | '%' | '{' | '}' | '`' => {
                let _ = write!(out, "#{};", u32::from(c));
            }
            '\n' | '\r' => out.push(' '),
            c => push_visible(&mut out, c),
        }
    }
    out
}

/// Text for XML and HTML character data and attribute values (SVG, the
/// HTML review, the MEF export): `&`, `<`, `>`, `"` and `'` as entities
/// (`&#39;`, which HTML 4 knows too), and characters XML 1.0 does not allow
/// or a terminal showing the file would act on (controls other than tab and
/// line feed, bidirectional overrides, U+FFFE, U+FFFF) shown as `\u{…}`.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if is_unsafe_char(c) || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Text for inside an XML comment: [`xml`]'s character rules, with `-`
/// written as `‐` (U+2010) where two would meet or the comment would end
/// with one, since `--` may not appear in a comment.
pub fn xml_comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '-' if out.ends_with('-') => out.push('\u{2010}'),
            '\t' | '\n' | '\r' => out.push(' '),
            c if is_unsafe_char(c) || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    if out.ends_with('-') {
        out.pop();
        out.push('\u{2010}');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_text_shows_escape_sequences() {
        assert_eq!(
            terminal("a\u{1b}]52;c;aGk=\u{7}b"),
            "a\\u{1b}]52;c;aGk=\\u{7}b"
        );
        assert_eq!(terminal("\u{202e}gpj.exe"), "\\u{202e}gpj.exe");
        // Zero-width and other invisible characters, a line separator.
        assert_eq!(
            terminal("a\u{200b}b\u{2028}c\u{feff}\u{e0041}"),
            "a\\u{200b}b\\u{2028}c\\u{feff}\\u{e0041}"
        );
        // An emoji's variation selector is drawn, not hidden.
        assert_eq!(terminal("\u{2714}\u{fe0f}"), "\u{2714}\u{fe0f}");
        assert_eq!(terminal("plain é"), "plain é");
        assert_eq!(terminal_lines("a\nb\u{9b}"), "a\nb\\u{9b}");
    }

    #[test]
    fn sarif_text_holds_no_embedded_link() {
        assert_eq!(
            sarif("[click](https://evil.example)"),
            "\\[click\\](https://evil.example)"
        );
        // The user's `\[` stays a backslash and a bracket once read:
        // `\\` is a backslash, `\[` a bracket.
        assert_eq!(sarif("a\\[b"), "a\\\\\\[b");
        assert_eq!(sarif("C:\\x"), "C:\\x");
        assert_eq!(sarif("placement: [az-a]"), "placement: \\[az-a\\]");
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abcd", 4), "abcd");
        assert_eq!(truncate("ééééé", 3), "éé…");
    }

    #[test]
    fn markdown_cannot_open_html_or_blocks() {
        assert_eq!(
            markdown("</details><img src=x onerror=y>"),
            "&lt;/details>&lt;img src=x onerror=y>"
        );
        assert_eq!(
            markdown("x\n**nines**: ✅ no new findings\n<!--"),
            "x<br>**nines**: ✅ no new findings<br>&lt;\\!--"
        );
        assert_eq!(
            markdown("[a](http://e) ![i](x)"),
            "\\[a\\](http://e) \\!\\[i\\](x)"
        );
        assert_eq!(markdown("- item"), "\\- item");
        assert_eq!(markdown("***"), "\\***");
        assert_eq!(markdown("**bold** x"), "**bold** x");
        assert_eq!(markdown("12. item"), "12\\. item");
        assert_eq!(markdown("    code"), "code");
        assert_eq!(
            markdown("&amp; $x$ ~~s~~ #1"),
            "&amp;amp; \\$x\\$ \\~\\~s\\~\\~ \\#1"
        );
    }

    #[test]
    fn markdown_keeps_paired_backticks_as_code_and_escapes_a_lone_one() {
        assert_eq!(markdown("`db` is down"), "`db` is down");
        // The lone backtick cannot turn the HTML after it into code-span
        // text, nor the other way round.
        assert_eq!(
            markdown("a ` </details><img src=x>"),
            "a \\` &lt;/details>&lt;img src=x>"
        );
        assert_eq!(markdown("`x<y` <b>"), "`x<y` &lt;b>");
        assert_eq!(markdown("> quote"), "\\> quote");
        assert_eq!(markdown("99.9% up"), "99.9% up");
        assert_eq!(markdown("``"), "\\`\\`");
        assert_eq!(markdown_cell("a|b `c|d`"), "a\\|b `c\\|d`");
        assert_eq!(markdown_cell("-"), "-");
        assert_eq!(
            markdown_cell("**nines** a_b _c_"),
            "\\*\\*nines\\*\\* a_b \\_c\\_"
        );
    }

    #[test]
    fn a_code_span_holds_any_text() {
        assert_eq!(markdown_code("shop"), "`shop`");
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`\n<!--"), "`` ` <!-- ``");
    }

    #[test]
    fn mermaid_directives_are_shown_not_obeyed() {
        assert_eq!(
            mermaid("%%{init: {\"theme\":\"x\"}}%%"),
            "#37;#37;#123;init: #123;#quot;theme#quot;:#quot;x#quot;#125;#125;#37;#37;"
        );
    }

    #[test]
    fn xml_comments_never_hold_two_dashes() {
        assert_eq!(xml_comment("a--b-"), "a-\u{2010}b\u{2010}");
        assert_eq!(xml_comment("x\u{1}"), "x\\u{1}");
        assert_eq!(
            xml("<a & \"b\">\u{0}"),
            "&lt;a &amp; &quot;b&quot;&gt;\\u{0}"
        );
        assert_eq!(xml("it's\r\n"), "it&#39;s\\u{d}\n");
    }
}
