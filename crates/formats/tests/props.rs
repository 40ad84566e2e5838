//! `parse` never panics: arbitrary bytes, truncations of every corpus file
//! (every directory, whoever owns it) at every line boundary and in the
//! middle of every line (splitting UTF-8 sequences too), and corpus files
//! with random bytes spliced in.

use proptest::prelude::*;
use reclaimlab_formats::{Document, parse, parse_str};

fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let root = format!("{}/tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(root)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path.display().to_string(), bytes));
            }
        }
    }
    out.sort();
    out
}

/// Whatever came back, it is internally consistent.
fn check(doc: &Document) {
    for b in &doc.blocks {
        assert!(b.lines[0] <= b.lines[1], "{:?}", b.lines);
        assert!(
            b.lines[1] <= doc.source.lines.max(1),
            "{:?} > {}",
            b.lines,
            doc.source.lines
        );
        if let Some(d) = b.duplicate_of {
            assert!(d < doc.blocks.len());
        }
    }
    serde_json::to_string(doc).unwrap();
}

fn parse_ok(bytes: &[u8]) {
    if let Ok(doc) = parse(bytes, None) {
        check(&doc);
    }
}

#[test]
fn every_truncation_of_every_corpus_file() {
    let files = corpus_files();
    assert!(files.len() > 10);
    for (_, bytes) in &files {
        let mut start = 0;
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'\n' {
                parse_ok(&bytes[..start]);
                parse_ok(&bytes[..(start + i) / 2 + 1]);
                parse_ok(&bytes[start..]);
                start = i + 1;
            }
        }
        parse_ok(bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        parse_ok(&bytes);
    }

    #[test]
    fn arbitrary_text_lines(lines in proptest::collection::vec("[ -~\t>=±µ]{0,80}", 0..40)) {
        parse_ok(lines.join("\n").as_bytes());
    }

    /// Any body in a multipart mail (HTML part, base64 part, and the same
    /// bytes really base64-encoded): no panic, spans inside the input.
    #[test]
    fn arbitrary_mime_bodies(body in "[ -~\t\n<>&;=]{0,600}", raw in proptest::collection::vec(any::<u8>(), 0..300)) {
        let encoded = base64(&raw);
        let mail = format!(
            "From: a@b\nSubject: =?UTF-8?B?{}?=\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: text/html\n\n{body}\n--b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n{body}\n--b\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n{encoded}\n--b--\n",
            base64(body.as_bytes()),
        );
        // A mail whose parts hold no result block is refused like any
        // other text: with the line it looked at, inside the input (0 when
        // every body is empty, as for an empty text).
        match parse(mail.as_bytes(), None) {
            Ok(doc) => check(&doc),
            Err(e) => prop_assert!(
                e.line <= mail.lines().count() as u64,
                "error line {} outside the mail: {e}",
                e.line
            ),
        }
    }

    #[test]
    fn corpus_with_bytes_spliced_in(
        file in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
        junk in proptest::collection::vec(any::<u8>(), 0..16),
    ) {
        let files = corpus_files();
        let (_, bytes) = file.get(&files);
        let at = at.index(bytes.len() + 1);
        let mut v = bytes[..at].to_vec();
        v.extend_from_slice(&junk);
        v.extend_from_slice(&bytes[at..]);
        let cut = cut.index(v.len() + 1);
        parse_ok(&v[..cut]);
    }
}

/// Standard base64, wrapped at 76 columns as mailers do.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (k, chunk) in bytes.chunks(3).enumerate() {
        if k > 0 && k % 19 == 0 {
            out.push('\n');
        }
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A real cyclictest block base64-encoded in an attachment comes back with
/// its values, at the lines of the encoded text.
#[test]
fn base64_attachment_round_trip() {
    let block = "T: 0 ( 4541) P:99 I:1000 C: 773124 Min:      1 Act:    6 Avg:    3 Max:   53381\nT: 1 ( 4542) P:99 I:1500 C: 515416 Min:      1 Act:    5 Avg:    3 Max:     147\n";
    let mail = format!(
        "From: a@b\nSubject: x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: text/plain\n\nsee attached\n--b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n{}\n--b--\n",
        base64(block.as_bytes())
    );
    let doc = parse(mail.as_bytes(), None).unwrap();
    assert_eq!(doc.blocks.len(), 1, "{doc:?}");
    let serde_json::Value::Object(b) = serde_json::to_value(&doc.blocks[0]).unwrap() else {
        panic!()
    };
    assert_eq!(b["threads"][0]["max_us"], 53381.0);
    assert_eq!(b["threads"][1]["max_us"], 147.0);
    // 160 bytes of text: the first line starts on encoded line 14, the
    // second (byte 81) on the second encoded line (57 bytes per line).
    assert_eq!(b["lines"], serde_json::json!([14, 15]));
}

