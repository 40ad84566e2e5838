//! The real-world corpus: every directory under `tests/real/` with a
//! `manifest.toml` is found by itself (no list here). Each sample is parsed
//! with `reclaimlab_formats::parse`, its blocks are counted by kind (quoted
//! copies with `duplicate_of` do not count) and every expected key value of
//! its manifest is resolved in the block's JSON and compared.
//!
//! A sample with `known_gap = "..."` must still fail: when a parser fix makes
//! it pass, this test fails until the flag is removed. The path grammar and
//! the manifest fields are described in `tests/real/README.md`.
//!
//! `REAL_CORPUS_DUMP=<substring of a file name>` prints the parsed document
//! of the matching samples; `REAL_CORPUS_VERBOSE=1` prints why every known
//! gap fails. `REAL_CORPUS_ROOT=<dir>` reads the manifests under another
//! directory instead (a set being scored before it joins the corpus).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

const DEFAULT_TOLERANCE: f64 = 1e-9;
const ORIGINS: &[&str] = &["lore", "archive", "repo", "issue", "docs", "tool"];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    #[serde(default)]
    sample: Vec<Sample>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sample {
    file: String,
    source: String,
    origin: String,
    /// Blocks of each kind a careful reader sees (at least this many).
    #[serde(default)]
    blocks: BTreeMap<String, usize>,
    /// Path into the document (see README) => expected value.
    #[serde(default)]
    values: BTreeMap<String, toml::Value>,
    /// Relative tolerance for numbers (default 1e-9).
    #[serde(default)]
    tolerance: Option<f64>,
    /// What the parser gets wrong today; the sample must then fail.
    #[serde(default)]
    known_gap: Option<String>,
    /// The tool's own machine-readable output of the same run (JSON/YAML),
    /// from which the values were taken.
    #[serde(default)]
    expected_from: Option<String>,
    /// Free text for the reader: what the sample shows, how values were read.
    #[serde(default)]
    note: Option<String>,
}

/// `tests/real`, or the directory `REAL_CORPUS_ROOT` names: a new set of
/// samples is scored with this same harness before it joins the corpus.
fn real_dir() -> PathBuf {
    match std::env::var_os("REAL_CORPUS_ROOT") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real"),
    }
}

/// Every directory below `root` that holds a `manifest.toml`, sorted.
fn manifest_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            }
        }
        if dir.join("manifest.toml").is_file() {
            out.push(dir);
        }
    }
    out.sort();
    out
}

/// One step of a value path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    /// `[k=v,k2=v2]`: the first element whose fields (or, for an array
    /// element, whose positions) match every pair.
    Filter(Vec<(String, String)>),
}

/// Index of the `]` that closes a `[` just before `s`; brackets inside a
/// filter value nest (`[name=usemem[1] time]`).
fn closing_bracket(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth == 0 => return Some(i),
            ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `kind[N]` then steps: `.field`, `[N]`, `[k=v]`, `[k=v,k2=v2]`.
fn parse_path(path: &str) -> Result<(String, usize, Vec<Step>), String> {
    let open = path.find('[').ok_or("a path starts with kind[N]")?;
    let kind = path[..open].to_string();
    let close = path[open..].find(']').ok_or("unclosed [ after the kind")? + open;
    let ordinal: usize = path[open + 1..close]
        .parse()
        .map_err(|_| format!("kind ordinal {:?} is not a number", &path[open + 1..close]))?;
    let mut steps = Vec::new();
    let mut rest = &path[close + 1..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return Err(format!("empty field name at {rest:?}"));
            }
            steps.push(Step::Field(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = closing_bracket(r).ok_or_else(|| format!("unclosed [ at {rest:?}"))?;
            let inner = &r[..end];
            if let Ok(i) = inner.parse::<i64>() {
                steps.push(Step::Index(i));
            } else {
                let mut pairs = Vec::new();
                for pair in inner.split(',') {
                    let (k, v) = pair
                        .split_once('=')
                        .ok_or_else(|| format!("filter {inner:?} is not k=v"))?;
                    pairs.push((k.trim().to_string(), v.trim().to_string()));
                }
                steps.push(Step::Filter(pairs));
            }
            rest = &r[end + 1..];
        } else {
            return Err(format!("expected . or [ at {rest:?}"));
        }
    }
    Ok((kind, ordinal, steps))
}

fn matches_text(v: &Value, want: &str) -> bool {
    match v {
        Value::String(s) => s == want,
        Value::Number(n) => match (n.as_f64(), want.parse::<f64>()) {
            (Some(a), Ok(b)) => a == b,
            _ => false,
        },
        Value::Bool(b) => want.parse::<bool>().ok() == Some(*b),
        Value::Null => want == "null",
        _ => false,
    }
}

fn element_field<'a>(elem: &'a Value, key: &str) -> Option<&'a Value> {
    match elem {
        Value::Object(m) => m.get(key),
        Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    }
}

