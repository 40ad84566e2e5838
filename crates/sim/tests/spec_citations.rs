//! Every "spec §n" the simulator's code cites names a section of
//! docs/SIM-MODEL.md, the specification kept in the repository.

use std::collections::BTreeSet;
use std::path::Path;

/// Section numbers of the spec's headings: "### 2.2d Direct ..." -> "2.2d".
fn sections(spec: &str) -> BTreeSet<String> {
    spec.lines()
        .filter_map(|l| {
            let l = l.strip_prefix('#')?.trim_start_matches('#');
            let n = l.trim().split(' ').next()?.trim_end_matches('.');
            n.starts_with(|c: char| c.is_ascii_digit())
                .then(|| n.to_string())
        })
        .collect()
}

/// The section numbers after "§" in `text` (a range "2.1-2.2" gives both).
fn cited(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices('§') {
        let rest = &text[i + '§'.len_utf8()..];
        let tok: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
            .collect();
        for part in tok.split('-') {
            let p = part.trim_end_matches('.');
            if p.starts_with(|c: char| c.is_ascii_digit()) {
                out.push(p.to_string());
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs" || x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_spec_citation_resolves_to_a_section() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join("../../docs/SIM-MODEL.md")).unwrap();
    let have = sections(&spec);
    assert!(have.contains("2.2d") && have.contains("1.11"), "{have:?}");
    let mut files = Vec::new();
    for d in ["src", "examples", "tests", "benches", "data"] {
        rust_files(&root.join(d), &mut files);
    }
    let mut checked = 0;
    let mut missing = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for n in cited(&text) {
            checked += 1;
            if !have.contains(&n) {
                missing.push(format!("{}: §{n}", f.display()));
            }
        }
    }
    assert!(checked > 40, "only {checked} citations found");
    assert!(
        missing.is_empty(),
        "citations without a section: {missing:?}"
    );
}

#[test]
fn citation_scanner_reads_ranges_and_trailing_dots() {
    assert_eq!(cited("spec §2.1-2.2. and §1.12."), ["2.1", "2.2", "1.12"]);
    assert!(cited("spec §n").is_empty());
    let s = sections("# title\n### 2.2d Direct reclaim\n## 3. Validation\n4.2 not a heading\n");
    assert!(s.contains("2.2d") && s.contains("3") && !s.contains("4.2"));
}
