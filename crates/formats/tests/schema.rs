//! Every document the corpus produces (the seeds first) validates against
//! `docs/formats.schema.json`. A small validator for the keywords the schema
//! uses (`$ref`, `type`, `required`, `properties`, `items`, `prefixItems`,
//! `const`, `enum`, `oneOf`, `minimum`) keeps this free of a schema crate.

use reclaimlab_formats::parse;
use serde_json::Value;

fn schema() -> Value {
    let path = format!(
        "{}/../../docs/formats.schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => root
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("bad $ref {r}")),
        None => s,
    }
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_u64() || v.is_i64(),
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        _ => panic!("unknown type {t}"),
    }
}

/// Errors found validating `v` against `s`, with JSON pointers.
fn validate(root: &Value, s: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let s = resolve(root, s);
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(t, v),
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| type_ok(t, v)),
            _ => true,
        };
        if !ok {
            errs.push(format!("{at}: expected type {t}, found {v}"));
            return;
        }
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        errs.push(format!("{at}: expected {c}, found {v}"));
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(v)
    {
        errs.push(format!("{at}: {v} not in {options:?}"));
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        errs.push(format!("{at}: {n} < {min}"));
    }
    if let Some(Value::Array(req)) = s.get("required") {
        for r in req.iter().filter_map(Value::as_str) {
            if v.get(r).is_none() {
                errs.push(format!("{at}: missing required `{r}`"));
            }
        }
    }
    if let (Some(Value::Object(props)), Value::Object(obj)) = (s.get("properties"), v) {
        for (k, sub) in props {
            if let Some(x) = obj.get(k) {
                validate(root, sub, x, &format!("{at}/{k}"), errs);
            }
        }
    }
    if let Value::Array(items) = v {
        let prefix = s.get("prefixItems").and_then(Value::as_array);
        for (i, x) in items.iter().enumerate() {
            let sub = prefix.and_then(|p| p.get(i)).or(s.get("items"));
            if let Some(sub) = sub {
                validate(root, sub, x, &format!("{at}/{i}"), errs);
            }
        }
        if let Some(n) = s.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < n
        {
            errs.push(format!("{at}: fewer than {n} items"));
        }
    }
    if let Some(Value::Array(options)) = s.get("oneOf") {
        let passing = options
            .iter()
            .filter(|o| {
                let mut e = Vec::new();
                validate(root, o, v, at, &mut e);
                e.is_empty()
            })
            .count();
        if passing != 1 {
            errs.push(format!("{at}: matches {passing} of the oneOf alternatives"));
            // Say why the alternative with the same `kind` failed.
            for o in options {
                let o = resolve(root, o);
                if o.pointer("/properties/kind/const") == v.get("kind") {
                    validate(root, o, v, at, errs);
                }
            }
        }
    }
}

fn check_file(root: &Value, path: &std::path::Path) -> bool {
    let Ok(doc) = parse(&std::fs::read(path).unwrap(), None) else {
        return false;
    };
    let v = serde_json::to_value(&doc).unwrap();
    let mut errs = Vec::new();
    validate(root, root, &v, "", &mut errs);
    assert!(errs.is_empty(), "{}:\n{}", path.display(), errs.join("\n"));
    true
}

#[test]
fn seed_documents_match_the_schema() {
    let root = schema();
    for seed in [
        "seed_000.txt",
        "seed_001.txt",
        "seed_002.txt",
        "seed_002_lines.txt",
        "seed_003.txt",
        "seed_004.txt",
    ] {
        let path = std::path::PathBuf::from(format!(
            "{}/tests/corpus/mail/{seed}",
            env!("CARGO_MANIFEST_DIR")
        ));
        assert!(check_file(&root, &path), "{seed} did not parse");
    }
}

#[test]
fn every_corpus_document_matches_the_schema() {
    let root = schema();
    let dir = format!("{}/tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for d in std::fs::read_dir(&dir).unwrap() {
        for f in std::fs::read_dir(d.unwrap().path()).unwrap() {
            if check_file(&root, &f.unwrap().path()) {
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked}");
}

/// The real pastes (`tests/pastes/`, `tests/real/`): every file that parses
/// gives a document of the contract.
#[test]
fn every_real_paste_document_matches_the_schema() {
    let root = schema();
    let mut checked = 0;
    for top in ["tests/pastes", "tests/real"] {
        let mut dirs = vec![std::path::PathBuf::from(format!(
            "{}/{top}",
            env!("CARGO_MANIFEST_DIR")
        ))];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries {
                let path = e.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if !path.ends_with("manifest.toml")
                    && !path.ends_with("README.md")
                    && check_file(&root, &path)
                {
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 20, "{checked}");
}

#[test]
fn the_validator_catches_a_missing_field() {
    let root = schema();
    let v = serde_json::json!({"source": {"format": "x", "bytes": 1, "lines": 1, "parser_version": "v"},
        "blocks": [{"kind": "rtla", "lines": [1, 1]}], "warnings": []});
    let mut errs = Vec::new();
    validate(&root, &root, &v, "", &mut errs);
    assert!(errs.iter().any(|e| e.contains("oneOf")), "{errs:?}");
}
