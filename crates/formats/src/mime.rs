//! MIME bodies: multipart messages (results in an attachment), base64 and
//! quoted-printable parts, HTML-only mails, RFC 2047 encoded headers.
//!
//! The structure (part boundaries, part headers, encoded words) comes from
//! the `mailparse` crate. The decoding is done here, line by line, so that
//! every decoded line keeps the number of the input line it came from: a
//! base64 part's lines point at the encoded line holding their first byte,
//! an HTML part's at the line where the text started.

use mailparse::ParsedMail;
use mailparse::body::Body;

/// One decoded line: its number in the input and its text.
pub type Phys = (u64, String);

/// A line in ISO-2022-JP (RFC 1468: `ESC $ B` shifts to JIS X 0208, `ESC
/// ( B` back to ASCII before the line ends), as Japanese mailers send
/// `±` in an LKP table (`1417897 ESC$B!^ESC(B  2%`): the line decoded,
/// or `None` when it holds no such shift. Every line returns to ASCII, so
/// each is decoded on its own and keeps its number.
pub(crate) fn iso2022jp_line(text: &str) -> Option<String> {
    if !(text.contains("\u{1b}$B") || text.contains("\u{1b}$@")) {
        return None;
    }
    let (out, _, _) = encoding_rs::ISO_2022_JP.decode(text.as_bytes());
    Some(out.into_owned())
}

/// Whether a message with these headers needs the MIME layer.
pub fn needed(content_type: Option<&str>, transfer_encoding: Option<&str>) -> bool {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    let te = transfer_encoding.unwrap_or("").to_ascii_lowercase();
    ct.contains("multipart/") || ct.contains("text/html") || te.contains("base64")
}

/// Decode an RFC 2047 encoded header value (`=?UTF-8?B?...?=`); other
/// values come back unchanged.
pub fn decode_header(value: &str) -> String {
    if !value.contains("=?") {
        return value.to_string();
    }
    let raw = format!("X: {value}");
    match mailparse::parse_header(raw.as_bytes()) {
        Ok((h, _)) => h.get_value(),
        Err(_) => value.to_string(),
    }
}

/// The text parts of the message made of `lines` (headers first), decoded,
/// each line with its input line number; `None` when the MIME structure
/// cannot be read (the caller falls back to the plain body).
pub fn body_lines(lines: &[Phys]) -> Option<Vec<Phys>> {
    let mut raw = String::new();
    let mut starts = Vec::with_capacity(lines.len());
    for (no, t) in lines {
        starts.push((raw.len(), *no));
        raw.push_str(t);
        raw.push('\n');
    }
    let mail = mailparse::parse_mail(raw.as_bytes()).ok()?;
    let base = raw.as_ptr() as usize;
    let map = LineMap { starts, base };
    let mut out = Vec::new();
    collect(&mail, &map, lines, &mut out, 0);
    Some(out)
}

/// Byte offsets in the joined message text and the line numbers there.
struct LineMap {
    starts: Vec<(usize, u64)>,
    base: usize,
}

