//! The fio and sysbench readers on damaged real samples: every sample of
//! `tests/real/fio` and `tests/real/sysbench`, cut after each line, with
//! each line left out, and cut inside lines, parses without a panic, and
//! every block it returns lies inside the input. (The fuzz targets run the
//! same recognizers on arbitrary bytes; `fuzz/smoke.sh` seeds them with
//! these samples.)

use std::path::Path;

fn samples() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["fio", "sysbench"] {
        let d = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/real")
            .join(dir);
        let mut paths: Vec<_> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.expect("entry").path())
            .filter(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                !name.starts_with("manifest.") && !name.ends_with(".json")
            })
            .collect();
        paths.sort();
        for p in paths {
            let text = String::from_utf8_lossy(&std::fs::read(&p).expect("read")).into_owned();
            out.push((p.display().to_string(), text));
        }
    }
    assert!(out.len() >= 20, "only {} samples", out.len());
    out
}

fn check(name: &str, text: &str) {
    let n_lines = text.lines().count() as u64;
    if let Ok(doc) = reclaimlab_formats::parse(text.as_bytes(), Some(name)) {
        let v = serde_json::to_value(&doc).expect("serialises");
        for b in v["blocks"].as_array().into_iter().flatten() {
            let lines = &b["lines"];
            let (a, z) = (
                lines[0].as_u64().unwrap_or(0),
                lines[1].as_u64().unwrap_or(0),
            );
            assert!(
                a >= 1 && a <= z && z <= n_lines.max(1),
                "{name}: block lines {a}-{z} of {n_lines}"
            );
        }
    }
}

#[test]
fn every_cut_and_every_missing_line_parses_without_panic() {
    for (name, text) in samples() {
        let lines: Vec<&str> = text.lines().collect();
        for cut in 0..=lines.len() {
            check(&name, &lines[..cut].join("\n"));
        }
        for skip in 0..lines.len() {
            let kept: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != skip)
                .map(|(_, l)| *l)
                .collect();
            check(&name, &kept.join("\n"));
        }
        // Cuts inside lines (on char boundaries).
        let step = (text.len() / 97).max(1);
        for at in (0..text.len()).step_by(step) {
            if text.is_char_boundary(at) {
                check(&name, &text[..at]);
            }
        }
    }
}