fn resolve<'a>(mut v: &'a Value, steps: &[Step]) -> Result<&'a Value, String> {
    for (n, step) in steps.iter().enumerate() {
        let next = match step {
            Step::Field(f) => v.get(f.as_str()),
            Step::Index(i) => v.as_array().and_then(|a| {
                let idx = if *i < 0 { a.len() as i64 + i } else { *i };
                usize::try_from(idx).ok().and_then(|idx| a.get(idx))
            }),
            Step::Filter(pairs) => v.as_array().and_then(|a| {
                a.iter().find(|e| {
                    pairs
                        .iter()
                        .all(|(k, want)| element_field(e, k).is_some_and(|x| matches_text(x, want)))
                })
            }),
        };
        v = next.ok_or_else(|| format!("nothing at step {} ({step:?})", n + 1))?;
    }
    Ok(v)
}

fn close_enough(actual: f64, expected: f64, tol: f64) -> bool {
    if expected == 0.0 {
        return actual.abs() <= tol;
    }
    ((actual - expected) / expected).abs() <= tol
}

fn compare(actual: &Value, expected: &toml::Value, tol: f64) -> Result<(), String> {
    let ok = match expected {
        toml::Value::Integer(i) => actual
            .as_f64()
            .is_some_and(|a| close_enough(a, *i as f64, tol)),
        toml::Value::Float(f) => actual.as_f64().is_some_and(|a| close_enough(a, *f, tol)),
        toml::Value::String(s) if s == "<null>" => actual.is_null(),
        toml::Value::String(s) => actual.as_str() == Some(s.as_str()),
        toml::Value::Boolean(b) => actual.as_bool() == Some(*b),
        toml::Value::Array(items) => match actual.as_array() {
            Some(a) if a.len() == items.len() => {
                for (x, e) in a.iter().zip(items) {
                    compare(x, e, tol)?;
                }
                true
            }
            _ => false,
        },
        other => return Err(format!("unsupported expected value {other}")),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expected}, got {actual}"))
    }
}