impl LineMap {
    /// Index into the message's lines of the line holding byte `off`.
    fn index(&self, off: usize) -> usize {
        match self.starts.binary_search_by_key(&off, |s| s.0) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// The range of line indices a slice of the joined text covers.
    fn range(&self, slice: &[u8]) -> (usize, usize) {
        let from = (slice.as_ptr() as usize).saturating_sub(self.base);
        let to = from + slice.len();
        let a = self.index(from);
        let b = if slice.is_empty() {
            a
        } else {
            self.index(to.saturating_sub(1)) + 1
        };
        (a, b)
    }
}

/// Parts nested deeper than this are not read.
const MAX_DEPTH: usize = 16;

fn collect(
    part: &ParsedMail<'_>,
    map: &LineMap,
    lines: &[Phys],
    out: &mut Vec<Phys>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let mime = part.ctype.mimetype.to_ascii_lowercase();
    if mime.starts_with("multipart/") {
        let alternative = mime == "multipart/alternative";
        let has_plain = part
            .subparts
            .iter()
            .any(|p| p.ctype.mimetype.eq_ignore_ascii_case("text/plain"));
        for sub in &part.subparts {
            let html = sub.ctype.mimetype.eq_ignore_ascii_case("text/html");
            if alternative && html && has_plain {
                continue;
            }
            collect(sub, map, lines, out, depth + 1);
        }
        return;
    }
    if !readable(&mime, part) {
        return;
    }
    let decoded = decode(part, map, lines);
    if !looks_like_text(&decoded) {
        return;
    }
    if mime == "text/html" {
        out.extend(html_to_text(&decoded));
    } else {
        out.extend(decoded);
    }
}

/// Whether a part may hold result text: text of any kind, attachments of
/// unknown type (`application/octet-stream` logs), forwarded messages.
fn readable(mime: &str, part: &ParsedMail<'_>) -> bool {
    if mime.starts_with("text/") || mime.starts_with("message/") {
        return true;
    }
    if mime == "application/octet-stream" || mime == "application/x-trash" {
        let name = part
            .get_content_disposition()
            .params
            .get("filename")
            .cloned()
            .or_else(|| part.ctype.params.get("name").cloned())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let binary = [
            ".gz", ".xz", ".bz2", ".zst", ".zip", ".tar", ".png", ".jpg", ".pdf", ".data",
        ];
        return !binary.iter().any(|b| name.ends_with(b));
    }
    false
}

/// Not binary: no NUL bytes and few control characters.
fn looks_like_text(lines: &[Phys]) -> bool {
    let mut total = 0usize;
    let mut bad = 0usize;
    for (_, t) in lines {
        for c in t.chars().take(4096) {
            total += 1;
            if c == '\0' || (c.is_control() && c != '\t' && c != '\r' && c != '\u{1b}') {
                bad += 1;
            }
        }
    }
    bad * 100 <= total
}

/// The decoded lines of a leaf part, numbered.
fn decode(part: &ParsedMail<'_>, map: &LineMap, lines: &[Phys]) -> Vec<Phys> {
    let latin1 = matches!(
        part.ctype.charset.to_ascii_lowercase().as_str(),
        "iso-8859-1" | "latin1" | "iso-8859-15" | "windows-1252" | "cp1252"
    );
    match part.get_body_encoded() {
        Body::Base64(b) => {
            let (a, z) = map.range(b.get_raw());
            base64_lines(lines.get(a..z).unwrap_or(&[]), latin1)
        }
        Body::QuotedPrintable(b) => {
            let (a, z) = map.range(b.get_raw());
            crate::mail::decode_qp(lines.get(a..z).unwrap_or(&[]), false)
        }
        Body::SevenBit(b) | Body::EightBit(b) => {
            let (a, z) = map.range(b.get_raw());
            lines.get(a..z).unwrap_or(&[]).to_vec()
        }
        Body::Binary(b) => {
            let (a, z) = map.range(b.get_raw());
            lines.get(a..z).unwrap_or(&[]).to_vec()
        }
    }
}

fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// Decode base64 line by line; each decoded line takes the number of the
/// encoded line that holds its first byte.
pub fn base64_lines(encoded: &[Phys], latin1: bool) -> Vec<Phys> {
    let mut out = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut cur_no: Option<u64> = None;
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    let emit =
        |byte: u8, no: u64, cur: &mut Vec<u8>, cur_no: &mut Option<u64>, out: &mut Vec<Phys>| {
            if byte == b'\n' {
                let mut line = std::mem::take(cur);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                out.push((cur_no.take().unwrap_or(no), text_of(&line, latin1)));
            } else {
                if cur_no.is_none() {
                    *cur_no = Some(no);
                }
                cur.push(byte);
            }
        };
    for (no, t) in encoded {
        for &c in t.as_bytes() {
            if c == b'=' {
                // Padding: whatever is left in the accumulator is not data.
                acc = 0;
                bits = 0;
                continue;
            }
            let Some(v) = sextet(c) else { continue };
            acc = (acc << 6) | v;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                let byte = ((acc >> bits) & 0xff) as u8;
                acc &= (1 << bits) - 1;
                emit(byte, *no, &mut cur, &mut cur_no, &mut out);
            }
        }
    }
    if let Some(no) = cur_no {
        out.push((no, text_of(&cur, latin1)));
    }
    out
}

