//! Permalinks kept in memory as ready answers.
//!
//! A permalink never changes once made; it can only be removed. Its
//! renderings (HTML, text, whole text, JSON, SVG) are read from the
//! database once, each with its strong ETag computed then, and kept as
//! [`Bytes`]: a later request is answered with a reference-counted copy of
//! the kept body and header values, without a database round trip, a
//! copy of the body or a hash of it.
//!
//! A removal made through this process forgets the entry at once
//! ([`PermalinkCache::forget`]). One made through another process (they
//! share nothing but the database) is seen within [`PermalinkCache::ttl`]:
//! a request for an entry the database confirmed more than half the TTL
//! ago is still answered from memory, and starts one background check of
//! the row (`removed_at` only); an entry not confirmed for the whole TTL
//! (nobody asked for it meanwhile) is read again before it is served.
//!
//! Requests that arrive together for an entry not kept read the row once
//! (single flight): the first reads it, the others wait for its answer.
//! A permalink that does not exist is not kept (one made a moment later
//! is found). At most [`MAX_ENTRIES`] permalinks and [`MAX_TOTAL_BYTES`] of
//! bodies are kept; past either, entries not confirmed within the TTL go
//! first, then all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::HeaderValue;

use crate::storage::snapshots::{self, Snapshot};

/// Permalinks kept at most.
pub const MAX_ENTRIES: usize = 4096;
/// Bytes of kept bodies at most, over all permalinks.
pub const MAX_TOTAL_BYTES: usize = 256 * 1024 * 1024;

/// One rendering of a permalink, ready to send.
#[derive(Debug, Clone)]
pub struct Rendering {
    pub content_type: &'static str,
    pub body: Bytes,
    /// Strong ETag, quoted: the first 16 bytes of the body's SHA-256, in hex.
    pub etag: HeaderValue,
}

impl Rendering {
    fn new(content_type: &'static str, body: String) -> Rendering {
        let etag = format!(
            "\"{}\"",
            hex::encode(&crate::ingest::sha256(body.as_bytes())[..16])
        );
        Rendering {
            content_type,
            body: Bytes::from(body),
            etag: HeaderValue::from_maybe_shared(Bytes::from(etag))
                .unwrap_or_else(|_| HeaderValue::from_static("\"\"")),
        }
    }

    /// Does an `If-None-Match` value name this rendering's ETag?
    pub fn matches(&self, if_none_match: &[u8]) -> bool {
        if_none_match == b"*"
            || if_none_match
                .split(|&b| b == b',')
                .any(|t| t.trim_ascii() == self.etag.as_bytes())
    }
}

/// The renderings of a live permalink.
#[derive(Debug)]
pub struct Renderings {
    pub html: Rendering,
    pub txt: Rendering,
    /// The whole text (the short text for permalinks made before replies
    /// were short).
    pub full_txt: Rendering,
    pub json: Rendering,
    pub svg: Option<Rendering>,
}

/// What a permalink's URLs answer.
#[derive(Debug)]
pub enum Permalink {
    Live(Box<Renderings>),
    /// Removed: its slug stays taken and answers 410.
    Removed,
}

impl Permalink {
    fn from_snapshot(s: Snapshot) -> Permalink {
        if s.removed_at.is_some() {
            return Permalink::Removed;
        }
        const TEXT: &str = "text/plain; charset=utf-8";
        let full = s.body_full_txt.unwrap_or_else(|| s.body_txt.clone());
        Permalink::Live(Box::new(Renderings {
            html: Rendering::new("text/html; charset=utf-8", s.body_html),
            txt: Rendering::new(TEXT, s.body_txt),
            full_txt: Rendering::new(TEXT, full),
            json: Rendering::new("application/json", s.body_json),
            svg: s.body_svg.map(|b| Rendering::new("image/svg+xml", b)),
        }))
    }

    fn bytes(&self) -> usize {
        match self {
            Permalink::Live(r) => {
                r.html.body.len()
                    + r.txt.body.len()
                    + r.full_txt.body.len()
                    + r.json.body.len()
                    + r.svg.as_ref().map_or(0, |s| s.body.len())
            }
            Permalink::Removed => 0,
        }
    }
}

type Slot = Arc<tokio::sync::OnceCell<Arc<Permalink>>>;

#[derive(Debug)]
struct Entry {
    slot: Slot,
    /// When the database last confirmed the entry (or its first read began).
    checked: Instant,
    /// A background check of the row is running.
    checking: bool,
}

#[derive(Debug, Default)]
struct Entries {
    map: HashMap<String, Entry>,
}

#[derive(Debug)]
pub struct PermalinkCache {
    ttl: Duration,
    entries: Mutex<Entries>,
}

impl Default for PermalinkCache {
    fn default() -> Self {
        PermalinkCache::new(Duration::from_secs(10))
    }
}

enum Found {
    /// Kept and confirmed recently enough; `true`: start a check.
    Kept(Arc<Permalink>, bool),
    /// Read (or being read) once for every request that wants it now.
    Fill(Slot),
}