/// The bodies of a document's blocks, without spans and hints.
/// Block bodies without the input line numbers they carry (events and
/// gaps of a trace name their lines), which shifting text changes.
fn bodies(doc: &Document) -> Vec<serde_json::Value> {
    fn drop_lines(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("line");
                m.values_mut().for_each(drop_lines);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(drop_lines),
            _ => {}
        }
    }
    doc.blocks
        .iter()
        .map(|b| {
            let mut v = serde_json::to_value(&b.body).unwrap();
            drop_lines(&mut v);
            v
        })
        .collect()
}

/// Prose is context, never a reason to fail: every corpus file that parses
/// as plain text gives the same blocks with a greeting and a paragraph in
/// front of it and a signature after it, at lines shifted by the prose.
#[test]
fn prose_around_a_block_changes_nothing_but_line_numbers() {
    let head = "Hi all,\n\nHere are the numbers from my test box, with the series applied\non top of the current tree (see below for the setup):\n\n";
    let tail = "\nThanks,\nA. Tester\n";
    let shift = head.lines().count() as u64;
    let mut checked = 0;
    for (path, bytes) in corpus_files() {
        if path.contains("/mail/") || path.contains("cyclictest_json") {
            continue;
        }
        let Ok(bare) = parse(&bytes, None) else {
            continue;
        };
        if bare.source.format == "mail" {
            continue;
        }
        let mut wrapped = head.as_bytes().to_vec();
        wrapped.extend_from_slice(&bytes);
        wrapped.extend_from_slice(tail.as_bytes());
        let doc = parse(&wrapped, None).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(bodies(&doc), bodies(&bare), "{path}");
        let spans: Vec<_> = doc.blocks.iter().map(|b| b.lines).collect();
        let moved: Vec<_> = bare
            .blocks
            .iter()
            .map(|b| [b.lines[0] + shift, b.lines[1] + shift])
            .collect();
        assert_eq!(spans, moved, "{path}");
        checked += 1;
    }
    assert!(checked > 30, "{checked}");
}

/// Collapse runs of whitespace in every string of a JSON value.
fn squeeze_spaces(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) => *s = s.split_whitespace().collect::<Vec<_>>().join(" "),
        serde_json::Value::Array(a) => a.iter_mut().for_each(squeeze_spaces),
        serde_json::Value::Object(o) => o.values_mut().for_each(squeeze_spaces),
        _ => {}
    }
}

/// Wrap like a mail client at `width` columns: a longer line breaks after
/// the last space that keeps it within the width (`fold -s`).
fn fold(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut rest = line;
        while rest.len() > width {
            let cut = rest
                .get(..width)
                .and_then(|head| head.rfind(' '))
                .map(|p| p + 1)
                .filter(|&p| p > 0);
            let Some(cut) = cut else { break };
            out.push_str(&rest[..cut]);
            out.push('\n');
            rest = &rest[cut..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// cyclictest summaries, ftrace reports, `time` and perf stat survive a
/// 72-column hard wrap: every unquoted corpus file of those kinds gives the
/// same blocks folded as it does as printed.
#[test]
fn a_mail_clients_hard_wrap_changes_nothing() {
    let mut checked = 0;
    for (path, bytes) in corpus_files() {
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        if text.lines().any(|l| l.starts_with('>')) || !text.is_ascii() {
            continue;
        }
        let Ok(bare) = parse_str(text, None) else {
            continue;
        };
        let survives = |b: &reclaimlab_formats::Block| match &b.body {
            reclaimlab_formats::BlockBody::Cyclictest(_)
            | reclaimlab_formats::BlockBody::FtraceLatency(_)
            | reclaimlab_formats::BlockBody::Time(_) => true,
            reclaimlab_formats::BlockBody::Metrics(m) => m.tool == "perf-stat",
            _ => false,
        };
        if matches!(bare.source.format.as_str(), "mail" | "cyclictest_json")
            || bare.blocks.is_empty()
            || !bare.blocks.iter().all(survives)
        {
            continue;
        }
        let folded = fold(text, 72);
        if folded == text {
            continue;
        }
        let doc = parse_str(&folded, None).unwrap_or_else(|e| panic!("{path}: {e}"));
        // A wrap eats the spaces at the cut: compare text modulo spacing.
        let squeeze = |d: &Document| {
            let mut v = serde_json::Value::Array(bodies(d));
            squeeze_spaces(&mut v);
            v
        };
        assert_eq!(squeeze(&doc), squeeze(&bare), "{path}");
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}
