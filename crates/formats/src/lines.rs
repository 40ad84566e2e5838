//! Input lines with their 1-based numbers and mail quote level.

/// One line of input: its 1-based number in the whole input, the text with
/// any `>` quote prefix removed, and how many `>` markers there were.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub no: u64,
    pub text: &'a str,
    pub quote: u32,
}

/// Split text into lines (accepting `\n` and `\r\n`), stripping mail quote
/// prefixes (`> `, `>> `, `> > `).
pub fn split(text: &str) -> Vec<Line<'_>> {
    text.lines()
        .enumerate()
        .map(|(i, raw)| {
            let (quote, rest) = strip_quote(raw);
            Line {
                no: i as u64 + 1,
                text: rest,
                quote,
            }
        })
        .collect()
}

/// Remove leading `>` markers (optionally separated by single spaces).
pub fn strip_quote(raw: &str) -> (u32, &str) {
    let mut rest = raw;
    let mut level = 0;
    loop {
        let t = rest.strip_prefix(' ').filter(|_| level > 0).unwrap_or(rest);
        if let Some(r) = t.strip_prefix('>') {
            level += 1;
            rest = r;
        } else {
            break;
        }
    }
    if level > 0 {
        rest = rest.strip_prefix(' ').unwrap_or(rest);
    }
    (level, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_levels() {
        assert_eq!(strip_quote("> > T: 0"), (2, "T: 0"));
        assert_eq!(strip_quote(">> x"), (2, "x"));
        assert_eq!(strip_quote("plain"), (0, "plain"));
        assert_eq!(strip_quote(" => frame"), (0, " => frame"));
    }
}
