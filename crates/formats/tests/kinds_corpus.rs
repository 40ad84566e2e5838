//! Real samples of the counter, lock-contention, distribution, profile,
//! will-it-scale and microbenchmark formats (and the `time` / mmtests
//! checks that came with them). Each corpus directory holds a
//! `manifest.json`: per file its source (lore link, repo + path @ commit,
//! or the tool run that printed it), how many blocks of each kind it holds,
//! and expected values addressed as
//! `kind[ordinal].path` -- `counters[0].counters[name=pgscan_kswapd].values[1]`,
//! `lock_contention[0].rows[0].caller`, `distribution[0].buckets[low=64].count`.
//!
//! Tool runs that have a machine-readable twin (bpftrace `-f json`, perf
//! report `-t ';'`) are also checked against it bucket by bucket and row by
//! row.

use reclaimlab_formats::{Block, parse};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const DIRS: &[&str] = &[
    "counters",
    "perf_lock",
    "distribution",
    "profile",
    "will_it_scale",
    "microbench",
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// `counters[0].counters[name=x].values[1]` -> ("counters", 0, segments).
fn split_path(path: &str) -> (String, usize, Vec<String>) {
    let open = path
        .find('[')
        .unwrap_or_else(|| panic!("no ordinal in {path}"));
    let close = path.find(']').unwrap();
    let kind = path[..open].to_string();
    let n: usize = path[open + 1..close].parse().unwrap();
    let mut segs = Vec::new();
    let rest = &path[close + 1..];
    let mut cur = String::new();
    let mut in_bracket = false;
    for c in rest.chars() {
        match c {
            '.' if !in_bracket => {
                if !cur.is_empty() {
                    segs.push(std::mem::take(&mut cur));
                }
            }
            '[' if !in_bracket => {
                if !cur.is_empty() {
                    segs.push(std::mem::take(&mut cur));
                }
                in_bracket = true;
                cur.push('[');
            }
            ']' if in_bracket => {
                in_bracket = false;
                cur.push(']');
                segs.push(std::mem::take(&mut cur));
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        segs.push(cur);
    }
    (kind, n, segs)
}

fn value_matches(v: &Value, want: &str) -> bool {
    match v {
        Value::String(s) => s == want,
        Value::Number(n) => want.parse::<f64>().ok() == n.as_f64(),
        Value::Null => want == "null",
        Value::Bool(b) => want == b.to_string(),
        _ => false,
    }
}

fn resolve<'a>(mut v: &'a Value, segs: &[String]) -> Option<&'a Value> {
    for s in segs {
        v = if let Some(inner) = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            match inner.split_once('=') {
                Some((field, want)) => v
                    .as_array()?
                    .iter()
                    .find(|e| e.get(field).is_some_and(|x| value_matches(x, want)))?,
                None => v.get(inner.parse::<usize>().ok()?)?,
            }
        } else {
            v.get(s.as_str())?
        };
    }
    Some(v)
}

fn same(actual: &Value, want: &Value) -> bool {
    match (actual, want) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => actual == want,
    }
}

fn blocks_by_kind(blocks: &[Block]) -> BTreeMap<String, Vec<Value>> {
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for b in blocks {
        out.entry(b.kind().to_string())
            .or_default()
            .push(serde_json::to_value(b).unwrap());
    }
    out
}

