//! Whole mails and threads: a single RFC 822 message, an mbox (`From `
//! separators), or a thread copied from a web archive (a subject line, then
//! `[Author Name]`, then the body; `[-- Attachment #2: ... --]` separators).
//!
//! Owns message splitting, the headers kept in [`MailContext`],
//! quoted-printable decoding (declared, or evident from `=3D` / `=E2=80=AF`
//! escapes) and the re-flowing of archives that lost their line breaks.
//! Every decoded line keeps the number of the input line it came from, so
//! block spans always point at the original text. Finding blocks is
//! [`crate::detect`]'s job, guessing labels [`crate::hints`]'s.

use crate::detect::{self, Scanned};
use crate::document::{Document, MailContext, MailMessage, Source, Warning};
use crate::error::ParseError;
use crate::hints;
use crate::lines::Line;

/// Header names a message may start with, and that end a header value when
/// an archive has flattened the headers onto one line.
const KNOWN_HEADERS: &[&str] = &[
    "Return-Path",
    "Received",
    "Received-SPF",
    "Authentication-Results",
    "ARC-Seal",
    "ARC-Message-Signature",
    "ARC-Authentication-Results",
    "DKIM-Signature",
    "MIME-Version",
    "References",
    "In-Reply-To",
    "From",
    "Date",
    "Message-ID",
    "Message-Id",
    "Subject",
    "To",
    "Cc",
    "Content-Type",
    "Content-Transfer-Encoding",
    "Content-Disposition",
    "Sender",
    "Precedence",
    "List-ID",
    "List-Id",
    "List-Subscribe",
    "List-Unsubscribe",
    "List-Post",
    "List-Archive",
    "List-Help",
    "Reply-To",
    "Delivered-To",
    "Mailing-List",
    "User-Agent",
    "Organization",
    "Thread-Topic",
    "Thread-Index",
    "Content-Language",
];

/// Lines longer than this with quote markers inside are taken to be a mail
/// whose line breaks were collapsed into spaces by an archive.
const FLATTENED_LINE: usize = 400;

/// Whether the whole input looks like a mail or thread rather than bare
/// tool output.
pub fn is_mail(text: &str) -> bool {
    let mut nonblank = text.lines().filter(|l| !l.trim().is_empty());
    let Some(first) = nonblank.next() else {
        return false;
    };
    if is_mbox_from(first) {
        return true;
    }
    if header_name(first).is_some() {
        let known = text
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .take(200)
            .filter(|l| {
                header_name(l)
                    .is_some_and(|n| KNOWN_HEADERS.iter().any(|k| k.eq_ignore_ascii_case(n)))
            })
            .count();
        if known >= 2 {
            return true;
        }
    }
    let lines: Vec<&str> = text.lines().take(40).collect();
    if (2..lines.len()).any(|i| web_author_at(&lines, i).is_some()) {
        return true;
    }
    text.lines()
        .take(5000)
        .any(|l| l.starts_with("[-- Attachment #"))
}

/// `Name: value` → `Name` when it is a plausible header name.
fn header_name(line: &str) -> Option<&str> {
    let (name, _) = line.split_once(':')?;
    let ok = !name.is_empty()
        // Exchange's own headers run long:
        // `X-MS-Exchange-CrossTenant-Network-Message-Id` has 44 letters.
        && name.len() <= 76
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then_some(name)
}

/// `[Author Name]` on its own line, after a blank line and a subject line,
/// as web archives print each message of a thread.
fn web_author_at<S: AsRef<str>>(lines: &[S], i: usize) -> Option<String> {
    let t = lines.get(i)?.as_ref().trim();
    let inner = t.strip_prefix('[')?.strip_suffix(']')?.trim();
    let ok = !inner.is_empty()
        && inner.chars().count() <= 60
        && inner.split_whitespace().count() <= 6
        && inner.chars().any(char::is_alphabetic)
        && !inner.contains(['[', ']', '/', ':', '=', '@', '#'])
        && !inner.starts_with(['-', '+'])
        && !inner.starts_with(|c: char| c.is_ascii_digit())
        && !inner.starts_with("PATCH")
        && !inner.starts_with("RFC");
    if !ok || i < 2 {
        return None;
    }
    let blank_above = lines.get(i - 1)?.as_ref().trim().is_empty();
    let subject_above = !lines.get(i - 2)?.as_ref().trim().is_empty();
    (blank_above && subject_above).then(|| inner.to_string())
}

