//! Fuzz target: the MIME layer. The input is read as a whole message, as
//! the HTML of a part and as base64 lines; on top, it is wrapped into a
//! multipart mail with a base64 attachment and parsed whole. Whatever comes
//! back must keep line numbers inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reclaimlab_formats::mime;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines: Vec<(u64, String)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l.to_string()))
        .collect();
    let n = lines.len() as u64;
    for out in [
        mime::body_lines(&lines).unwrap_or_default(),
        mime::html_to_text(&lines),
        mime::base64_lines(&lines, false),
    ] {
        assert!(out.iter().all(|(no, _)| *no >= 1 && *no <= n.max(1)));
    }
    let mail = format!(
        "From: a@b\nSubject: x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: text/html\n\n{text}\n--b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n{text}\n--b--\n"
    );
    if let Ok(doc) = reclaimlab_formats::parse_str(&mail, None) {
        let lines = mail.lines().count() as u64;
        assert!(doc.blocks.iter().all(|b| b.lines[0] <= b.lines[1] && b.lines[1] <= lines));
    }
});
