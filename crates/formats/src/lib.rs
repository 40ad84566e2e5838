//! reclaimlab-formats: pure parsers for the result text kernel developers
//! post (cyclictest, ftrace latency tracers, rtla, mmtests, LKP, `time`,
//! ad-hoc tables, stress-ng / perf stat, whole mails).
//!
//! No IO, no async, no SQL: the server, the CLI and a test rig all run the
//! same code. Every parser turns lines into typed [`document`] blocks that
//! keep their line span; errors carry format, line, column and the text.
//!
//! Entry points: [`parse`] / [`parse_str`] take a whole input (a single
//! result, several results in plain text, or a mail / thread) and return a
//! [`Document`]. Code tour: [`detect`] tries every format's `recognize` at
//! every line; [`mail`] splits threads, decodes quoted-printable and hands
//! each message body to [`detect`]; [`hints`] guesses labels, boards and
//! kernels from the prose; one module per format does the parsing.

pub mod document;
pub mod error;
pub mod lines;

pub mod counters;
pub mod culprit;
pub mod cyclictest;
pub mod cyclictest_json;
pub mod detect;
pub mod distribution;
pub mod ftrace;
pub mod hints;
pub mod histogram;
pub mod lkp;
pub mod mail;
pub mod metrics;
pub mod microbench;
pub mod mime;
pub mod mmtests;
pub mod perf_lock;
pub mod plain;
pub mod profile;
pub mod rtla;
pub mod time;
pub mod units;
pub mod willitscale;

pub use document::*;
pub use error::{ErrorKind, ParseError};
pub use lines::Line;

/// Version stamped into every document; bump when a parser's output changes
/// so stored uploads can be re-parsed.
pub const PARSER_VERSION: &str = concat!("reclaimlab-formats ", env!("CARGO_PKG_VERSION"));

/// Longest accepted line in bytes. Generous enough for a whole mail that an
/// archive flattened onto one line, small enough that a binary blob or a
/// minified file is refused before any recognizer looks at it.
pub const MAX_LINE_LEN: usize = 256 * 1024;

/// Most result blocks one input may hold; a thread with more is not
/// something a person posted.
pub const MAX_BLOCKS: usize = 4096;

/// Parse a whole input. `name` is a label for `source.name` only. Invalid
/// UTF-8 is replaced, not rejected: mails arrive in every charset.
pub fn parse(input: &[u8], name: Option<&str>) -> Result<Document, ParseError> {
    let text = String::from_utf8_lossy(input);
    parse_text(&text, input.len() as u64, name)
}

/// [`parse`] for text already in memory as a string.
pub fn parse_str(input: &str, name: Option<&str>) -> Result<Document, ParseError> {
    parse_text(input, input.len() as u64, name)
}

fn parse_text(text: &str, bytes: u64, name: Option<&str>) -> Result<Document, ParseError> {
    let mut doc = parse_any(text, bytes, name)?;
    doc.blocks.iter_mut().for_each(Block::settle_kernel);
    Ok(doc)
}

fn parse_any(text: &str, bytes: u64, name: Option<&str>) -> Result<Document, ParseError> {
    check_line_lengths(text)?;
    if mail::is_mail(text) {
        return mail::parse(text, bytes, name);
    }
    let lines = lines::split(text);
    let scan = detect::scan(&lines)?;
    let mut scanned = scan.blocks;
    if scanned.is_empty() {
        // A claim that failed says more than "nothing found": its format,
        // line and column.
        if let Some(e) = scan.failures.into_iter().next() {
            return Err(e);
        }
        let first = lines.iter().find(|l| !l.text.trim().is_empty());
        return Err(ParseError::unrecognized(
            detect::looked_for(),
            first.map(|l| l.no).unwrap_or(0),
            first.map(|l| l.text).unwrap_or(""),
        ));
    }
    hints::annotate(&mut scanned, &lines, &[(0, lines.len())]);
    let format = match scanned.first() {
        Some(s) if scanned.iter().all(|o| o.format == s.format) => s.format.name(),
        _ => "text",
    };
    let mut warnings: Vec<Warning> = scan.failures.iter().map(Warning::from_error).collect();
    warnings.extend(scan.unread);
    warnings.sort_by_key(|w| w.line);
    Ok(Document {
        source: Source {
            name: name.map(str::to_string),
            format: format.to_string(),
            bytes,
            lines: lines.len() as u64,
            parser_version: PARSER_VERSION.to_string(),
        },
        context: None,
        blocks: scanned.into_iter().map(|s| s.block).collect(),
        warnings,
    })
}

fn check_line_lengths(text: &str) -> Result<(), ParseError> {
    for (i, line) in text.lines().enumerate() {
        if line.len() > MAX_LINE_LEN {
            return Err(ParseError {
                kind: ErrorKind::TooLarge,
                format: "unknown",
                line: i as u64 + 1,
                column: MAX_LINE_LEN as u64 + 1,
                expected: format!("lines of at most {MAX_LINE_LEN} bytes"),
                found: format!("a line of {} bytes", line.len()),
            });
        }
    }
    Ok(())
}

pub(crate) fn too_many_blocks(line: u64) -> ParseError {
    ParseError {
        kind: ErrorKind::TooLarge,
        format: "unknown",
        line,
        column: 1,
        expected: format!("at most {MAX_BLOCKS} result blocks"),
        found: "more result blocks".to_string(),
    }
}