/// One physical line after re-flowing: its number in the input and text.
type Phys = (u64, String);

/// Split the input into lines, re-flowing any line that is a whole mail
/// flattened onto one line: a new line starts at each run of `>` markers.
fn physical_lines(text: &str) -> (Vec<Phys>, bool) {
    let mut out = Vec::new();
    let mut flattened = false;
    for (i, raw) in text.lines().enumerate() {
        let no = i as u64 + 1;
        if raw.len() > FLATTENED_LINE && raw.matches(" > ").count() >= 3 {
            flattened = true;
            reflow(no, raw, &mut out);
        } else {
            out.push((no, raw.to_string()));
        }
    }
    (out, flattened)
}

fn reflow(no: u64, raw: &str, out: &mut Vec<Phys>) {
    let toks: Vec<&str> = raw.split(' ').collect();
    let mut cur = String::new();
    let mut level = 0usize;
    let mut i = 0;
    while let Some(tok) = toks.get(i) {
        if !tok.is_empty() && tok.chars().all(|c| c == '>') {
            let mut n = 0;
            while let Some(t) = toks
                .get(i)
                .filter(|t| !t.is_empty() && t.chars().all(|c| c == '>'))
            {
                n += t.len();
                i += 1;
            }
            out.push((no, std::mem::take(&mut cur)));
            // `> > > >` after a level-2 line is an empty quoted line plus
            // the start of the next one: the flattening ate the newline.
            // (Only from level 2 up: after a level-1 line, `> >` is as
            // likely a level-2 line as an empty level-1 one.)
            let mut remaining = n;
            if level > 1 {
                while remaining >= 2 * level {
                    out.push((no, vec![">"; level].join(" ")));
                    remaining -= level;
                }
            }
            level = remaining;
            cur = vec![">"; remaining].join(" ");
            continue;
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(tok);
        i += 1;
    }
    out.push((no, cur));
}

/// `From jdoe@example.com Thu Jan  1 00:00:00 1970`: an mbox separator, not
/// prose that happens to start with "From".
fn is_mbox_from(line: &str) -> bool {
    let mut w = line.split_whitespace();
    w.next() == Some("From")
        && w.next()
            .is_some_and(|a| a.contains('@') || a == "MAILER-DAEMON")
        && w.next().is_some()
}

/// How a message is laid out in the input.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// RFC 822 headers starting at this index (after a `From ` line in an mbox).
    Headers(usize),
    /// Web archive: `[Author]` at this index.
    Web(usize),
}

#[derive(Debug, Clone)]
struct Msg {
    start: usize,
    layout: Layout,
}

fn split_messages(phys: &[Phys]) -> Vec<Msg> {
    let texts: Vec<&str> = phys.iter().map(|(_, t)| t.as_str()).collect();
    let mut msgs: Vec<Msg> = Vec::new();
    let first_nonblank = texts.iter().position(|t| !t.trim().is_empty()).unwrap_or(0);
    for (i, t) in texts.iter().enumerate() {
        let prev_blank = i == 0 || texts.get(i - 1).is_some_and(|p| p.trim().is_empty());
        if is_mbox_from(t) && prev_blank {
            // A flattened archive keeps the headers on the `From ` line.
            let headers_at = if t.len() > FLATTENED_LINE { i } else { i + 1 };
            msgs.push(Msg {
                start: i,
                layout: Layout::Headers(headers_at),
            });
        } else if i == first_nonblank && header_name(t).is_some() {
            msgs.push(Msg {
                start: i,
                layout: Layout::Headers(i),
            });
        } else if web_author_at(&texts, i).is_some() {
            msgs.push(Msg {
                start: i - 2,
                layout: Layout::Web(i),
            });
        }
    }
    if msgs.is_empty() {
        msgs.push(Msg {
            start: 0,
            layout: Layout::Web(usize::MAX),
        });
    }
    // Whatever precedes the first message (a repeated subject line) belongs to it.
    if let Some(m) = msgs.first_mut() {
        m.start = 0;
    }
    msgs
}