impl PermalinkCache {
    pub fn new(ttl: Duration) -> Self {
        PermalinkCache {
            ttl,
            entries: Mutex::default(),
        }
    }

    /// How long a removal made by another process may go unseen.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // Nothing panics while holding the lock; if something did, the
        // entries are still consistent (each change is one assignment).
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What `/c/{slug}` answers: from memory, or read once from the
    /// database for all the requests that want it now. `None`: no such
    /// permalink.
    pub async fn load(
        self: &Arc<Self>,
        pool: &sqlx::PgPool,
        slug: &str,
    ) -> sqlx::Result<Option<Arc<Permalink>>> {
        let slot = match self.find(slug) {
            Found::Kept(p, check) => {
                if check {
                    let (cache, pool, slug) = (self.clone(), pool.clone(), slug.to_owned());
                    tokio::spawn(async move { cache.check(&pool, &slug).await });
                }
                return Ok(Some(p));
            }
            Found::Fill(slot) => slot,
        };
        let filled = slot
            .get_or_try_init(|| async {
                let Some(s) = snapshots::get(pool, slug).await? else {
                    return Err(sqlx::Error::RowNotFound);
                };
                // Hashing the bodies is CPU work of a few ms for a big
                // comparison: off the async runtime.
                let p = tokio::task::spawn_blocking(move || Permalink::from_snapshot(s))
                    .await
                    .map_err(|e| sqlx::Error::Protocol(format!("rendering task: {e}")))?;
                Ok::<_, sqlx::Error>(Arc::new(p))
            })
            .await;
        match filled {
            Ok(p) => Ok(Some(p.clone())),
            Err(sqlx::Error::RowNotFound) => {
                self.forget_slot(slug, &slot);
                Ok(None)
            }
            Err(e) => {
                self.forget_slot(slug, &slot);
                Err(e)
            }
        }
    }

    fn find(&self, slug: &str) -> Found {
        let mut e = self.lock();
        if let Some(entry) = e.map.get_mut(slug) {
            let age = entry.checked.elapsed();
            match entry.slot.get() {
                Some(p) if age < self.ttl / 2 => return Found::Kept(p.clone(), false),
                Some(p) if age < self.ttl => {
                    let start = !entry.checking;
                    entry.checking = true;
                    return Found::Kept(p.clone(), start);
                }
                // Being read by another request: share its read.
                None => return Found::Fill(entry.slot.clone()),
                Some(_) => {}
            }
            // Not confirmed for the whole TTL: read again.
            e.map.remove(slug);
        }
        self.make_room(&mut e);
        let slot = Slot::default();
        e.map.insert(
            slug.to_owned(),
            Entry {
                slot: slot.clone(),
                checked: Instant::now(),
                checking: false,
            },
        );
        Found::Fill(slot)
    }

    /// The database's answer for a kept entry confirmed more than half the
    /// TTL ago: still there (confirmed now), removed (kept as removed), or
    /// gone. On a database error nothing changes: the entry is read again
    /// once the TTL has passed.
    async fn check(&self, pool: &sqlx::PgPool, slug: &str) {
        let removed: sqlx::Result<Option<bool>> =
            sqlx::query_scalar("SELECT removed_at IS NOT NULL FROM snapshots WHERE slug = $1")
                .bind(slug)
                .fetch_optional(pool)
                .await;
        let mut e = self.lock();
        let Some(entry) = e.map.get_mut(slug) else {
            return;
        };
        entry.checking = false;
        match removed {
            Ok(Some(false)) => entry.checked = Instant::now(),
            Ok(Some(true)) => {
                entry.slot = Slot::new(tokio::sync::OnceCell::new_with(Some(Arc::new(
                    Permalink::Removed,
                ))));
                entry.checked = Instant::now();
            }
            Ok(None) => {
                e.map.remove(slug);
            }
            Err(err) => tracing::warn!(permalink = %slug, error = %err, "permalink check failed"),
        }
    }

    /// Before a new entry: within the bounds. The sum of the bytes runs
    /// only on a miss, over at most [`MAX_ENTRIES`] entries.
    fn make_room(&self, e: &mut Entries) {
        let bytes = |e: &Entries| -> usize {
            e.map
                .values()
                .map(|entry| entry.slot.get().map_or(0, |p| p.bytes()))
                .sum()
        };
        if e.map.len() < MAX_ENTRIES && bytes(e) < MAX_TOTAL_BYTES {
            return;
        }
        let ttl = self.ttl;
        e.map.retain(|_, entry| entry.checked.elapsed() < ttl);
        if e.map.len() >= MAX_ENTRIES || bytes(e) >= MAX_TOTAL_BYTES {
            e.map.clear();
        }
    }

    fn forget_slot(&self, slug: &str, slot: &Slot) {
        let mut e = self.lock();
        if e.map
            .get(slug)
            .is_some_and(|entry| Arc::ptr_eq(&entry.slot, slot))
        {
            e.map.remove(slug);
        }
    }

    /// Drop the entry of `slug` (its permalink was removed here).
    pub fn forget(&self, slug: &str) {
        self.lock().map.remove(slug);
    }

    /// Permalinks kept now.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
