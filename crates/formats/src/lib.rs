//! reclaimlab-formats: pure parsers for the result text kernel developers
//! post (cyclictest, ftrace latency tracers, rtla, mmtests, LKP, `time`,
//! ad-hoc tables, stress-ng / perf stat, whole mails).
//!
//! No IO, no async, no SQL: the server, the CLI and a test rig all run the
//! same code. Every parser turns lines into typed [`document`] blocks that
//! keep their line span; errors carry format, line, column and the text.
//!
//! Entry point: [`parse_reader`] reads an input (a single result, several
//! results in plain text, or a mail / thread) in chunks with bounded memory
//! and returns a [`Document`]; [`parse`] / [`parse_str`] are the same over
//! bytes in memory. Code tour: [`stream`] cuts the input into scan windows
//! and hands long blocks to their accumulators; [`detect`] tries every
//! format's `recognize` at every line of a window; [`mail`] splits threads,
//! decodes quoted-printable and hands each message body to [`detect`];
//! [`hints`] guesses labels, boards and kernels from bounded context; one
//! module per format does the parsing.

pub mod document;
pub mod error;
pub mod lines;

pub mod counters;
pub mod culprit;
pub mod cyclictest;
pub mod cyclictest_json;
pub mod dd;
pub mod detect;
pub mod distribution;
pub mod fio;
pub mod ftrace;
pub mod hints;
pub mod histogram;
pub mod hwlat;
pub mod hyperfine;
pub mod kernbench;
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
pub mod stream;
pub mod sysbench;
pub mod time;
pub mod units;
pub mod willitscale;

pub use document::*;
pub use error::{ErrorKind, ParseError};
pub use lines::Line;
pub use stream::{Limits, parse_reader};

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

/// Parse a whole input in memory: [`parse_reader`] over the bytes, with
/// the default [`Limits`]. `name` is a label for `source.name` only.
/// Invalid UTF-8 is replaced, not rejected: mails arrive in every charset.
pub fn parse(input: &[u8], name: Option<&str>) -> Result<Document, ParseError> {
    parse_reader(input, name, &Limits::default())
}

/// [`parse`] for text already in memory as a string.
pub fn parse_str(input: &str, name: Option<&str>) -> Result<Document, ParseError> {
    parse(input.as_bytes(), name)
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

/// In tests: the body of the first block of `kind` that parsing `text`
/// gives (`first_body!(text, Profile)`), or a panic that prints the
/// document.
#[cfg(test)]
macro_rules! first_body {
    ($text:expr, $kind:ident) => {{
        let doc = crate::parse($text.as_bytes(), None).unwrap();
        let found = doc.blocks.iter().find_map(|b| match &b.body {
            crate::document::BlockBody::$kind(x) => Some(x.clone()),
            _ => None,
        });
        found.unwrap_or_else(|| panic!("no {} block in {doc:?}", stringify!($kind)))
    }};
}
#[cfg(test)]
pub(crate) use first_body;