/// Headers of one message, and where its body starts.
struct Parsed {
    header: MailMessage,
    body_start: usize,
    qp_declared: bool,
    /// `Content-Transfer-Encoding: 7bit` / `8bit` / `binary`: the body is
    /// not quoted-printable, whatever `=20` it holds (`mint=200339msec`).
    plain_declared: bool,
    /// Index of the first header line when the body needs the MIME layer
    /// (multipart, base64, HTML).
    mime_from: Option<usize>,
}

fn parse_headers(phys: &[Phys], msg: &Msg, end: usize, flattened: bool) -> Parsed {
    let mut header = MailMessage::default();
    match msg.layout {
        Layout::Web(author) => {
            if let Some((_, a)) = phys.get(author) {
                header.from = Some(
                    a.trim()
                        .trim_start_matches('[')
                        .trim_end_matches(']')
                        .trim()
                        .to_string(),
                );
            }
            header.subject = author
                .checked_sub(2)
                .and_then(|s| phys.get(s))
                .map(|(_, t)| t.trim().to_string())
                .filter(|s| !s.is_empty());
            Parsed {
                header,
                body_start: if author == usize::MAX {
                    msg.start
                } else {
                    author + 1
                },
                qp_declared: false,
                plain_declared: false,
                mime_from: None,
            }
        }
        Layout::Headers(from) => {
            let mut fields: Vec<(String, String)> = Vec::new();
            let mut i = from;
            while i < end {
                let Some((_, t)) = phys.get(i) else { break };
                if t.trim().is_empty() {
                    i += 1;
                    break;
                }
                if t.starts_with([' ', '\t']) {
                    if let Some(last) = fields.last_mut() {
                        last.1.push(' ');
                        last.1.push_str(t.trim());
                    }
                } else if let Some(name) = header_name(t) {
                    let value = t.get(name.len() + 1..).unwrap_or("").trim().to_string();
                    fields.push((name.to_string(), value));
                } else if flattened && i == from {
                    // An archive line holding every header on one line.
                    fields.extend(flat_headers(t));
                    i += 1;
                    break;
                } else {
                    break;
                }
                i += 1;
            }
            if flattened && fields.len() == 1 {
                // The first header swallowed the rest of a flattened line.
                let joined = fields
                    .iter()
                    .map(|(n, v)| format!("{n}: {v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                fields = flat_headers(&joined);
            }
            let get = |name: &str| {
                fields
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.trim().to_string())
                    .filter(|v| !v.is_empty())
            };
            header.subject = get("Subject").map(|v| crate::mime::decode_header(&v));
            header.from = get("From").map(|v| crate::mime::decode_header(&v));
            header.date = get("Date");
            header.message_id = get("Message-ID").map(|v| strip_angles(&v));
            header.in_reply_to = get("In-Reply-To").map(|v| strip_angles(&v));
            let qp_declared = get("Content-Transfer-Encoding")
                .is_some_and(|v| v.to_ascii_lowercase().starts_with("quoted-printable"));
            let plain_declared = get("Content-Transfer-Encoding").is_some_and(|v| {
                matches!(v.to_ascii_lowercase().as_str(), "7bit" | "8bit" | "binary")
            });
            let mime = !flattened
                && crate::mime::needed(
                    get("Content-Type").as_deref(),
                    get("Content-Transfer-Encoding").as_deref(),
                );
            Parsed {
                header,
                body_start: i,
                qp_declared,
                plain_declared,
                mime_from: mime.then_some(from),
            }
        }
    }
}

fn strip_angles(v: &str) -> String {
    v.trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_string()
}

/// Headers from one line that holds them all: each known `Name: ` starts a
/// field that runs to the next one.
fn flat_headers(line: &str) -> Vec<(String, String)> {
    let mut marks: Vec<(usize, &str)> = Vec::new();
    for name in KNOWN_HEADERS {
        let pat = format!("{name}: ");
        let mut from = 0;
        while let Some(at) = line.get(from..).and_then(|s| s.find(&pat)) {
            let pos = from + at;
            let boundary = pos == 0 || line.get(..pos).is_some_and(|s| s.ends_with(' '));
            if boundary {
                marks.push((pos, name));
            }
            from = pos + pat.len();
        }
    }
    // Vendor headers (`X-Spam-Status: `) end a value too.
    let mut at = 0;
    for word in line.split(' ') {
        if word.len() > 3
            && word.starts_with("X-")
            && word.ends_with(':')
            && word
                .get(..word.len() - 1)
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        {
            let name = word.get(..word.len() - 1).unwrap_or(word);
            marks.push((at, name));
        }
        at += word.len() + 1;
    }
    marks.sort_unstable();
    marks.dedup_by_key(|m| m.0);
    let mut out = Vec::new();
    for (k, (pos, name)) in marks.iter().enumerate() {
        let vstart = pos + name.len() + 2;
        let vend = marks.get(k + 1).map(|(p, _)| *p).unwrap_or(line.len());
        let value = line.get(vstart..vend.max(vstart)).unwrap_or("").trim();
        out.push((name.to_string(), value.to_string()));
    }
    out
}

/// Whether a body is quoted-printable although nothing declared it.
fn evidently_qp(body: &[Phys]) -> bool {
    let mut escapes = 0;
    for (_, t) in body {
        // `=20` only where quoted-printable writes it, for a space at the
        // end of a line: `=20579` is a value (fio's `99.95th=[20579]`).
        escapes += t.matches("=3D").count()
            + usize::from(t.trim_end_matches('=').ends_with("=20"))
            + t.matches("=E2=80=").count();
        if t.contains("Content-Transfer-Encoding: quoted-printable") {
            return true;
        }
    }
    escapes >= 2
}

/// Decode quoted-printable: join soft line breaks, then `=XX` escapes to
/// bytes, read as UTF-8. A line the sender broke with an encoded `=0A`
/// (some webmailers write a whole body as soft-broken lines) becomes
/// several lines; each decoded line keeps the number of the physical line
/// it starts on.
pub(crate) fn decode_qp(body: &[Phys], flattened: bool) -> Vec<Phys> {
    let mut out: Vec<Phys> = Vec::new();
    // The logical line so far: its bytes, and where each physical line's
    // part of them begins.
    let mut bytes: Vec<u8> = Vec::new();
    let mut starts: Vec<(usize, u64)> = Vec::new();
    for (no, raw) in body {
        starts.push((bytes.len(), *no));
        let soft = raw.ends_with('=') && !raw.ends_with("==");
        let part = if soft {
            &raw[..raw.len() - 1]
        } else {
            raw.as_str()
        };
        qp_bytes(part, flattened, &mut bytes);
        if !soft {
            flush_qp(&mut out, &mut bytes, &mut starts);
        }
    }
    if !starts.is_empty() {
        flush_qp(&mut out, &mut bytes, &mut starts);
    }
    out
}

/// The decoded logical line, split at its encoded line breaks.
fn flush_qp(out: &mut Vec<Phys>, bytes: &mut Vec<u8>, starts: &mut Vec<(usize, u64)>) {
    // Pieces come in order, so one cursor over `starts` finds each
    // piece's physical line (linear however long the logical line).
    let mut at = 0;
    let mut from = 0;
    for raw in bytes.split(|&b| b == b'\n') {
        while starts.get(at + 1).is_some_and(|(begin, _)| *begin <= from) {
            at += 1;
        }
        let no = starts.get(at).map_or(0, |(_, no)| *no);
        let piece = raw.strip_suffix(b"\r").unwrap_or(raw);
        // `=B1` in a Latin-1 part is a `±`, not an invalid UTF-8 byte.
        out.push((no, crate::mime::decode_line(piece).into_owned()));
        from += raw.len() + 1;
    }
    bytes.clear();
    starts.clear();
}

/// The bytes of one physical line's quoted-printable text.
fn qp_bytes(text: &str, flattened: bool, bytes: &mut Vec<u8>) {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'=' {
            let hex = |k: usize| b.get(k).and_then(|h| (*h as char).to_digit(16));
            if let (Some(h), Some(l)) = (hex(i + 1), hex(i + 2))
                && b.get(i + 1).is_some_and(|x| !x.is_ascii_lowercase())
                && b.get(i + 2).is_some_and(|x| !x.is_ascii_lowercase())
            {
                bytes.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
            // A soft line break whose newline an archive turned into a space.
            if flattened && b.get(i + 1) == Some(&b' ') {
                i += 2;
                continue;
            }
        }
        bytes.push(c);
        i += 1;
    }
}

/// Parse a whole mail or thread. Never fails on a malformed block: that
/// becomes a warning. `bytes` is the size of the raw input.
pub fn parse(text: &str, bytes: u64, name: Option<&str>) -> Result<Document, ParseError> {
    let (phys, flattened) = physical_lines(text);
    let msgs = split_messages(&phys);

    // Decode every message body; keep headers for the context.
    let mut decoded: Vec<Phys> = Vec::new();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut messages: Vec<MailMessage> = Vec::new();
    for (k, msg) in msgs.iter().enumerate() {
        let end = msgs.get(k + 1).map(|m| m.start).unwrap_or(phys.len());
        let parsed = parse_headers(&phys, msg, end, flattened);
        let body = phys.get(parsed.body_start.min(end)..end).unwrap_or(&[]);
        let mime = parsed
            .mime_from
            .and_then(|from| crate::mime::body_lines(phys.get(from.min(end)..end).unwrap_or(&[])));
        let mut lines = if let Some(lines) = mime {
            lines
        } else if parsed.qp_declared || (!parsed.plain_declared && evidently_qp(body)) {
            decode_qp(body, flattened)
        } else {
            body.to_vec()
        };
        for line in &mut lines {
            if let Some(d) = crate::mime::iso2022jp_line(&line.1) {
                line.1 = d;
            }
        }
        let from = decoded.len();
        decoded.extend(lines);
        ranges.push((from, decoded.len()));
        let first_no = phys.get(msg.start).map(|p| p.0).unwrap_or(1);
        let last_no = phys
            .get(end.saturating_sub(1))
            .map(|p| p.0)
            .unwrap_or(first_no);
        let mut header = parsed.header;
        header.lines = [first_no, last_no.max(first_no)];
        messages.push(header);
    }

    let mut lines: Vec<Line<'_>> = decoded
        .iter()
        .map(|(no, t)| {
            let (quote, rest) = crate::lines::quote_and_text(t);
            Line {
                no: *no,
                text: rest,
                quote,
            }
        })
        .collect();
    crate::lines::undiff(&mut lines);
    crate::lines::requote_blanks(&mut lines);

    let mut blocks: Vec<Scanned> = Vec::new();
    let mut warnings = Vec::new();
    let mut first_failure: Option<ParseError> = None;
    for (k, &(from, to)) in ranges.iter().enumerate() {
        let slice = lines.get(from..to).unwrap_or(&[]);
        let scan = detect::scan(slice)?;
        if blocks.len() + scan.blocks.len() > crate::MAX_BLOCKS {
            return Err(crate::too_many_blocks(
                slice.first().map(|l| l.no).unwrap_or(0),
            ));
        }
        for mut s in scan.blocks {
            s.first += from;
            s.last += from;
            s.block.message = Some(k);
            s.block.quote_level = Some(lines.get(s.first).map(|l| l.quote).unwrap_or(0));
            blocks.push(s);
        }
        if first_failure.is_none() {
            first_failure = scan.failures.first().cloned();
        }
        let mut found: Vec<Warning> = scan.failures.iter().map(Warning::from_error).collect();
        found.extend(scan.unread);
        found.sort_by_key(|w| w.line);
        warnings.extend(found);
    }
    hints::annotate(&mut blocks, &lines, &ranges);
    // A mail without a result block is refused as any other text is: with
    // the first block that failed to read, else with what was looked for.
    if blocks.is_empty() {
        if let Some(e) = first_failure {
            return Err(e);
        }
        let first = ranges
            .iter()
            .flat_map(|&(from, to)| lines.get(from..to).unwrap_or(&[]))
            .find(|l| !l.text.trim().is_empty());
        return Err(ParseError::unrecognized(
            detect::looked_for(),
            first.map_or(0, |l| l.no),
            first.map_or("", |l| l.text),
        ));
    }

    let first = messages.first().cloned().unwrap_or_default();
    let context = MailContext {
        subject: first.subject,
        from: first.from,
        date: first.date,
        message_id: first.message_id,
        in_reply_to: first.in_reply_to,
        messages,
    };
    Ok(Document {
        source: Source {
            name: name.map(str::to_string),
            format: "mail".into(),
            bytes,
            lines: text.lines().count() as u64,
            parser_version: crate::PARSER_VERSION.to_string(),
        },
        context: Some(context),
        blocks: blocks.into_iter().map(|s| s.block).collect(),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qp_encoded_line_breaks_become_lines() {
        // A webmailer's body: every break an `=0A`, the lines soft-broken
        // anywhere, a UTF-8 character split across a soft break.
        let body = vec![
            (37, "wrote:=".to_string()),
            (38, "=0A=0A> T: 0 (1) Max:=".to_string()),
            (39, "    12=0A> =EF=BC=".to_string()),
            (40, "=9A end".to_string()),
        ];
        let out = decode_qp(&body, false);
        assert_eq!(
            out,
            vec![
                (37, "wrote:".to_string()),
                (38, "".to_string()),
                (38, "> T: 0 (1) Max:    12".to_string()),
                (39, "> \u{ff1a} end".to_string()),
            ]
        );
    }

    #[test]
    fn values_after_an_equals_sign_are_no_quoted_printable() {
        let body: Vec<Phys> = [
            "  read: IOPS=36.7k, BW=144MiB/s (150MB/s)(2048MiB/14271msec)",
            "     | 99.00th=[ 11600], 99.50th=[ 13304], 99.90th=[ 17171], 99.95th=[20579],",
            "   bw (  KiB/s): min=16510, max=295435, per=76.91%, avg=113025.79, stdev=20.5",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| (i as u64 + 1, t.to_string()))
        .collect();
        assert!(!evidently_qp(&body));
        let body: Vec<Phys> = vec![
            (1, "the numbers are below=20".into()),
            (2, "a =3D b".into()),
        ];
        assert!(evidently_qp(&body));
    }

    #[test]
    fn qp_soft_breaks_keep_first_line_number() {
        let body = vec![
            (10, "a =3D b=".to_string()),
            (11, "c".to_string()),
            (12, "11:09=E2=80=AFAM".to_string()),
        ];
        let out = decode_qp(&body, false);
        assert_eq!(
            out,
            vec![
                (10, "a = bc".to_string()),
                (12, "11:09\u{202f}AM".to_string())
            ]
        );
    }

    #[test]
    fn reflow_quote_runs() {
        let mut out = Vec::new();
        reflow(1, "On x wrote: > > a b > > > > c d > > e", &mut out);
        let texts: Vec<_> = out.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, ["On x wrote:", "> > a b", "> >", "> > c d", "> > e"]);
    }

    #[test]
    fn detects_mails() {
        assert!(is_mail(
            "From foo@bar Thu Jan 1 00:00:00 1970\nSubject: x\n\nbody"
        ));
        assert!(is_mail("Subject: x\nFrom: y\n\nbody"));
        assert!(is_mail("[PATCH] x\n\n[Some Author]\n\nbody"));
        assert!(!is_mail(
            "T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 4"
        ));
        assert!(!is_mail("real\t0m1.000s\nuser\t0m0.500s\nsys\t0m0.100s"));
    }

    #[test]
    fn flat_header_fields() {
        let f = flat_headers(
            "In-Reply-To: From: Barry Song <b@x> Date: Sat, 24 Feb 2024 11:20:36 +1300 Message-ID: Subject: Re: [PATCH] mm: x To: M",
        );
        let get = |n: &str| f.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        assert_eq!(get("From"), Some("Barry Song <b@x>"));
        assert_eq!(get("Subject"), Some("Re: [PATCH] mm: x"));
        assert_eq!(get("Message-ID"), Some(""));
    }
}
