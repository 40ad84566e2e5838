//! The OpenAPI document, generated from the handlers' `#[utoipa::path]`
//! attributes and their request and response types (`ToSchema`,
//! `IntoParams`). `/api/openapi.json` serves it; `docs/openapi.json` is
//! the same document committed (`reclaimlab openapi > docs/openapi.json`
//! writes it, and `tests/openapi.rs` fails when the two differ).
//!
//! Two rules are applied to the generated document ([`document`]):
//! - `#[serde(flatten)]` fields come out of utoipa as `allOf`; they are
//!   merged into one object, so a schema names every field it has.
//! - Every object schema an answer uses is closed
//!   (`additionalProperties: false`): the server writes exactly these
//!   fields, so a field added to a response type shows in the document.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use utoipa::OpenApi;
use utoipa::openapi::schema::{ArrayBuilder, Schema};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Ref, RefOr};

use super::{comparisons, runs, simulations, uploads};
use crate::error::{ErrorBody, ErrorDetail};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "reclaimlab",
        version = "1",
        description = "Store, compare and simulate Linux reclaim latency results. Errors are {\"error\": {\"code\", \"message\", \"line\"?}} with the HTTP status. Schemas that say `formats.schema.json` refer to the parse document's schema, served at /api/formats.schema.json.",
    ),
    paths(
        uploads::create_upload,
        uploads::parse_upload,
        comparisons::delete_upload,
        runs::list_runs,
        runs::get_run,
        comparisons::create_comparison,
        comparisons::delete_comparison,
        simulations::create_simulation,
        simulations::get_simulation,
        simulations::cancel_simulation,
        simulations::rerun_simulation,
        simulations::put_board_costs,
        super::healthz,
        super::readyz,
        super::metrics,
    ),
    components(schemas(ErrorBody, ErrorDetail), responses(ErrorBody)),
    modifiers(&BearerToken),
)]
struct ApiDoc;

/// The `bearer` security scheme the token-guarded operations name.
struct BearerToken;

impl utoipa::Modify for BearerToken {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let mut http = Http::new(HttpAuthScheme::Bearer);
        http.description = Some("rl_<scope>_<hex> from `reclaimlab token create`".into());
        doc.components
            .get_or_insert_with(Default::default)
            .add_security_scheme("bearer", SecurityScheme::Http(http));
    }
}

/// Every error answer: the one `Error` schema.
impl<'s> utoipa::ToResponse<'s> for ErrorBody {
    fn response() -> (&'s str, RefOr<utoipa::openapi::Response>) {
        let response = utoipa::openapi::ResponseBuilder::new()
            .description(
                "Error: `code` names the kind, `message` says what, `line` where in the input when known.",
            )
            .content(
                "application/json",
                utoipa::openapi::Content::new(Some(Ref::from_schema_name("Error"))),
            )
            .build();
        ("Error", RefOr::T(response))
    }
}

/// Fields of an answer that are left out (rather than null) when they
/// have no value, by schema: every other property of an answer's object
/// is always there, so it is listed as required.
const MAY_BE_ABSENT: &[(&str, &str)] = &[("ErrorDetail", "line")];

/// The document as JSON, pretty-printed with a final newline: the bytes
/// of `docs/openapi.json`.
pub fn json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| {
        let mut s = serde_json::to_string_pretty(&document()).unwrap_or_default();
        s.push('\n');
        s
    })
}

/// The document: generated, with the permalink page route added, the
/// `allOf`s of flattened fields merged and the answers' objects closed.
pub fn document() -> Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        paths.insert("/c/{slug}".into(), permalink_path());
    }
    merge_all_of(&mut doc);
    close_answers(&mut doc);
    doc
}

/// `GET /c/{slug}`: a page route (HTML and the frozen text, JSON and SVG
/// forms), not one of the typed JSON handlers, so its entry is written
/// here.
fn permalink_path() -> Value {
    let text = json!({"schema": {"type": "string"}});
    let page = |what: &str| {
        json!({"description": format!("{what} (the HTML error page)"),
               "content": {"text/html": text}})
    };
    json!({"get": {
        "summary": "Permalink: HTML; append .txt (72 columns), .json or .svg.",
        "parameters": [{"name": "slug", "in": "path", "required": true,
                        "schema": {"type": "string"}}],
        "responses": {
            "200": {
                "description": "Frozen bytes, Cache-Control immutable, strong ETag; HTML, or the reply text (.txt), every table (.full.txt), JSON (.json), SVG (.svg)",
                "content": {"text/html": text, "text/plain": text, "image/svg+xml": text,
                            "application/json": {"schema": {"type": "object"}}}
            },
            "304": {"description": "Not modified"},
            "404": page("No such permalink"),
            "410": page("Removed"),
        }
    }})
}

