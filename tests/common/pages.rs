//! The site's HTML pages as the router declares them, and a crawl that
//! reaches them from `/` by links alone. `tests/site.rs` asserts that the
//! crawl reaches every page route; `tests/browser.rs` renders one address
//! of every route the crawl reached in Chromium. A `GET` route added to
//! `src/web/mod.rs` is therefore crawled and rendered with no edit here,
//! and a page nothing links to fails the crawl, by route.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use axum::Router;

/// GET routes outside `/api` that answer something other than HTML.
pub const NOT_HTML: &[(&str, &str)] = &[("/runs/{id}/raw", "the uploaded text as text/plain")];

/// Page routes the crawl of the test data set cannot reach: (route, why).
/// The crawl fails when one of them is reached, so the entry must go.
pub const UNREACHED: &[(&str, &str)] = &[];

/// `(path, answers GET)` for every `.route("PATH", ...)` of the router,
/// read from its source.
fn routes(src: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for part in src.split(".route(").skip(1) {
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

/// The router's GET routes that answer an HTML page: not under `/api`,
/// not an operations endpoint, no extension in the last segment, not in
/// [`NOT_HTML`].
pub fn html_pages() -> Vec<String> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/src/web/mod.rs");
    let src = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    let all = routes(&src);
    assert!(all.len() >= 30, "read only {} routes", all.len());
    let pages: Vec<String> = all
        .into_iter()
        .filter(|(_, get)| *get)
        .map(|(p, _)| p)
        .filter(|p| p != "/api" && !p.starts_with("/api/"))
        .filter(|p| !["/healthz", "/readyz", "/metrics"].contains(&p.as_str()))
        .filter(|p| !p.rsplit('/').next().unwrap_or("").contains('.'))
        .filter(|p| !NOT_HTML.iter().any(|(n, _)| n == p))
        .collect();
    assert!(pages.len() >= 15, "only {} pages: {pages:?}", pages.len());
    for (r, _) in UNREACHED {
        assert!(
            pages.iter().any(|p| p == r),
            "UNREACHED names {r}, not a page route"
        );
    }
    pages
}

/// Does a concrete address (`/runs/17?x=1`) fit a route (`/runs/{id}`)?
pub fn fits(route: &str, url: &str) -> bool {
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let r: Vec<&str> = route.split('/').collect();
    let u: Vec<&str> = url.split('/').collect();
    r.len() == u.len()
        && r.iter()
            .zip(&u)
            .all(|(a, b)| (a.starts_with('{') && !b.is_empty()) || a == b)
}

/// The page route an address belongs to: of the routes it fits, the one
/// with the most literal segments (`/simulations/costs` before
/// `/simulations/{id}`).
pub fn route_of<'a>(pages: &'a [String], url: &str) -> Option<&'a str> {
    pages
        .iter()
        .filter(|r| fits(r, url))
        .max_by_key(|r| r.split('/').filter(|s| !s.starts_with('{')).count())
        .map(String::as_str)
}

/// The same-site targets of a page's links (`href`), HTML-unescaped,
/// fragments dropped; absolute links to the site's own address included.
pub fn site_links(html: &str, public: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|h| h.replace("&amp;", "&").replace("&#38;", "&"))
        .map(|h| h.strip_prefix(public).map(str::to_string).unwrap_or(h))
        .filter(|h| h.starts_with('/') && !h.starts_with("//"))
        .map(|h| h.split('#').next().unwrap_or("").to_string())
        .filter(|h| !h.is_empty())
        .collect()
}

/// What a crawl found.
pub struct Crawl {
    /// Page route -> the first address of it the crawl rendered as HTML.
    pub reached: BTreeMap<String, String>,
    /// Addresses fetched.
    pub fetched: usize,
}

/// Every same-site link from `/`, breadth first: nothing answers 4xx/5xx,
/// every HTML page links to some page of the site (no dead end), and
/// each page route reached is recorded with its first address.
/// `public` is the site's own address as its absolute links spell it.
pub async fn crawl(app: &Router, public: &str) -> Crawl {
    let pages = html_pages();
    let mut seen = BTreeSet::new();
    let mut queue = VecDeque::from(["/".to_string()]);
    let mut reached = BTreeMap::new();
    let mut fetched = 0;
    while let Some(url) = queue.pop_front() {
        if !seen.insert(url.clone()) {
            continue;
        }
        assert!(fetched < 3000, "crawl did not end: {} pages", seen.len());
        fetched += 1;
        let r = super::get(app, &url).await;
        assert!(r.status < 400, "GET {url}: {} {}", r.status, r.text());
        if (300..400).contains(&r.status) {
            if let Some(loc) = r.headers.get("location").and_then(|v| v.to_str().ok()) {
                queue.push_back(loc.to_string());
            }
            continue;
        }
        let ctype = r
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !ctype.starts_with("text/html") {
            continue;
        }
        let html = r.text();
        let links = site_links(&html, public);
        assert!(
            links.iter().any(|l| route_of(&pages, l).is_some()),
            "{url}: a dead end, no link to a page of the site"
        );
        if let Some(route) = route_of(&pages, &url) {
            reached
                .entry(route.to_string())
                .or_insert_with(|| url.clone());
        }
        for l in links {
            if !seen.contains(&l) {
                queue.push_back(l);
            }
        }
    }
    Crawl { reached, fetched }
}

/// The page routes a crawl should have reached and did not, and those
/// [`UNREACHED`] excuses that it reached after all.
pub fn unreached(c: &Crawl) -> Vec<String> {
    let mut problems = Vec::new();
    for page in html_pages() {
        let excused = UNREACHED.iter().find(|(r, _)| *r == page);
        match (c.reached.contains_key(&page), excused) {
            (true, None) | (false, Some(_)) => {}
            (false, None) => problems.push(format!("{page}: no link from / reaches it")),
            (true, Some((_, why))) => problems.push(format!(
                "{page}: now reached; remove it from UNREACHED ({why})"
            )),
        }
    }
    problems
}
