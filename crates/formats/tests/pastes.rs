//! Real pastes: every directory under `tests/pastes/` holds samples of one
//! format as people posted them (mails, issues, documentation, real tool
//! runs) and a `manifest.toml` naming each file's source and the values
//! its document must hold, as JSON pointers into the document.
//!
//! ```toml
//! [[sample]]
//! file = "two-verbose-runs.txt"
//! source = "https://github.com/owner/repo/issues/1"
//! blocks = 2
//! [sample.expect]
//! "/blocks/0/exit_status" = 3
//! ```
//!
//! Directories are found by walking the tree: a new format needs no line
//! here. Every file must be in its manifest, every sample must name a
//! source, and every sample must parse identically from bytes and from a
//! string (the CLI and the upload API take the two paths).

use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pastes")
}

#[derive(Debug)]
struct Sample {
    dir: String,
    file: String,
    source: String,
    blocks: Option<usize>,
    warnings: Option<usize>,
    expect: Vec<(String, toml::Value)>,
}

fn manifests() -> Vec<Sample> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(dir.join("manifest.toml"))
            .unwrap_or_else(|e| panic!("{name}/manifest.toml: {e}"));
        let table: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("{name}/manifest.toml: {e}"));
        let samples = table
            .get("sample")
            .and_then(|s| s.as_array())
            .unwrap_or_else(|| panic!("{name}/manifest.toml: no [[sample]]"));
        for s in samples {
            let get = |k: &str| s.get(k).and_then(|v| v.as_str()).map(str::to_string);
            let count = |k: &str| s.get(k).and_then(|v| v.as_integer()).map(|n| n as usize);
            let expect = s
                .get("expect")
                .and_then(|e| e.as_table())
                .map(|t| t.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default();
            out.push(Sample {
                dir: name.clone(),
                file: get("file").unwrap_or_else(|| panic!("{name}: a sample without file")),
                source: get("source").unwrap_or_default(),
                blocks: count("blocks"),
                warnings: count("warnings"),
                expect,
            });
        }
    }
    out
}

fn matches(found: &Value, want: &toml::Value) -> bool {
    match (found, want) {
        (Value::Number(n), toml::Value::Integer(w)) => n.as_f64() == Some(*w as f64),
        (Value::Number(n), toml::Value::Float(w)) => n
            .as_f64()
            .is_some_and(|f| (f - w).abs() <= 1e-9 * w.abs().max(1.0)),
        (Value::String(s), toml::Value::String(w)) => s == w,
        (Value::Bool(b), toml::Value::Boolean(w)) => b == w,
        (Value::Null, toml::Value::String(w)) => w == "null",
        (Value::Array(a), toml::Value::Array(w)) => {
            a.len() == w.len() && a.iter().zip(w).all(|(f, w)| matches(f, w))
        }
        _ => false,
    }
}

/// Check one sample; the failures as messages.
fn check(s: &Sample) -> Vec<String> {
    let path = root().join(&s.dir).join(&s.file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = format!("{}/{}", s.dir, s.file);
    let doc = match reclaimlab_formats::parse(&bytes, Some(&name)) {
        Ok(d) => d,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let json = serde_json::to_value(&doc).unwrap();
    let mut errs = Vec::new();
    if let Ok(text) = std::str::from_utf8(&bytes) {
        let again = reclaimlab_formats::parse_str(text, Some(&name)).unwrap();
        if again != doc {
            errs.push(format!("{name}: parse and parse_str disagree"));
        }
    }
    if let Some(n) = s.blocks
        && doc.blocks.len() != n
    {
        let kinds: Vec<_> = doc.blocks.iter().map(|b| (b.kind(), b.lines)).collect();
        errs.push(format!(
            "{name}: {} blocks, want {n}: {kinds:?}",
            doc.blocks.len()
        ));
    }
    if let Some(n) = s.warnings
        && doc.warnings.len() != n
    {
        errs.push(format!("{name}: warnings {:?}, want {n}", doc.warnings));
    }
    for (ptr, want) in &s.expect {
        match json.pointer(ptr) {
            Some(found) if matches(found, want) => {}
            found => errs.push(format!("{name}: {ptr} is {found:?}, want {want}")),
        }
    }
    errs
}

#[test]
fn every_sample_holds_its_values() {
    let samples = manifests();
    assert!(!samples.is_empty());
    let mut errs = Vec::new();
    let mut values = 0;
    for s in &samples {
        values += s.expect.len();
        errs.extend(check(s));
    }
    eprintln!("{} samples, {values} values", samples.len());
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

#[test]
fn every_file_is_in_its_manifest_with_a_source() {
    let samples = manifests();
    for s in &samples {
        assert!(
            s.source.starts_with("https://") || s.source.starts_with("generated:"),
            "{}/{}: source must be a link or `generated: <tool, version, command>`",
            s.dir,
            s.file
        );
        assert!(
            !s.expect.is_empty() || s.blocks.is_some(),
            "{}/{}: no expectations",
            s.dir,
            s.file
        );
    }
    for dir in std::fs::read_dir(root()).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let d = dir.file_name().unwrap().to_string_lossy().to_string();
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().file_name().to_string_lossy().to_string();
            if f == "manifest.toml" {
                continue;
            }
            assert!(
                samples.iter().any(|s| s.dir == d && s.file == f),
                "{d}/{f} is not in {d}/manifest.toml"
            );
        }
    }
}