/// Replace every `allOf` of object schemas (utoipa's form of a
/// `#[serde(flatten)]` field) by one object with all their properties.
fn merge_all_of(doc: &mut Value) {
    let schemas = doc
        .pointer("/components/schemas")
        .cloned()
        .unwrap_or(Value::Null);
    fn object_of(schemas: &Value, s: &Value) -> Option<Map<String, Value>> {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let name = r.strip_prefix("#/components/schemas/")?;
            return object_of(schemas, schemas.get(name)?);
        }
        if let Some(parts) = s.get("allOf").and_then(Value::as_array) {
            let mut merged = Map::new();
            merged.insert("type".into(), json!("object"));
            let mut props = Map::new();
            let mut required = Vec::new();
            for p in parts {
                let o = object_of(schemas, p)?;
                if let Some(Value::Object(ps)) = o.get("properties") {
                    props.extend(ps.clone());
                }
                if let Some(Value::Array(rs)) = o.get("required") {
                    required.extend(rs.iter().cloned());
                }
            }
            if let Some(d) = s.get("description") {
                merged.insert("description".into(), d.clone());
            }
            merged.insert("required".into(), Value::Array(required));
            merged.insert("properties".into(), Value::Object(props));
            return Some(merged);
        }
        s.as_object()
            .filter(|o| o.get("type") == Some(&json!("object")))
            .cloned()
    }
    fn walk(schemas: &Value, v: &mut Value) {
        if v.get("allOf").is_some()
            && let Some(m) = object_of(schemas, v)
        {
            *v = Value::Object(m);
        }
        match v {
            Value::Object(m) => m.values_mut().for_each(|x| walk(schemas, x)),
            Value::Array(a) => a.iter_mut().for_each(|x| walk(schemas, x)),
            _ => {}
        }
    }
    walk(&schemas, doc);
}

/// Close (`additionalProperties: false`) every object schema that an
/// operation's responses use, directly or through `$ref`s, and list its
/// properties as required (but [`MAY_BE_ABSENT`]): utoipa leaves an
/// `Option` out of `required`, while an answer always has the field
/// (`null` when there is no value).
fn close_answers(doc: &mut Value) {
    fn close(v: &mut Value, name: Option<&str>, refs: &mut Vec<String>) {
        if let Some(r) = v.get("$ref").and_then(Value::as_str) {
            if let Some(name) = r.strip_prefix("#/components/schemas/") {
                refs.push(name.to_string());
            }
            return;
        }
        if let Value::Object(m) = v {
            if let Some(Value::Object(props)) = m.get("properties") {
                let required: Vec<Value> = props
                    .keys()
                    .filter(|k| !MAY_BE_ABSENT.contains(&(name.unwrap_or(""), k.as_str())))
                    .map(|k| Value::String(k.clone()))
                    .collect();
                m.insert("required".into(), Value::Array(required));
                m.entry("additionalProperties")
                    .or_insert(Value::Bool(false));
            }
            // Objects inside this one are anonymous.
            for x in m.values_mut() {
                close(x, None, refs);
            }
        } else if let Value::Array(a) = v {
            a.iter_mut().for_each(|x| close(x, None, refs));
        }
    }
    let mut refs = Vec::new();
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for op in paths.values_mut().filter_map(Value::as_object_mut) {
            for o in op.values_mut() {
                if let Some(r) = o.get_mut("responses") {
                    close(r, None, &mut refs);
                }
            }
        }
    }
    if let Some(Value::Object(rs)) = doc.pointer_mut("/components/responses") {
        rs.values_mut().for_each(|r| close(r, None, &mut refs));
    }
    let mut done = std::collections::BTreeSet::new();
    while let Some(name) = refs.pop() {
        if !done.insert(name.clone()) {
            continue;
        }
        if let Some(s) = doc.pointer_mut(&format!("/components/schemas/{name}")) {
            close(s, Some(&name), &mut refs);
        }
    }
}

/// A schema in the parse document's schema (`docs/formats.schema.json`).
fn formats_ref(pointer: &str) -> Ref {
    Ref::new(format!("formats.schema.json{pointer}"))
}

/// The parse document, as `formats.schema.json` describes it.
pub struct ParseDocument;

impl utoipa::PartialSchema for ParseDocument {
    fn schema() -> RefOr<Schema> {
        RefOr::Ref(formats_ref(""))
    }
}

impl utoipa::ToSchema for ParseDocument {}

/// `schema_with` of a parsed block (`formats.schema.json#/$defs/Block`).
pub fn block() -> Ref {
    formats_ref("#/$defs/Block")
}

/// `schema_with` of a document's warnings.
pub fn warnings() -> ArrayBuilder {
    ArrayBuilder::new().items(formats_ref("#/$defs/Warning"))
}

/// `schema_with` of a run's kind (defined with [`crate::storage::runs::RunKind`]).
pub use crate::storage::runs::run_kind_schema as run_kind;