fn text_of(bytes: &[u8], latin1: bool) -> String {
    if latin1 && std::str::from_utf8(bytes).is_err() {
        bytes.iter().map(|&b| b as char).collect()
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// Text of raw input bytes, line by line: a line of valid UTF-8 as it is,
/// any other line as Windows-1252 / Latin-1, the charsets of the 8bit mails
/// that are not UTF-8 (a `±` arrives as the byte 0xB1, not as a
/// replacement character that would end the table it is in).
pub(crate) fn decode_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 8);
    for (k, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if k > 0 {
            out.push('\n');
        }
        out.push_str(&decode_line(line));
    }
    std::borrow::Cow::Owned(out)
}

/// One line of raw input: UTF-8 when it is valid, else Windows-1252.
pub(crate) fn decode_line(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(bytes.iter().map(|&b| cp1252(b)).collect()),
    }
}

/// A Windows-1252 byte as a character (Latin-1 but for 0x80..0x9F).
fn cp1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '\u{20ac}', '\u{81}', '\u{201a}', '\u{192}', '\u{201e}', '\u{2026}', '\u{2020}',
        '\u{2021}', '\u{2c6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8d}', '\u{17d}',
        '\u{8f}', '\u{90}', '\u{2018}', '\u{2019}', '\u{201c}', '\u{201d}', '\u{2022}', '\u{2013}',
        '\u{2014}', '\u{2dc}', '\u{2122}', '\u{161}', '\u{203a}', '\u{153}', '\u{9d}', '\u{17e}',
        '\u{178}',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// Tags after which the text continues on a new line.
const BREAKS: &[&str] = &[
    "br",
    "p",
    "/p",
    "div",
    "/div",
    "tr",
    "/tr",
    "li",
    "/li",
    "pre",
    "/pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "/h1",
    "/h2",
    "/h3",
    "/h4",
    "table",
    "/table",
    "blockquote",
    "/blockquote",
];

/// Turn an HTML part into text lines: tags dropped, entities decoded, a new
/// line at each `<br>`, paragraph, row and list item, and at every newline
/// inside `<pre>`; each line numbered with the input line it started on.
/// `<blockquote>` nesting becomes `> ` quote markers.
pub fn html_to_text(html: &[Phys]) -> Vec<Phys> {
    let mut out: Vec<Phys> = Vec::new();
    let mut cur = String::new();
    let mut cur_no: Option<u64> = None;
    let mut pre = 0usize;
    let mut quote = 0usize;
    let mut skip: Option<&'static str> = None;
    let mut tag: Option<String> = None;
    let mut pending_space = false;
    let flush =
        |cur: &mut String, cur_no: &mut Option<u64>, out: &mut Vec<Phys>, no: u64, quote: usize| {
            let text = std::mem::take(cur);
            let line_no = cur_no.take().unwrap_or(no);
            let prefix = "> ".repeat(quote);
            out.push((line_no, format!("{prefix}{text}")));
        };
    for (no, line) in html {
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(t) = tag.as_mut() {
                if c == '>' {
                    let name = t
                        .trim_start()
                        .split(|c: char| {
                            c.is_whitespace() || c == '/' && !t.trim_start().starts_with('/')
                        })
                        .next()
                        .unwrap_or("")
                        .to_ascii_lowercase();
                    let name = name.trim_end_matches('/').to_string();
                    tag = None;
                    if let Some(s) = skip {
                        if name == s {
                            skip = None;
                        }
                        continue;
                    }
                    match name.as_str() {
                        "style" | "script" | "head" | "title" => {
                            skip = Some(match name.as_str() {
                                "style" => "/style",
                                "script" => "/script",
                                "head" => "/head",
                                _ => "/title",
                            });
                        }
                        "pre" => pre += 1,
                        "/pre" => pre = pre.saturating_sub(1),
                        "blockquote" => quote += 1,
                        "/blockquote" => quote = quote.saturating_sub(1),
                        "td" | "th" | "/td" | "/th" => pending_space = true,
                        _ => {}
                    }
                    if BREAKS.contains(&name.as_str()) && (!cur.is_empty() || name == "br") {
                        flush(&mut cur, &mut cur_no, &mut out, *no, quote);
                        pending_space = false;
                    }
                } else if t.len() < 256 {
                    t.push(c);
                }
                continue;
            }
            if c == '<' {
                tag = Some(String::new());
                continue;
            }
            if skip.is_some() {
                continue;
            }
            let ch = if c == '&' {
                let mut ent = String::new();
                while let Some(&n) = chars.peek() {
                    if n == ';' || ent.len() > 10 || n.is_whitespace() {
                        break;
                    }
                    ent.push(n);
                    chars.next();
                }
                if chars.peek() == Some(&';') {
                    chars.next();
                    entity(&ent)
                        .map(String::from)
                        .unwrap_or_else(|| format!("&{ent};"))
                } else {
                    format!("&{ent}")
                }
            } else {
                c.to_string()
            };
            if pre == 0 && ch.chars().all(char::is_whitespace) && ch != "\u{a0}" {
                pending_space = !cur.is_empty();
                continue;
            }
            if pending_space && !cur.is_empty() {
                cur.push(' ');
            }
            pending_space = false;
            if cur_no.is_none() {
                cur_no = Some(*no);
            }
            cur.push_str(&ch.replace('\u{a0}', " "));
        }
        if pre > 0 && tag.is_none() {
            flush(&mut cur, &mut cur_no, &mut out, *no, quote);
        } else if tag.is_none() {
            pending_space = !cur.is_empty();
        }
    }
    if !cur.is_empty() {
        let no = cur_no.unwrap_or(0);
        flush(&mut cur, &mut cur_no, &mut out, no, quote);
    }
    out
}

