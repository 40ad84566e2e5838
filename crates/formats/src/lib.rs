//! reclaimlab-formats: pure parsers for the result text kernel developers
//! post (cyclictest, ftrace latency tracers, rtla, mmtests, LKP, `time`,
//! ad-hoc tables, stress-ng / perf stat, whole mails).
//!
//! No IO, no async, no SQL: the server, the CLI and a test rig all run the
//! same code. Every parser turns lines into typed [`document`] blocks that
//! keep their line span; errors carry format, line, column and the text.
//!
//! Entry points: [`parse`] detects the format of a whole input (a single
//! result, or a mail / thread with many blocks) and returns a [`Document`].

pub mod document;
pub mod error;
pub mod lines;

pub mod culprit;
pub mod cyclictest;
pub mod cyclictest_json;
pub mod detect;
pub mod ftrace;
pub mod histogram;
pub mod lkp;
pub mod mail;
pub mod metrics;
pub mod mmtests;
pub mod plain;
pub mod rtla;
pub mod time;

pub use document::*;
pub use error::{ErrorKind, ParseError};
pub use lines::Line;

/// Version stamped into every document; bump when a parser's output changes
/// so stored uploads can be re-parsed.
pub const PARSER_VERSION: &str = concat!("reclaimlab-formats ", env!("CARGO_PKG_VERSION"));

/// Parse a whole input. `name` is a label for `source.name` only.
pub fn parse(input: &[u8], name: Option<&str>) -> Result<Document, ParseError> {
    let text = String::from_utf8_lossy(input);
    let lines = lines::split(&text);
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        match cyclictest::recognize(&lines, i) {
            Some(Ok((n, body))) => {
                let first = lines[i].no;
                let last = lines[i + n - 1].no;
                blocks.push(Block::new([first, last], body));
                i += n;
            }
            Some(Err(e)) => return Err(e),
            None => i += 1,
        }
    }
    if blocks.is_empty() {
        let first = lines.iter().find(|l| !l.text.trim().is_empty());
        return Err(ParseError::unrecognized(
            "a known result format (cyclictest `T:` lines, ...)",
            first.map(|l| l.no).unwrap_or(0),
            first.map(|l| l.text).unwrap_or(""),
        ));
    }
    Ok(Document {
        source: Source {
            name: name.map(str::to_string),
            format: blocks[0].kind().to_string(),
            bytes: input.len() as u64,
            lines: lines.len() as u64,
            parser_version: PARSER_VERSION.to_string(),
        },
        context: None,
        blocks,
        warnings: Vec::new(),
    })
}
