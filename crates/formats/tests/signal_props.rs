//! No input makes the latency-signal parsers panic: arbitrary bytes, every
//! truncation of every corpus file, and corpus lines shuffled and mutated,
//! fed to every recognizer (at every line) and to the streaming parsers.

use std::path::Path;

use proptest::prelude::*;
use reclaimlab_formats::lines::{self, Line};
use reclaimlab_formats::{
    BlockBody, ParseError, cyclictest, cyclictest_json, ftrace, histogram, rtla,
};

type Recognizer = fn(&[Line<'_>], usize) -> Option<Result<(usize, BlockBody), ParseError>>;

const RECOGNIZERS: [Recognizer; 5] = [
    cyclictest::recognize,
    histogram::recognize,
    cyclictest_json::recognize,
    rtla::recognize,
    ftrace::recognize,
];

fn corpus() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut out = Vec::new();
    for dir in [
        "cyclictest",
        "histogram",
        "cyclictest_json",
        "rtla",
        "ftrace",
    ] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            out.push(std::fs::read(e.unwrap().path()).unwrap());
        }
    }
    out
}

/// Run every recognizer the way the mail scanner does, plus the streaming
/// parsers; only panics matter, results are checked for sane spans.
fn exercise(bytes: &[u8]) {
    exercise_recognizers(bytes);
    let _ = whole(bytes);
}

fn exercise_recognizers(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let lines = lines::split(&text);
    for rec in RECOGNIZERS {
        let mut i = 0;
        while i < lines.len() {
            match rec(&lines, i) {
                Some(Ok((n, _))) => {
                    assert!(
                        n >= 1 && i + n <= lines.len(),
                        "span {i}+{n} of {}",
                        lines.len()
                    );
                    i += n;
                }
                Some(Err(e)) => {
                    assert!(e.line >= 1 && e.line <= lines.len() as u64 || e.line == 0);
                    i += 1;
                }
                None => i += 1,
            }
        }
    }
}

/// The whole parse with a scan window of 5 lines: every report longer than
/// that goes through its streaming accumulator.
fn whole(bytes: &[u8]) -> Result<reclaimlab_formats::Document, reclaimlab_formats::ParseError> {
    let limits = reclaimlab_formats::Limits {
        window_lines: 5,
        ..Default::default()
    };
    reclaimlab_formats::parse_reader(bytes, None, &limits)
}

#[test]
fn every_truncation_of_every_corpus_file() {
    for file in corpus() {
        for cut in 0..=file.len() {
            exercise_recognizers(&file[..cut]);
            // The whole parse at every line end and in the middle of lines
            // now and then (it costs far more than one recognizer).
            if cut == file.len() || file.get(cut) == Some(&b'\n') || cut % 97 == 0 {
                let _ = whole(&file[..cut]);
            }
        }
    }
}

fn corpus_lines() -> Vec<String> {
    corpus()
        .iter()
        .flat_map(|f| {
            String::from_utf8_lossy(f)
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        exercise(&bytes);
    }

    #[test]
    fn shuffled_and_mutated_corpus_lines(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..60),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..20),
        quote in 0u8..3,
    ) {
        let pool = corpus_lines();
        let mut text = Vec::new();
        for p in &picks {
            for _ in 0..quote {
                text.extend_from_slice(b"> ");
            }
            text.extend_from_slice(p.get(&pool).as_bytes());
            text.push(b'\n');
        }
        for (at, b) in &flips {
            let i = at.index(text.len());
            text[i] = *b;
        }
        exercise(&text);
    }
}