fn entity(name: &str) -> Option<char> {
    Some(match name {
        "nbsp" => '\u{a0}',
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "quot" => '"',
        "apos" => '\'',
        "plusmn" => '±',
        "micro" => 'µ',
        "deg" => '°',
        "times" => '×',
        _ => {
            let n = name.strip_prefix('#')?;
            let v = match n.strip_prefix(['x', 'X']) {
                Some(h) => u32::from_str_radix(h, 16).ok()?,
                None => n.parse().ok()?,
            };
            char::from_u32(v)?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_are_not_utf8_are_windows_1252() {
        assert_eq!(decode_line(b"0.07 \xb1  6%"), "0.07 \u{b1}  6%");
        assert_eq!(
            iso2022jp_line("   1417897 \u{1b}$B!^\u{1b}(B  2%    +992.8%").as_deref(),
            Some("   1417897 \u{b1}  2%    +992.8%")
        );
        assert_eq!(iso2022jp_line("\u{1b}[10A T: 0"), None);
        assert_eq!(decode_line(b"\x93quoted\x94"), "\u{201c}quoted\u{201d}");
        assert_eq!(decode_line("\u{b1} already".as_bytes()), "\u{b1} already");
        assert_eq!(decode_text(b"a \xb1\nb \xc2\xb1"), "a \u{b1}\nb \u{b1}");
    }

    fn phys(text: &str) -> Vec<Phys> {
        text.lines()
            .enumerate()
            .map(|(i, t)| (i as u64 + 1, t.to_string()))
            .collect()
    }

    #[test]
    fn base64_keeps_line_numbers() {
        // "T: 0 ( 1) Max: 4\nsecond line\n" encoded and split after 12 chars.
        let enc = phys("VDogMCAoIDEp\nIE1heDogNApz\nZWNvbmQgbGluZQo=");
        let out = base64_lines(&enc, false);
        assert_eq!(
            out,
            vec![
                (1, "T: 0 ( 1) Max: 4".to_string()),
                (2, "second line".to_string())
            ]
        );
    }

    #[test]
    fn html_lines_entities_and_quotes() {
        let html = phys(
            "<html><head><style>p {x}</style></head><body><p>Hi &amp; all,</p>\n<blockquote><pre>T: 0 (  1) Max:    4\nT: 1 (  2) Max: 5</pre></blockquote>\n<div>a&nbsp;b</div></body></html>",
        );
        let out = html_to_text(&html);
        let texts: Vec<&str> = out.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Hi & all,",
                "> T: 0 (  1) Max:    4",
                "> T: 1 (  2) Max: 5",
                "a b"
            ]
        );
        assert_eq!(out[1].0, 2);
        assert_eq!(out[2].0, 3);
    }

    #[test]
    fn encoded_words() {
        assert_eq!(
            decode_header("=?UTF-8?B?UmU6IFtQQVRDSF0gbW06IGxhdGVuY3k=?="),
            "Re: [PATCH] mm: latency"
        );
        assert_eq!(decode_header("plain"), "plain");
    }
}
