//! Every recognizer of [`detect::RECOGNIZERS`] has at least one real sample.
//!
//! The corpus harnesses (`real_corpus.rs`, `pastes.rs`, `kinds_corpus.rs`,
//! `table_corpus.rs`, `signal_corpus.rs`) check the samples that exist; this
//! test checks that they exist. It scans every file under `tests/real`,
//! `tests/pastes` and `tests/corpus` (manifests left out) with
//! [`detect::scan`] and records which recognizer claimed a block. A format
//! added to the list without a sample in one of those directories fails
//! here, by name. Nothing in this file lists formats: the names come from
//! `RECOGNIZERS` itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use reclaimlab_formats::{detect, lines};

const ROOTS: &[&str] = &["tests/real", "tests/pastes", "tests/corpus"];

/// Recognizers that have no real sample yet, with why. Each must still be
/// without one: when a sample arrives, this test fails until the line goes.
const WITHOUT_SAMPLE: &[(&str, &str)] = &[];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            if !name.starts_with("manifest.") && name != "README.md" {
                out.push(p);
            }
        }
    }
}

#[test]
fn every_recognizer_claims_a_block_of_some_corpus_sample() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut samples = Vec::new();
    for root in ROOTS {
        files(&base.join(root), &mut samples);
    }
    assert!(samples.len() > 300, "found only {} samples", samples.len());

    // Recognizer name -> the first sample where it claimed a block.
    let mut first: BTreeMap<&'static str, String> = BTreeMap::new();
    for path in &samples {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let text = String::from_utf8_lossy(&bytes);
        let lines = lines::split(&text);
        let Ok(scan) = detect::scan(&lines) else {
            continue;
        };
        let rel = path
            .strip_prefix(base)
            .unwrap_or(path)
            .display()
            .to_string();
        for block in scan.blocks {
            first
                .entry(block.format.name())
                .or_insert_with(|| rel.clone());
        }
    }

    let missing: Vec<&str> = detect::RECOGNIZERS
        .iter()
        .map(|r| r.name())
        .filter(|n| !first.contains_key(n))
        .filter(|n| !WITHOUT_SAMPLE.iter().any(|(w, _)| w == n))
        .collect();
    assert!(
        missing.is_empty(),
        "recognizers without a real sample under {ROOTS:?}: {missing:?} \
         (add one with its source and manifest entry; see tests/real/README.md)"
    );
    for (name, why) in WITHOUT_SAMPLE {
        assert!(
            detect::by_name(name).is_some(),
            "WITHOUT_SAMPLE names {name}, which is not a recognizer"
        );
        if let Some(sample) = first.get(name) {
            panic!("{name} now has a sample ({sample}): remove it from WITHOUT_SAMPLE ({why})");
        }
    }
    for (name, sample) in &first {
        println!("{name:<22} {sample}");
    }
}