#[test]
fn every_manifest_sample_parses_to_its_values() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for dir in DIRS {
        let path = corpus().join(dir).join("manifest.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let manifest: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for s in manifest["samples"].as_array().unwrap() {
            let file = s["file"].as_str().unwrap();
            assert!(
                s["source"].as_str().is_some_and(|x| !x.is_empty()),
                "{dir}/{file}: no source"
            );
            let bytes = std::fs::read(corpus().join(dir).join(file))
                .unwrap_or_else(|e| panic!("{dir}/{file}: {e}"));
            let doc = match parse(&bytes, Some(file)) {
                Ok(d) => d,
                Err(e) => {
                    failures.push(format!("{dir}/{file}: {e}"));
                    continue;
                }
            };
            let kinds = blocks_by_kind(&doc.blocks);
            if let Some(want) = s["blocks"].as_object() {
                for (kind, n) in want {
                    let got = kinds.get(kind).map(Vec::len).unwrap_or(0);
                    if Some(got as u64) != n.as_u64() {
                        failures.push(format!("{dir}/{file}: {got} {kind} blocks, want {n}"));
                    }
                }
            }
            for (path, want) in s["values"].as_object().into_iter().flatten() {
                let (kind, n, segs) = split_path(path);
                let got = kinds
                    .get(&kind)
                    .and_then(|v| v.get(n))
                    .and_then(|b| resolve(b, &segs));
                match got {
                    Some(g) if same(g, want) => checked += 1,
                    other => {
                        failures.push(format!("{dir}/{file}: {path} = {other:?}, want {want}"))
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 100, "only {checked} values checked");
}

/// Every file of these directories is named in its manifest, and every
/// manifest names at least five samples from more than one source.
#[test]
fn manifests_cover_their_directories() {
    for dir in [
        "counters",
        "perf_lock",
        "distribution",
        "profile",
        "will_it_scale",
        "microbench",
    ] {
        let root = corpus().join(dir);
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).unwrap())
                .unwrap();
        let named: Vec<String> = manifest["samples"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| {
                let mut v = vec![s["file"].as_str().unwrap().to_string()];
                if let Some(t) = s["twin"].as_str() {
                    v.push(t.to_string());
                }
                v
            })
            .collect();
        let samples = manifest["samples"].as_array().unwrap().len();
        assert!(samples >= 5, "{dir}: {samples} samples");
        for entry in std::fs::read_dir(&root).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().to_string();
            if name != "manifest.json" {
                assert!(named.contains(&name), "{dir}/{name} is not in the manifest");
            }
        }
    }
}

