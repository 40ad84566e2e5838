//! The document does not depend on how the input arrives: a long function
//! trace or histogram read whole, in the CLI's 128 kB chunks, in odd-sized
//! chunks or one byte at a time gives the same JSON. The long blocks'
//! accumulators take whole runs of lines from the read buffer at once
//! (`parse_reader`'s fast loop) only when a line starts a buffer's rest, so
//! the chunk sizes decide which lines go that way and which one by one.
//! The inputs are the benchmark generators' (`bench/gen/signal_inputs.rs`)
//! at 768 kB (past the first scan window, so the accumulators run), as
//! generated and with damage that must leave the fast loop:
//! CRLF line ends, an extra space in a time field, a fractional time, a
//! time of nine digits, trailing spaces, a `<stack trace>` and a histogram
//! cell that is not six digits.

use std::io::BufReader;

use reclaimlab_formats::{Limits, parse, parse_reader};

#[path = "../../../bench/gen/signal_inputs.rs"]
#[allow(dead_code)]
mod signal_inputs;

const SIZE: u64 = 768 << 10;

fn generated(kind: &str) -> Vec<u8> {
    let mut v = Vec::new();
    match kind {
        "irqsoff" => signal_inputs::irqsoff(&mut v, SIZE),
        "wakeup_rt" => signal_inputs::wakeup_rt(&mut v, SIZE),
        _ => signal_inputs::histogram(&mut v, SIZE),
    }
    .expect("generate");
    v
}

/// `input` with every `every`-th line (from line 5000 on, past the first
/// scan window) changed by `f`.
fn damaged(input: &[u8], every: usize, f: impl Fn(usize, &str) -> String) -> Vec<u8> {
    let text = String::from_utf8_lossy(input);
    let mut out = String::new();
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i >= 5000 && i % every == 0 {
            let (body, end) = l.strip_suffix('\n').map_or((l, ""), |b| (b, "\n"));
            out.push_str(&f(i, body));
            out.push_str(end);
        } else {
            out.push_str(l);
        }
    }
    out.into_bytes()
}

fn json_of(r: Result<reclaimlab_formats::Document, reclaimlab_formats::ParseError>) -> String {
    match r {
        Ok(d) => serde_json::to_string(&d).expect("json"),
        Err(e) => format!("error: {e}"),
    }
}

fn same_in_every_chunking(name: &str, input: &[u8]) {
    let whole = json_of(parse(input, Some("x")));
    assert!(whole.len() > 1000, "{name}: {whole}");
    for cap in [1usize, 100, 1 << 17] {
        let got = json_of(parse_reader(
            BufReader::with_capacity(cap, input),
            Some("x"),
            &Limits::default(),
        ));
        assert!(got == whole, "{name}: chunks of {cap} bytes differ");
    }
}

#[test]
fn traces_and_histograms_read_the_same_in_any_chunks() {
    for kind in ["irqsoff", "wakeup_rt", "histogram"] {
        let input = generated(kind);
        same_in_every_chunking(kind, &input);
        let crlf = damaged(&input, 1, |_, l| format!("{l}\r"));
        same_in_every_chunking(&format!("{kind} crlf"), &crlf);
        let mixed = damaged(&input, 37, |i, l| match i % 7 {
            0 => l.replacen("us :", "us  :", 1),
            1 => l.replacen("us :", ".5us :", 1),
            2 => l.replacen(" 0", " 123456789", 1),
            3 => format!("{l}   "),
            4 => l.replacen("us : ", "us : <stack trace> ", 1),
            5 => l.replacen("\t000000", "\t00000x", 1),
            _ => l.replacen(' ', "  ", 1),
        });
        same_in_every_chunking(&format!("{kind} damaged"), &mixed);
    }
}

#[test]
fn an_input_limit_holds_inside_the_fast_loop() {
    let input = generated("irqsoff");
    for max in [input.len() as u64 - 1, input.len() as u64 / 2 + 13] {
        let limits = Limits {
            max_input_bytes: Some(max),
            ..Limits::default()
        };
        let want = json_of(parse_reader(
            BufReader::with_capacity(1, &input[..]),
            None,
            &limits,
        ));
        assert!(want.starts_with("error:"), "{want}");
        for cap in [100usize, 1 << 17] {
            let got = json_of(parse_reader(
                BufReader::with_capacity(cap, &input[..]),
                None,
                &limits,
            ));
            assert_eq!(got, want, "max {max}, chunks of {cap}");
        }
    }
    let limits = Limits {
        max_input_bytes: Some(input.len() as u64),
        ..Limits::default()
    };
    let got = json_of(parse_reader(&input[..], None, &limits));
    assert_eq!(got, json_of(parse(&input, None)));
}