/// Every failure of one sample (empty when it holds).
fn check_sample(dir: &Path, s: &Sample) -> Vec<String> {
    let path = dir.join(&s.file);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => return vec![format!("cannot read: {e}")],
    };
    let doc = match reclaimlab_formats::parse(&bytes, Some(&s.file)) {
        Ok(d) => d,
        Err(e) => return vec![format!("parse error: {e}")],
    };
    let json = serde_json::to_value(&doc).expect("a document serializes");
    if std::env::var("REAL_CORPUS_DUMP").is_ok_and(|p| !p.is_empty() && s.file.contains(&p)) {
        println!(
            "== {}\n{}",
            path.display(),
            serde_json::to_string_pretty(&json).expect("json")
        );
    }
    let mut by_kind: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for block in json["blocks"].as_array().into_iter().flatten() {
        if block.get("duplicate_of").is_some() {
            continue;
        }
        let kind = block["kind"].as_str().unwrap_or("?").to_string();
        by_kind.entry(kind).or_default().push(block);
    }
    let mut failures = Vec::new();
    for (kind, want) in &s.blocks {
        let got = by_kind.get(kind).map_or(0, Vec::len);
        if got < *want {
            failures.push(format!("blocks: {want} {kind} expected, {got} found"));
        }
    }
    let tol = s.tolerance.unwrap_or(DEFAULT_TOLERANCE);
    for (key, expected) in &s.values {
        let (kind, ordinal, steps) = match parse_path(key) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{key}: bad path: {e}"));
                continue;
            }
        };
        let Some(block) = by_kind.get(&kind).and_then(|b| b.get(ordinal)) else {
            failures.push(format!("{key}: no {kind} block #{ordinal}"));
            continue;
        };
        if expected.as_str() == Some("<absent>") {
            // An optional field the parser must leave out (a hint it must
            // not guess): the path up to it resolves, the field does not.
            let parent = resolve(block, &steps[..steps.len().saturating_sub(1)]);
            let absent = match (parent, steps.last()) {
                (Ok(p), Some(Step::Field(f))) => p.get(f.as_str()).is_none(),
                _ => false,
            };
            if !absent {
                failures.push(format!("{key}: expected absent, found a value"));
            }
            continue;
        }
        match resolve(block, &steps).and_then(|v| compare(v, expected, tol)) {
            Ok(()) => {}
            Err(e) => failures.push(format!("{key}: {e}")),
        }
    }
    failures
}

/// Problems of the manifest itself: unknown origin, missing files, files
/// in the directory that no sample names.
fn check_manifest(dir: &Path, m: &Manifest) -> Vec<String> {
    let mut problems = Vec::new();
    let mut named = vec!["manifest.toml".to_string()];
    for s in &m.sample {
        if !ORIGINS.contains(&s.origin.as_str()) {
            problems.push(format!(
                "{}: origin {:?} is not one of {ORIGINS:?}",
                s.file, s.origin
            ));
        }
        if s.source.trim().is_empty() {
            problems.push(format!("{}: empty source", s.file));
        }
        if s.origin == "tool" && s.note.is_none() {
            problems.push(format!(
                "{}: a tool sample says its command in `note`",
                s.file
            ));
        }
        if s.values.is_empty() && s.blocks.is_empty() {
            problems.push(format!("{}: neither blocks nor values", s.file));
        }
        if named.contains(&s.file) {
            problems.push(format!("{}: listed twice", s.file));
        }
        named.push(s.file.clone());
        if let Some(extra) = &s.expected_from {
            named.push(extra.clone());
            if !dir.join(extra).is_file() {
                problems.push(format!("{}: expected_from {extra} missing", s.file));
            }
        }
        if !dir.join(&s.file).is_file() {
            problems.push(format!("{}: file missing", s.file));
        }
    }
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let entry = entry.expect("entry");
        if entry.path().is_file() {
            let name = entry.file_name().to_string_lossy().to_string();
            if !named.contains(&name) {
                problems.push(format!("{name}: in the directory but not in the manifest"));
            }
        }
    }
    problems
}