/// bpftrace printed the same maps as text and as `-f json`: every bucket of
/// every map agrees (`max` in JSON is inclusive, `high` in text exclusive).
#[test]
fn bpftrace_text_agrees_with_its_json() {
    let dir = corpus().join("distribution");
    let mut compared = 0;
    for (text, json) in [
        (
            "tool-bpftrace-keyed-maps.txt",
            "tool-bpftrace-keyed-maps.json",
        ),
        ("tool-bpftrace-ns-lhist.txt", "tool-bpftrace-ns-lhist.json"),
    ] {
        let doc = parse(&std::fs::read(dir.join(text)).unwrap(), None).unwrap();
        let dists = &blocks_by_kind(&doc.blocks)["distribution"];
        for line in std::fs::read_to_string(dir.join(json)).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["type"] != "hist" {
                continue;
            }
            for (name, data) in v["data"].as_object().unwrap() {
                let maps: Vec<(Option<String>, &Value)> = match data {
                    Value::Array(_) => vec![(None, data)],
                    Value::Object(keys) => keys
                        .iter()
                        .map(|(k, b)| (Some(k.replace(',', ", ")), b))
                        .collect(),
                    _ => panic!("{data}"),
                };
                for (key, buckets) in maps {
                    let d = dists
                        .iter()
                        .find(|d| d["name"] == *name && d["key"].as_str() == key.as_deref())
                        .unwrap_or_else(|| panic!("{text}: no {name} {key:?}"));
                    let got = d["buckets"].as_array().unwrap();
                    let want = buckets.as_array().unwrap();
                    assert_eq!(got.len(), want.len(), "{text} {name} {key:?}");
                    for (g, w) in got.iter().zip(want) {
                        assert_eq!(g["count"], w["count"], "{text} {name} {key:?}");
                        if let Some(min) = w.get("min").and_then(Value::as_f64) {
                            assert_eq!(g["low"].as_f64(), Some(min), "{text} {name}");
                        } else {
                            assert!(g["low"].is_null());
                        }
                        if let Some(max) = w.get("max").and_then(Value::as_f64) {
                            assert_eq!(g["high"].as_f64(), Some(max + 1.0), "{text} {name}");
                        } else {
                            assert!(g["high"].is_null());
                        }
                        compared += 1;
                    }
                }
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

/// perf report printed the same profile aligned and with `-t ';'`: every
/// row agrees in overhead, command, object and symbol.
#[test]
fn perf_report_text_agrees_with_its_separated_twin() {
    let dir = corpus().join("profile");
    let mut compared = 0;
    for (text, sep) in [
        (
            "tool-report-flat-messaging.txt",
            "tool-report-flat-messaging-sep.txt",
        ),
        ("tool-report-memset.txt", "tool-report-memset-sep.txt"),
    ] {
        let doc = parse(&std::fs::read(dir.join(text)).unwrap(), None).unwrap();
        let profiles = &blocks_by_kind(&doc.blocks)["profile"];
        assert_eq!(profiles.len(), 1, "{text}");
        let rows = profiles[0]["rows"].as_array().unwrap();
        let want: Vec<Vec<String>> = std::fs::read_to_string(dir.join(sep))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && l.contains(';'))
            .map(|l| l.split(';').map(|c| c.trim().to_string()).collect())
            .collect();
        assert_eq!(rows.len(), want.len(), "{text}");
        for (r, w) in rows.iter().zip(&want) {
            let pct: f64 = w[0].trim_end_matches('%').parse().unwrap();
            assert_eq!(r["overhead_pct"].as_f64(), Some(pct), "{text} {w:?}");
            assert_eq!(r["command"].as_str(), Some(w[1].as_str()), "{text}");
            assert_eq!(r["object"].as_str(), Some(w[2].as_str()), "{text}");
            let (space, sym) = w[3].split_once(' ').unwrap();
            assert_eq!(r["space"].as_str(), Some(&space[1..2]), "{text}");
            assert_eq!(r["symbol"].as_str(), Some(sym.trim()), "{text}");
            compared += 1;
        }
    }
    assert!(compared > 100, "{compared}");
}

/// The same samples inside a mail (headers, quoting) come out as the same
/// blocks, tied to the message.
#[test]
fn samples_parse_inside_a_mail() {
    for (file, kind, n) in [
        ("profile/lore-io_uring-before-after.txt", "profile", 2),
        (
            "perf_lock/lore-namhyung-slab-locks.txt",
            "lock_contention",
            2,
        ),
        (
            "distribution/repo-bcc-funclatency-functions.txt",
            "distribution",
            2,
        ),
        ("counters/lore-ridong-vmstat-pgsteal.txt", "counters", 4),
        (
            "will_it_scale/lore-jiangbiao-page_fault3-quoted.txt",
            "table",
            2,
        ),
        (
            "microbench/lore-sshegde-schbench-wakeup-rps.txt",
            "metrics",
            1,
        ),
    ] {
        let body = std::fs::read_to_string(corpus().join(file)).unwrap();
        let mail = format!(
            "From: A Developer <dev@example.org>\nTo: linux-mm@kvack.org\nSubject: Re: [PATCH] mm: test\nDate: Tue, 1 Dec 2026 08:00:00 +0000\nMessage-ID: <sample@example.org>\n\n{body}"
        );
        let doc = parse(mail.as_bytes(), None).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(doc.source.format, "mail", "{file}");
        let got: Vec<&Block> = doc.blocks.iter().filter(|b| b.kind() == kind).collect();
        assert_eq!(got.len(), n, "{file}");
        assert!(got.iter().all(|b| b.message == Some(0)), "{file}");
        // Lines count from the top of the mail: six header lines above the body.
        let standalone = parse(body.as_bytes(), None).unwrap();
        let first = standalone.blocks.iter().find(|b| b.kind() == kind).unwrap();
        assert_eq!(got[0].lines[0], first.lines[0] + 6, "{file}");
    }
}
