//! Parse errors: every error names the format, the 1-based line and column,
//! what was expected and what was found.

use std::fmt;

/// Whether the input was not recognised at all (HTTP 415) or recognised but
/// malformed (HTTP 422).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Unrecognized,
    Invalid,
    TooLarge,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ParseError {
    pub kind: ErrorKind,
    /// Format name, e.g. "cyclictest"; "unknown" for unrecognised input.
    pub format: &'static str,
    /// 1-based line number in the whole input (0 when not applicable).
    pub line: u64,
    /// 1-based column (0 when not applicable).
    pub column: u64,
    pub expected: String,
    /// The offending text, truncated to 80 characters.
    pub found: String,
}

impl ParseError {
    pub fn invalid(
        format: &'static str,
        line: u64,
        column: u64,
        expected: impl Into<String>,
        found: &str,
    ) -> Self {
        ParseError {
            kind: ErrorKind::Invalid,
            format,
            line,
            column,
            expected: expected.into(),
            found: truncate(found, 80),
        }
    }

    pub fn unrecognized(expected: impl Into<String>, line: u64, found: &str) -> Self {
        ParseError {
            kind: ErrorKind::Unrecognized,
            format: "unknown",
            line,
            column: 1,
            expected: expected.into(),
            found: truncate(found, 80),
        }
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(
                f,
                "{}: line {}, column {}: expected {}, found {:?}",
                self.format, self.line, self.column, self.expected, self.found
            )
        } else {
            write!(
                f,
                "{}: expected {}, found {:?}",
                self.format, self.expected, self.found
            )
        }
    }
}

impl std::error::Error for ParseError {}
