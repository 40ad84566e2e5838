//! `docs/openapi.json` against the server: every documented operation is
//! requested over a socket, and each answer's status must be documented and
//! its body must match the documented schema. The API's own object schemas
//! are closed (`additionalProperties: false`), so a field added to a
//! response without the document fails here.
//!
//! A small validator for the keywords the documents use (`$ref` within the
//! document or into `formats.schema.json`, `type`, `const`, `enum`,
//! `required`, `properties`, `additionalProperties`, `items`,
//! `prefixItems`, `minItems`, `maxItems`, `oneOf`, `minimum`, `maximum`).

mod common;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use sqlx::PgPool;

struct Docs {
    api: Value,
    formats: Value,
}

fn load(name: &str) -> Value {
    let path = format!("{}/docs/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

impl Docs {
    fn new() -> Self {
        Docs {
            api: load("openapi.json"),
            formats: load("formats.schema.json"),
        }
    }

    /// The schema a `$ref` names, and the document it lives in.
    fn resolve<'a>(&'a self, doc: &'a Value, s: &'a Value) -> (&'a Value, &'a Value) {
        let Some(r) = s.get("$ref").and_then(Value::as_str) else {
            return (doc, s);
        };
        let (file, pointer) = r.split_once('#').unwrap_or((r, ""));
        let target = match file {
            "" => doc,
            "formats.schema.json" => &self.formats,
            other => panic!("$ref into unknown document {other}"),
        };
        let s = target
            .pointer(pointer)
            .unwrap_or_else(|| panic!("bad $ref {r}"));
        self.resolve(target, s)
    }

    fn validate(&self, doc: &Value, s: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
        let (doc, s) = self.resolve(doc, s);
        if let Some(t) = s.get("type") {
            let ok = match t {
                Value::String(t) => type_ok(t, v),
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| type_ok(t, v)),
                _ => panic!("{at}: bad type keyword {t}"),
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
        if let Some(n) = v.as_f64() {
            if let Some(min) = s.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                errs.push(format!("{at}: {n} < {min}"));
            }
            if let Some(max) = s.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                errs.push(format!("{at}: {n} > {max}"));
            }
        }
        if let Value::Object(obj) = v {
            if let Some(Value::Array(req)) = s.get("required") {
                for r in req.iter().filter_map(Value::as_str) {
                    if !obj.contains_key(r) {
                        errs.push(format!("{at}: missing required `{r}`"));
                    }
                }
            }
            let props = s.get("properties").and_then(Value::as_object);
            for (k, x) in obj {
                match (props.and_then(|p| p.get(k)), s.get("additionalProperties")) {
                    (Some(sub), _) => self.validate(doc, sub, x, &format!("{at}/{k}"), errs),
                    (None, Some(Value::Bool(false))) => {
                        errs.push(format!("{at}: field `{k}` is not in the document"))
                    }
                    (None, Some(sub @ Value::Object(_))) => {
                        self.validate(doc, sub, x, &format!("{at}/{k}"), errs)
                    }
                    _ => {}
                }
            }
        }
        if let Value::Array(items) = v {
            let prefix = s.get("prefixItems").and_then(Value::as_array);
            for (i, x) in items.iter().enumerate() {
                if let Some(sub) = prefix.and_then(|p| p.get(i)).or(s.get("items")) {
                    self.validate(doc, sub, x, &format!("{at}/{i}"), errs);
                }
            }
            if let Some(n) = s.get("minItems").and_then(Value::as_u64)
                && (items.len() as u64) < n
            {
                errs.push(format!("{at}: fewer than {n} items"));
            }
            if let Some(n) = s.get("maxItems").and_then(Value::as_u64)
                && (items.len() as u64) > n
            {
                errs.push(format!("{at}: more than {n} items"));
            }
        }
        if let Some(Value::Array(options)) = s.get("oneOf") {
            let mut why = Vec::new();
            let passing = options
                .iter()
                .filter(|o| {
                    let mut e = Vec::new();
                    self.validate(doc, o, v, at, &mut e);
                    why.extend(e.iter().cloned());
                    e.is_empty()
                })
                .count();
            if passing != 1 {
                errs.push(format!(
                    "{at}: matches {passing} of the oneOf alternatives ({})",
                    why.join("; ")
                ));
            }
        }
    }

    /// The operation object of `method path`.
    fn op(&self, method: &str, path: &str) -> &Value {
        self.api["paths"][path]
            .get(method.to_ascii_lowercase())
            .unwrap_or_else(|| panic!("{method} {path} is not documented"))
    }

    /// Check one answer against the document: its status is listed, its
    /// content type is one the document gives, its JSON body matches.
    fn check(&self, method: &str, path: &str, r: &Answer) {
        let what = format!("{method} {path} -> {}", r.status);
        let op = self.op(method, path);
        let resp = op["responses"]
            .get(r.status.to_string())
            .unwrap_or_else(|| panic!("{what}: status not documented: {}", r.text));
        let (_, resp) = self.resolve(&self.api, resp);
        let Some(content) = resp.get("content").and_then(Value::as_object) else {
            assert!(
                r.body.is_empty(),
                "{what}: documented without a body, answered {}",
                r.text
            );
            return;
        };
        let ctype = r.content_type.split(';').next().unwrap_or("").trim();
        let media = content
            .get(ctype)
            .unwrap_or_else(|| panic!("{what}: content type {ctype} not documented"));
        if ctype == "image/svg+xml" {
            common::svg(&r.text);
        }
        let schema = &media["schema"];
        let v: Value = if ctype == "application/json" {
            serde_json::from_slice(&r.body)
                .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", r.text))
        } else {
            Value::String(r.text.clone())
        };
        let mut errs = Vec::new();
        self.validate(&self.api, schema, &v, "", &mut errs);
        assert!(errs.is_empty(), "{what}:\n{}\nbody: {v}", errs.join("\n"));
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

struct Answer {
    status: u16,
    content_type: String,
    body: Vec<u8>,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

struct Client {
    base: String,
    http: reqwest::Client,
    docs: Docs,
    covered: BTreeSet<(String, String)>,
}

impl Client {
    /// Send, check against the document, remember the operation as covered.
    async fn call(
        &mut self,
        method: &str,
        template: &str,
        uri: &str,
        token: Option<&str>,
        body: Option<(&str, Vec<u8>)>,
    ) -> Answer {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.http.request(m, format!("{}{uri}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some((ctype, bytes)) = body {
            req = req.header("content-type", ctype).body(bytes);
        }
        let resp = req.send().await.expect("server answers");
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let body = resp.bytes().await.unwrap().to_vec();
        let a = Answer {
            status,
            content_type,
            text: String::from_utf8_lossy(&body).into_owned(),
            body,
        };
        self.docs.check(method, template, &a);
        self.covered
            .insert((method.to_string(), template.to_string()));
        a
    }

    async fn json(
        &mut self,
        method: &str,
        template: &str,
        uri: &str,
        token: Option<&str>,
        body: Value,
    ) -> Answer {
        let bytes = body.to_string().into_bytes();
        self.call(
            method,
            template,
            uri,
            token,
            Some(("application/json", bytes)),
        )
        .await
    }
}

/// `docs/openapi.json` is the document the code generates (from the
/// handlers' `#[utoipa::path]` and their types), byte for byte.
#[test]
fn the_committed_document_is_the_generated_one() {
    let path = format!("{}/docs/openapi.json", env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(&path).unwrap();
    let generated = reclaimlab::web::api::doc::json();
    if committed != generated {
        let at = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
        panic!(
            "docs/openapi.json is not the generated document (first difference at line {}: \
             committed {:?}, generated {:?});\n\
             regenerate it with `cargo run -- openapi > docs/openapi.json`",
            at + 1,
            committed.lines().nth(at).unwrap_or("<end>"),
            generated.lines().nth(at).unwrap_or("<end>"),
        );
    }
}

/// Every object schema of the API's own responses is closed, every
/// parameter is typed, and every operation behind a token lists 401.
#[test]
fn the_document_is_strict() {
    let docs = Docs::new();
    fn walk(docs: &Docs, s: &Value, at: &str, seen: &mut BTreeSet<String>) {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            if r.starts_with('#') && seen.insert(r.to_string()) {
                let (_, t) = docs.resolve(&docs.api, s);
                walk(docs, t, r, seen);
            }
            return;
        }
        if s.get("properties").is_some() {
            assert!(
                s.get("additionalProperties").is_some(),
                "{at}: an object schema of a response must say additionalProperties"
            );
        }
        match s {
            Value::Object(m) => {
                for (k, v) in m {
                    walk(docs, v, &format!("{at}/{k}"), seen);
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    walk(docs, v, &format!("{at}/{i}"), seen);
                }
            }
            _ => {}
        }
    }
    let mut seen = BTreeSet::new();
    for (path, item) in docs.api["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let what = format!("{method} {path}");
            walk(&docs, &op["responses"], &what, &mut seen);
            for p in op["parameters"].as_array().into_iter().flatten() {
                let s = &p["schema"];
                assert!(
                    s.get("type").is_some() || s.get("enum").is_some(),
                    "{what}: parameter {} untyped",
                    p["name"]
                );
            }
            if op.get("security").is_some() {
                assert!(
                    op["responses"].get("401").is_some(),
                    "{what}: needs a token but does not list 401"
                );
            }
            let int_path = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p["in"] == "path" && p["schema"]["type"] == "integer");
            if int_path {
                for code in ["400", "404"] {
                    assert!(
                        op["responses"].get(code).is_some(),
                        "{what}: takes a numeric path parameter but does not list {code}"
                    );
                }
            }
        }
    }
    let limit = docs.api["paths"]["/api/v1/runs"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "limit")
        .unwrap();
    assert_eq!(limit["schema"]["type"], "integer");
}

#[sqlx::test]
async fn every_documented_operation_answers_as_documented(pool: PgPool) {
    use reclaimlab::auth::Scope;
    let state = common::state(&pool);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(reclaimlab::web::serve(listener, state, async {
        let _ = stopped.await;
    }));
    let upload = common::token(&pool, Scope::Upload).await;
    let admin = common::token(&pool, Scope::Admin).await;
    let mut c = Client {
        base: format!("http://{addr}"),
        http: reqwest::Client::new(),
        docs: Docs::new(),
        covered: BTreeSet::new(),
    };
    let tok = Some(upload.as_str());

    // Uploads: stored, replayed, refused.
    let up = "/api/v1/uploads";
    let text = |name: &str| Some(("text/plain", common::fixture(name)));
    let r = c
        .call(
            "POST",
            up,
            &format!("{up}?board=rig-a&kernel=6.6&variant=base"),
            tok,
            text("cyclictest-s4-before.txt"),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let first_upload = r.json()["upload_id"].as_i64().unwrap();
    let cyc_run = r.json()["runs"][0]["id"].as_i64().unwrap();
    let r = c
        .call(
            "POST",
            up,
            &format!("{up}?board=rig-a&kernel=6.6&variant=base"),
            tok,
            text("cyclictest-s4-before.txt"),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = c
        .call(
            "POST",
            up,
            &format!("{up}?board=rig-a&kernel=6.6&variant=patched"),
            tok,
            text("histogram-4threads.txt"),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let r = c.call("POST", up, up, tok, text("mail-s4.txt")).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let mail_runs: Vec<i64> = r.json()["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x["id"].as_i64())
        .collect();
    assert!(!mail_runs.is_empty());
    for (token, body, status) in [
        (None, common::fixture("mail-s4.txt"), 401),
        (tok, b"no result format in here\n".to_vec(), 422),
        (tok, vec![0u8, 1, 2, 0], 415),
    ] {
        let r = c
            .call("POST", up, up, token, Some(("text/plain", body)))
            .await;
        assert_eq!(r.status, status, "{}", r.text);
    }
    let r = c
        .call(
            "POST",
            up,
            &format!("{up}?direction=sideways"),
            tok,
            text("mail-s4.txt"),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);

    let parse = "/api/v1/parse";
    let r = c
        .call("POST", parse, parse, None, text("mail-s4.txt"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = c
        .call(
            "POST",
            parse,
            parse,
            None,
            Some(("text/plain", b"prose only\n".to_vec())),
        )
        .await;
    assert_eq!(r.status, 422);

    // Runs: list, page, one, refused.
    let runs = "/api/v1/runs";
    let r = c.call("GET", runs, runs, None, None).await;
    assert_eq!(r.status, 200);
    let all = r.json().as_array().unwrap().len();
    assert!(all >= 3);
    let r = c
        .call("GET", runs, &format!("{runs}?limit=1"), None, None)
        .await;
    let last = r.json()[0]["id"].as_i64().unwrap();
    let r = c
        .call(
            "GET",
            runs,
            &format!("{runs}?limit=1000&before={last}"),
            None,
            None,
        )
        .await;
    assert_eq!(r.json().as_array().unwrap().len(), all - 1);
    let r = c
        .call("GET", runs, &format!("{runs}?limit=abc"), None, None)
        .await;
    assert_eq!(r.status, 400);
    let one = "/api/v1/runs/{id}";
    for id in mail_runs.iter().chain([&cyc_run]) {
        let r = c
            .call("GET", one, &format!("{runs}/{id}"), None, None)
            .await;
        assert_eq!(r.status, 200);
    }
    assert_eq!(
        c.call("GET", one, "/api/v1/runs/abc", None, None)
            .await
            .status,
        400
    );
    assert_eq!(
        c.call("GET", one, "/api/v1/runs/99999999", None, None)
            .await
            .status,
        404
    );

    // Comparisons and their permalinks.
    let cmp = "/api/v1/comparisons";
    let body = json!({"columns": [{"label": "base", "variant": "base"}, {"label": "patched", "variant": "patched"}]});
    let r = c.json("POST", cmp, cmp, tok, body.clone()).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let slug = r.json()["slug"].as_str().unwrap().to_string();
    assert_eq!(c.json("POST", cmp, cmp, None, body).await.status, 401);
    let r = c.json("POST", cmp, cmp, tok, json!({"columns": []})).await;
    assert_eq!(r.status, 400);
    let perma = "/c/{slug}";
    for ext in ["", ".txt", ".svg"] {
        let r = c
            .call("GET", perma, &format!("/c/{slug}{ext}"), None, None)
            .await;
        assert_eq!(r.status, 200, "{ext}");
    }
    assert_eq!(
        c.call("GET", perma, "/c/nonesuch", None, None).await.status,
        404
    );

    // Simulations: queued, sweep, status, cancel, re-run, cost tables.
    let sims = "/api/v1/simulations";
    let r = c
        .json(
            "POST",
            sims,
            sims,
            tok,
            json!({"scenario": "toy-lock", "seed": 7, "replications": 1, "duration": "1s"}),
        )
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    let sim = r.json()["id"].as_i64().unwrap();
    let r = c
        .json(
            "POST",
            sims,
            sims,
            Some(&admin),
            json!({"scenario": "v4-isolate-irq-holdoff", "duration": "1s", "replications": 1,
                   "variants": ["isolate-time-cap"],
                   "sweep": {"variant": "isolate-time-cap", "knob": "isolate_time_cap_us", "values": [10, 20]}}),
        )
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    assert_eq!(r.json()["ids"].as_array().unwrap().len(), 2);
    let r = c
        .json("POST", sims, sims, tok, json!({"scenario": "no-such"}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let status = "/api/v1/simulations/{id}";
    let r = c
        .call("GET", status, &format!("{sims}/{sim}"), None, None)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        c.call("GET", status, &format!("{sims}/abc"), None, None)
            .await
            .status,
        400
    );
    let cancel = "/api/v1/simulations/{id}/cancel";
    let r = c
        .call("POST", cancel, &format!("{sims}/{sim}/cancel"), tok, None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let rerun = "/api/v1/simulations/{id}/rerun";
    let r = c
        .call("POST", rerun, &format!("{sims}/{sim}/rerun"), tok, None)
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    assert_eq!(
        c.call("POST", rerun, &format!("{sims}/{sim}/rerun"), None, None)
            .await
            .status,
        401
    );
    let costs = "/api/v1/boards/{name}/costs";
    let r = c
        .call(
            "PUT",
            costs,
            "/api/v1/boards/rig-a/costs?board_class=x86-desktop",
            tok,
            Some(("text/plain", b"page_fault = 900\n".to_vec())),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = c
        .call(
            "PUT",
            costs,
            "/api/v1/boards/rig-a/costs?board_class=x86-desktop",
            tok,
            Some(("text/plain", b"page_fault = \"x\"\n".to_vec())),
        )
        .await;
    assert!(r.status == 422 || r.status == 400, "{}", r.text);

    // Deletes.
    let del = "/api/v1/comparisons/{slug}";
    assert_eq!(
        c.call("DELETE", del, &format!("{cmp}/{slug}"), tok, None)
            .await
            .status,
        204
    );
    assert_eq!(
        c.call("DELETE", del, &format!("{cmp}/{slug}"), tok, None)
            .await
            .status,
        410
    );
    assert_eq!(
        c.call("GET", perma, &format!("/c/{slug}"), None, None)
            .await
            .status,
        410
    );
    let del = "/api/v1/uploads/{id}";
    let r = c
        .call("DELETE", del, &format!("{up}/{first_upload}"), tok, None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        c.call("DELETE", del, "/api/v1/uploads/abc", tok, None)
            .await
            .status,
        400
    );

    // Operations.
    for p in ["/healthz", "/readyz", "/metrics"] {
        assert_eq!(c.call("GET", p, p, None, None).await.status, 200);
    }

    // Every documented operation was requested.
    let documented: BTreeSet<(String, String)> = c.docs.api["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(p, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .map(|m| (m.to_ascii_uppercase(), p.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    let missing: Vec<_> = documented.difference(&c.covered).collect();
    assert!(
        missing.is_empty(),
        "documented but not requested: {missing:?}"
    );

    // The document served is the one checked, and its $ref target is served.
    for (p, doc) in [
        ("/api/openapi.json", &c.docs.api),
        ("/api/formats.schema.json", &c.docs.formats),
    ] {
        let bytes = reqwest::get(format!("{}{p}", c.base))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let served: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(&served, doc, "{p}");
    }
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}