#[test]
fn every_real_sample_holds_its_expected_values() {
    let root = real_dir();
    let dirs = manifest_dirs(&root);
    assert!(!dirs.is_empty(), "no manifest under {}", root.display());
    let verbose = std::env::var("REAL_CORPUS_VERBOSE").is_ok_and(|v| v == "1");
    let mut report = String::new();
    let (mut samples, mut keys) = (0usize, 0usize);
    let mut gaps: BTreeMap<String, usize> = BTreeMap::new();
    for dir in &dirs {
        let rel = dir.strip_prefix(&root).unwrap_or(dir).display().to_string();
        let text = std::fs::read_to_string(dir.join("manifest.toml")).expect("manifest readable");
        let manifest: Manifest = match toml::from_str(&text) {
            Ok(m) => m,
            Err(e) => {
                let _ = writeln!(report, "{rel}/manifest.toml: {e}");
                continue;
            }
        };
        for p in check_manifest(dir, &manifest) {
            let _ = writeln!(report, "{rel}/{p}");
        }
        for s in &manifest.sample {
            samples += 1;
            keys += s.values.len();
            let failures = check_sample(dir, s);
            match (&s.known_gap, failures.is_empty()) {
                (None, true) => {}
                (None, false) => {
                    for f in failures {
                        let _ = writeln!(report, "{rel}/{}: {f}", s.file);
                    }
                }
                (Some(gap), true) => {
                    let _ = writeln!(
                        report,
                        "{rel}/{}: known gap {gap:?} now holds: remove `known_gap`",
                        s.file
                    );
                }
                (Some(gap), false) => {
                    *gaps.entry(rel.clone()).or_default() += 1;
                    if verbose {
                        println!("gap {rel}/{} ({gap}):", s.file);
                        for f in failures {
                            println!("    {f}");
                        }
                    }
                }
            }
        }
    }
    let by_format: Vec<String> = gaps.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let summary = format!(
        "real corpus: {samples} samples, {keys} key values, {} known gaps (by format {})\n",
        gaps.values().sum::<usize>(),
        if by_format.is_empty() {
            "none".to_string()
        } else {
            by_format.join(", ")
        }
    );
    // Straight to stderr, past the test harness's capture: the summary is
    // wanted on every run, passing or not.
    let _ = std::io::stderr().write_all(summary.as_bytes());
    assert!(report.is_empty(), "real corpus failures:\n{report}");
}

#[test]
fn path_grammar() {
    let (kind, n, steps) =
        parse_path("table[0].rows[metric=Elapsd-8,stat=Amean].values[1]").unwrap();
    assert_eq!((kind.as_str(), n), ("table", 0));
    assert_eq!(
        steps,
        vec![
            Step::Field("rows".into()),
            Step::Filter(vec![
                ("metric".into(), "Elapsd-8".into()),
                ("stat".into(), "Amean".into())
            ]),
            Step::Field("values".into()),
            Step::Index(1),
        ]
    );
    let v: Value = serde_json::json!({"rows": [
        {"metric": "a", "stat": "Amean", "values": [1.0, 2.0]},
        {"metric": "Elapsd-8", "stat": "Min", "values": [3.0]},
        {"metric": "Elapsd-8", "stat": "Amean", "values": [4.0, 5.5]}],
        "fields": [["Exit status", 0.0], ["Page size (bytes)", 4096.0]]});
    assert_eq!(resolve(&v, &steps).unwrap(), &serde_json::json!(5.5));
    let (_, _, s) = parse_path("time[0].fields[0=Page size (bytes)][1]").unwrap();
    assert_eq!(resolve(&v, &s).unwrap(), &serde_json::json!(4096.0));
    let (_, _, s) = parse_path("x[0].rows[-1].values[0]").unwrap();
    assert_eq!(resolve(&v, &s).unwrap(), &serde_json::json!(4.0));
    let (_, _, s) = parse_path("metrics[0].metrics[name=usemem[1] time].value").unwrap();
    assert_eq!(
        s[1],
        Step::Filter(vec![("name".into(), "usemem[1] time".into())])
    );
    let (_, _, s) = parse_path("x[0].rows[metric=zz].values").unwrap();
    assert!(resolve(&v, &s).is_err());
    assert!(parse_path("rows.values").is_err());
    assert!(
        compare(
            &serde_json::json!(1.0000000001),
            &toml::Value::Integer(1),
            DEFAULT_TOLERANCE
        )
        .is_ok()
    );
    assert!(
        compare(
            &serde_json::json!(1.01),
            &toml::Value::Integer(1),
            DEFAULT_TOLERANCE
        )
        .is_err()
    );
    assert!(
        compare(
            &serde_json::json!("a"),
            &toml::Value::String("b".into()),
            0.0
        )
        .is_err()
    );
}
