//! Every HTML page the router serves is checked twice: it is in the
//! Chromium page list of `tests/browser.rs` and it is a page type of the
//! crawl in `tests/site.rs` (`page_type`). A `GET` route added to
//! `src/web/mod.rs` without both fails here, by path.
//!
//! The three sources are read as text, so nothing here lists pages: the
//! routes come from the router, the checks from the two tests. A route
//! that does not answer HTML is recognised by its shape (under `/api`, an
//! extension in its last segment, an operations endpoint) or named in
//! [`NOT_HTML`]; a page that lacks a check for a known reason is named in
//! [`UNCHECKED`], and must still lack it.

use std::path::Path;

/// GET routes outside `/api` that answer something other than HTML.
const NOT_HTML: &[(&str, &str)] = &[("/runs/{id}/raw", "the uploaded text as text/plain")];

/// Pages without one of the checks: (route, "browser" | "crawl", why).
const UNCHECKED: &[(&str, &str, &str)] = &[
    (
        "/variants",
        "browser",
        "the variant list is crawled but not rendered in Chromium yet",
    ),
    (
        "/simulations/sweeps/{id}",
        "browser",
        "the browser test starts no sweep (its worker runs one job)",
    ),
    (
        "/simulations/sweeps/{id}",
        "crawl",
        "the crawl's data set has no sweep",
    ),
];

fn read(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `(path, answers GET)` for every `.route("PATH", ...)` of the router.
fn routes(src: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let parts: Vec<&str> = src.split(".route(").skip(1).collect();
    for part in parts {
        let Some(q1) = part.find('"') else { continue };
        let rest = &part[q1 + 1..];
        let Some(q2) = rest.find('"') else { continue };
        let path = rest[..q2].to_string();
        let expr = &rest[q2 + 1..];
        let get = expr.match_indices("get(").any(|(k, _)| {
            k == 0 || {
                let b = expr.as_bytes()[k - 1];
                !b.is_ascii_alphanumeric() && b != b'_'
            }
        });
        out.push((path, get));
    }
    out
}

/// The router's GET routes that answer an HTML page.
fn pages() -> Vec<String> {
    let all = routes(&read("src/web/mod.rs"));
    assert!(all.len() >= 30, "read only {} routes", all.len());
    all.into_iter()
        .filter(|(_, get)| *get)
        .map(|(p, _)| p)
        .filter(|p| p != "/api" && !p.starts_with("/api/"))
        .filter(|p| !["/healthz", "/readyz", "/metrics"].contains(&p.as_str()))
        .filter(|p| !p.rsplit('/').next().unwrap_or("").contains('.'))
        .filter(|p| !NOT_HTML.iter().any(|(n, _)| n == p))
        .collect()
}

/// Does a concrete URL path (`/runs/{run_id}`, `/boards/LicheePi%204A`)
/// fit a route pattern (`/runs/{id}`)?
fn fits(route: &str, url: &str) -> bool {
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let r: Vec<&str> = route.split('/').collect();
    let u: Vec<&str> = url.split('/').collect();
    r.len() == u.len()
        && r.iter()
            .zip(&u)
            .all(|(a, b)| (a.starts_with('{') && !b.is_empty()) || a == b)
}

/// The paths of the Chromium page list: every string literal of the
/// `let pages` vector that starts with `/`.
fn browser_paths() -> Vec<String> {
    let src = read("tests/browser.rs");
    let start = src
        .find("let pages")
        .expect("tests/browser.rs: `let pages` list");
    let end = start + src[start..].find("];").expect("end of the page list");
    src[start..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with('/'))
        .map(str::to_string)
        .collect()
}

/// The crawl's page types as route patterns: each arm of `page_type` in
/// tests/site.rs, `["runs", id]` -> `/runs/{_}`, `[""]` -> `/`, kept only
/// when the crawl's `want` list asks for the arm's type.
fn crawl_patterns() -> Vec<String> {
    let src = read("tests/site.rs");
    let w = src
        .find("let want = [")
        .expect("tests/site.rs: the crawl's `want` list");
    let want = &src[w..w + src[w..].find("];").expect("end of `want`")];
    let start = src
        .find("fn page_type")
        .expect("tests/site.rs: fn page_type");
    let end = start
        + src[start..]
            .find("_ => return None")
            .expect("end of page_type");
    src[start..end]
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('[') && l.contains("=>"))
        .filter(|l| {
            let name = l
                .rsplit("=>")
                .next()
                .unwrap_or("")
                .trim()
                .trim_end_matches(',');
            want.contains(name)
        })
        .map(|l| {
            let inner = &l[1..l.find(']').expect("closing bracket")];
            let segs: Vec<String> = inner
                .split(',')
                .map(str::trim)
                .map(
                    |s| match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                        Some(lit) => lit.to_string(),
                        None => "{_}".to_string(),
                    },
                )
                .collect();
            if segs == [""] {
                "/".to_string()
            } else {
                format!("/{}", segs.join("/"))
            }
        })
        .collect()
}

fn same_shape(a: &str, b: &str) -> bool {
    let a: Vec<&str> = a.split('/').collect();
    let b: Vec<&str> = b.split('/').collect();
    a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| x == y || (x.starts_with('{') && y.starts_with('{')))
}

#[test]
fn every_page_is_rendered_in_chromium_and_reached_by_the_crawl() {
    let pages = pages();
    assert!(pages.len() >= 15, "only {} pages: {pages:?}", pages.len());
    let browser = browser_paths();
    assert!(browser.len() >= 15, "browser list: {browser:?}");
    let crawl = crawl_patterns();
    assert!(crawl.len() >= 14, "crawl page types: {crawl:?}");

    let mut problems = Vec::new();
    for page in &pages {
        let checks = [
            ("browser", browser.iter().any(|u| fits(page, u))),
            ("crawl", crawl.iter().any(|c| same_shape(page, c))),
        ];
        for (check, has) in checks {
            let excused = UNCHECKED.iter().find(|(r, c, _)| r == page && *c == check);
            match (has, excused) {
                (true, None) | (false, Some(_)) => {}
                (false, None) => problems.push(format!(
                    "{page}: not in the {check} check ({})",
                    if check == "browser" {
                        "tests/browser.rs `let pages`"
                    } else {
                        "tests/site.rs `page_type` and its `want` list"
                    }
                )),
                (true, Some((_, _, why))) => problems.push(format!(
                    "{page}: now has the {check} check; remove it from UNCHECKED ({why})"
                )),
            }
        }
    }
    for (route, check, _) in UNCHECKED {
        if !pages.contains(&route.to_string()) {
            problems.push(format!(
                "UNCHECKED names {route} ({check}), not a page route"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
