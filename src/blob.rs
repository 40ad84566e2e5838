//! Raw upload bytes on their way into the blob store (`blobs`, keyed by the
//! SHA-256 of the content).
//!
//! A request body is never held whole: its chunks are written, as they
//! arrive, to a [`Spool`] (an unlinked temporary file, hashed on the way),
//! gunzipped in chunks on the blocking pool when the body is gzip. The
//! streaming parser then reads the spool, and the blob is stored from it
//! with `COPY ... FROM STDIN (FORMAT binary)` in chunks, inside the
//! upload's transaction. Memory per upload is the chunks in flight and the
//! parser's own bound, whatever the body's size.
//!
//! The spool file has no name from the moment it is created (`O_TMPFILE`
//! or create-then-unlink), so nothing is left behind on any error, on a
//! cancelled request or on a crash; it lives in `TMPDIR` (default `/tmp`).
//! Storing is content-addressed and idempotent: the same bytes are one
//! blob row, written once, whoever sends them and how often.

use std::io::{self, BufRead, Read, Write};
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use sha2::{Digest, Sha256};
use sqlx::PgConnection;
use tokio::sync::mpsc;

use crate::error::AppError;
use crate::ingest::{self, Cancel};

/// Bytes of a chunk handed from one stage to the next (decoded gzip, file
/// reads for the parser and for COPY).
pub const CHUNK: usize = 256 * 1024;
/// Chunks waiting between two stages: with [`CHUNK`], the memory in flight
/// per stage is at most about 2 MiB.
const IN_FLIGHT: usize = 8;

/// Raw bytes, hashed, in an unlinked temporary file.
#[derive(Debug)]
pub struct Spool {
    file: std::fs::File,
    len: u64,
    sha256: Vec<u8>,
}

impl Spool {
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// SHA-256 of the content (its blob key).
    pub fn sha256(&self) -> &[u8] {
        &self.sha256
    }

    /// The content from its first byte, read at positions of its own (any
    /// number of readers at once; none moves another's offset).
    pub fn reader(&self) -> SpoolReader<'_> {
        SpoolReader {
            file: &self.file,
            pos: 0,
            len: self.len,
        }
    }
}

/// See [`Spool::reader`].
pub struct SpoolReader<'a> {
    file: &'a std::fs::File,
    pos: u64,
    len: u64,
}

impl Read for SpoolReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// Writes a [`Spool`]: hashes, counts and stores each chunk, and refuses
/// binary content (a NUL byte) at the chunk it appears in.
pub struct SpoolWriter {
    out: io::BufWriter<std::fs::File>,
    hasher: Sha256,
    len: u64,
    refuse_binary: bool,
}

impl SpoolWriter {
    pub fn new(refuse_binary: bool) -> Result<SpoolWriter, AppError> {
        let file = tempfile::tempfile().map_err(|e| spool_error("create", e))?;
        Ok(SpoolWriter {
            out: io::BufWriter::with_capacity(CHUNK, file),
            hasher: Sha256::new(),
            len: 0,
            refuse_binary,
        })
    }

    pub fn write(&mut self, chunk: &[u8]) -> Result<(), AppError> {
        if self.refuse_binary && chunk.contains(&0) {
            return Err(ingest::binary_content());
        }
        self.hasher.update(chunk);
        self.out
            .write_all(chunk)
            .map_err(|e| spool_error("write", e))?;
        self.len += chunk.len() as u64;
        Ok(())
    }

    pub fn finish(self) -> Result<Spool, AppError> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| spool_error("write", e.into_error()))?;
        Ok(Spool {
            file,
            len: self.len,
            sha256: self.hasher.finalize().to_vec(),
        })
    }
}

fn spool_error(what: &str, e: io::Error) -> AppError {
    AppError::Internal(anyhow::anyhow!(
        "cannot {what} the upload's spool file in the temporary directory: {e}"
    ))
}

/// The async end of a [`SpoolWriter`] running on the blocking pool: chunks
/// pushed here are hashed and written there, at most [`IN_FLIGHT`] ahead.
/// Dropped without [`SpoolSink::finish`], the spool is dropped too.
pub struct SpoolSink {
    tx: Option<mpsc::Sender<Bytes>>,
    worker: tokio::task::JoinHandle<Result<Spool, AppError>>,
}

impl SpoolSink {
    pub fn start(cancel: &Cancel) -> SpoolSink {
        let (tx, mut rx) = mpsc::channel::<Bytes>(IN_FLIGHT);
        let cancel = cancel.clone();
        let span = tracing::Span::current();
        let worker = tokio::task::spawn_blocking(move || {
            let _g = span.enter();
            let mut w = SpoolWriter::new(true)?;
            while let Some(chunk) = rx.blocking_recv() {
                cancel.check()?;
                w.write(&chunk)?;
            }
            cancel.check()?;
            w.finish()
        });
        SpoolSink {
            tx: Some(tx),
            worker,
        }
    }

    pub async fn push(&mut self, chunk: Bytes) -> Result<(), AppError> {
        if chunk.is_empty() {
            return Ok(());
        }
        let sent = match &self.tx {
            Some(tx) => tx.send(chunk).await.is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        // The writer stopped: its error is the answer.
        self.tx = None;
        match (&mut self.worker).await {
            Ok(Err(e)) => Err(e),
            Ok(Ok(_)) => Err(AppError::Internal(anyhow::anyhow!(
                "the spool writer ended early"
            ))),
            Err(e) => Err(AppError::Internal(anyhow::anyhow!(
                "spool writer failed: {e}"
            ))),
        }
    }

    pub async fn finish(mut self) -> Result<Spool, AppError> {
        self.tx = None;
        (&mut self.worker)
            .await
            .map_err(|e| AppError::Internal(anyhow::anyhow!("spool writer failed: {e}")))?
    }
}

/// Spool a stream of chunks.
pub async fn spool_stream(
    mut chunks: impl Stream<Item = Result<Bytes, AppError>> + Unpin,
    cancel: &Cancel,
) -> Result<Spool, AppError> {
    let mut sink = SpoolSink::start(cancel);
    while let Some(chunk) = chunks.next().await {
        sink.push(chunk?).await?;
    }
    sink.finish().await
}

/// Decode a gzip stream of chunks, in chunks, on the blocking pool: every
/// member of a multi-member stream, at most `max` bytes in all (see
/// [`gunzip_read`]). An error of `raw` (a limit, a lost client) is passed
/// on as it is.
pub fn gunzip_stream(
    raw: impl Stream<Item = Result<Bytes, AppError>> + Send + 'static,
    max: usize,
    cancel: &Cancel,
) -> impl Stream<Item = Result<Bytes, AppError>> + Send + Unpin + 'static {
    let (raw_tx, raw_rx) = mpsc::channel::<Result<Bytes, AppError>>(IN_FLIGHT);
    let (out_tx, out_rx) = mpsc::channel::<Result<Bytes, AppError>>(IN_FLIGHT);
    tokio::spawn(async move {
        let mut raw = std::pin::pin!(raw);
        loop {
            let item = tokio::select! {
                item = raw.next() => item,
                // The decoder is gone (its error, or the request's end).
                _ = raw_tx.closed() => break,
            };
            let Some(item) = item else { break };
            let last = item.is_err();
            if raw_tx.send(item).await.is_err() || last {
                break;
            }
        }
    });
    let cancel = cancel.clone();
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _g = span.enter();
        let upstream = Arc::new(Mutex::new(None));
        let src = ChanRead {
            rx: raw_rx,
            cur: Bytes::new(),
            error: upstream.clone(),
        };
        let r = gunzip_read(src, max, &cancel, true, &mut |chunk| {
            out_tx
                .blocking_send(Ok(Bytes::from(chunk)))
                .map_err(|_| AppError::Busy("the request was cancelled".into()))
        });
        if let Err(e) = r {
            let e = upstream.lock().ok().and_then(|mut u| u.take()).unwrap_or(e);
            let _ = out_tx.blocking_send(Err(e));
        }
    });
    futures_util::stream::unfold(out_rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    })
    .boxed()
}

/// A blocking [`Read`] over chunks sent from the async side. An error
/// received ends the reading; it is kept in `error` for the caller.
struct ChanRead {
    rx: mpsc::Receiver<Result<Bytes, AppError>>,
    cur: Bytes,
    error: Arc<Mutex<Option<AppError>>>,
}

impl Read for ChanRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if !self.cur.is_empty() {
                let n = buf.len().min(self.cur.len());
                buf[..n].copy_from_slice(&self.cur[..n]);
                bytes::Buf::advance(&mut self.cur, n);
                return Ok(n);
            }
            match self.rx.blocking_recv() {
                Some(Ok(b)) => self.cur = b,
                Some(Err(e)) => {
                    let msg = e.to_string();
                    if let Ok(mut slot) = self.error.lock() {
                        *slot = Some(e);
                    }
                    return Err(io::Error::other(msg));
                }
                None => return Ok(0),
            }
        }
    }
}

/// A [`BufRead`] that can look a few bytes ahead across its reads and
/// counts the bytes consumed (the offsets in gzip errors).
struct Peek<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    consumed: u64,
}

impl<R: Read> Peek<R> {
    fn new(inner: R) -> Self {
        Peek {
            inner,
            buf: vec![0; 64 * 1024],
            pos: 0,
            end: 0,
            consumed: 0,
        }
    }

    /// At least `n` bytes ahead, unless the input ends first.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.end - self.pos < n {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            while self.end < n {
                let got = match self.inner.read(&mut self.buf[self.end..]) {
                    Ok(got) => got,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                if got == 0 {
                    break;
                }
                self.end += got;
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }

    /// Read the rest, counting it.
    fn drain(&mut self) -> io::Result<u64> {
        let mut n = (self.end - self.pos) as u64;
        self.pos = self.end;
        n += io::copy(&mut self.inner, &mut io::sink())?;
        self.consumed += n;
        Ok(n)
    }
}

impl<R: Read> Read for Peek<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let avail = self.fill_buf()?;
            let n = avail.len().min(out.len());
            out[..n].copy_from_slice(&avail[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Peek<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.pos = 0;
            self.end = loop {
                match self.inner.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.pos);
        self.pos += n;
        self.consumed += n as u64;
    }
}

/// Decode gzip read from `src`: every member of a multi-member stream (RFC
/// 1952 section 2.2, as `cat a.gz b.gz` makes), at most `max` bytes in all,
/// handed to `emit` [`CHUNK`] bytes at a time. `cancel` is checked between
/// chunks. Bytes after the last member that are not another member are
/// refused (400), not dropped: a truncated or padded upload is not
/// silently cut. With `refuse_binary`, a NUL byte in the decoded text ends
/// the decode at once with 415 (binary content is not a result, and need
/// not be decoded to its end to know it). Returns the decoded size.
pub fn gunzip_read(
    src: impl Read,
    max: usize,
    cancel: &Cancel,
    refuse_binary: bool,
    emit: &mut dyn FnMut(Vec<u8>) -> Result<(), AppError>,
) -> Result<u64, AppError> {
    let mut src = Peek::new(src);
    let mut total: usize = 0;
    let mut members = 0usize;
    let not_gzip = |e: io::Error, member: usize, offset: u64| {
        AppError::BadRequest(format!(
            "body is not valid gzip: member {member} at byte {offset}: {e}"
        ))
    };
    loop {
        let offset = src.consumed;
        if members > 0 {
            let head = src.peek(2).map_err(|e| not_gzip(e, members + 1, offset))?;
            if head.is_empty() {
                return Ok(total as u64);
            }
            if !head.starts_with(&[0x1f, 0x8b]) {
                let rest = src.drain().map_err(|e| not_gzip(e, members + 1, offset))?;
                return Err(AppError::BadRequest(format!(
                    "body is not valid gzip: {rest} bytes after the end of gzip member {members} (at byte {offset}) are not another gzip member; send the gzip stream and nothing after it"
                )));
            }
        }
        let mut dec = flate2::bufread::GzDecoder::new(&mut src);
        loop {
            cancel.check()?;
            let budget = (max + 1).saturating_sub(total).min(CHUNK);
            let mut out = vec![0u8; budget];
            let n = loop {
                match dec.read(&mut out) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(not_gzip(e, members + 1, offset)),
                }
            };
            out.truncate(n);
            total += n;
            if total > max {
                return Err(AppError::PayloadTooLarge(format!(
                    "decompressed body is larger than {max} bytes"
                )));
            }
            if refuse_binary && out.contains(&0) {
                return Err(ingest::binary_content());
            }
            if n == 0 {
                break;
            }
            emit(out)?;
        }
        members += 1;
    }
}

/// Decode a gzip body held in memory (see [`gunzip_read`]).
pub fn gunzip(raw: &[u8], max: usize) -> Result<Vec<u8>, AppError> {
    let mut all = Vec::new();
    gunzip_read(raw, max, &Cancel::default(), false, &mut |chunk| {
        all.extend_from_slice(&chunk);
        Ok(())
    })?;
    Ok(all)
}

/// A blob's content: bytes in memory, or a spool.
#[derive(Clone, Copy)]
pub enum Blob<'a> {
    Bytes(&'a [u8]),
    Spool(&'a Spool),
}

impl Blob<'_> {
    pub fn len(&self) -> u64 {
        match self {
            Blob::Bytes(b) => b.len() as u64,
            Blob::Spool(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Lock class of the per-blob advisory locks (`pg_advisory_xact_lock(int,
/// int)`; the two-key space does not meet the one-key locks elsewhere).
const BLOB_LOCK_CLASS: i32 = 0x626c_6f62;

/// Spooled contents up to this size are stored with one `INSERT`.
pub const INSERT_AT_MOST: u64 = 64 * 1024;

/// Store `content` under `sha256` on `conn` (inside the caller's
/// transaction), unless it is stored already. Bytes in memory, and a spool
/// of at most [`INSERT_AT_MOST`] bytes, go in one statement; a bigger spool
/// goes through `COPY (FORMAT binary)` in [`CHUNK`]s,
/// so the process never holds it whole. Concurrent uploads of the same
/// content wait for each other on a transaction-scoped advisory lock, and
/// the second finds the first's row.
pub async fn store(
    conn: &mut PgConnection,
    sha256: &[u8],
    content: Blob<'_>,
) -> Result<(), AppError> {
    let spool = match content {
        Blob::Bytes(b) => {
            sqlx::query(
                "INSERT INTO blobs (sha256, size, content) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING",
            )
            .bind(sha256)
            .bind(b.len() as i64)
            .bind(b)
            .execute(&mut *conn)
            .await?;
            return Ok(());
        }
        Blob::Spool(s) => s,
    };
    // A small upload (a rig's result) is one `INSERT ... ON CONFLICT DO
    // NOTHING` like bytes in memory: one round trip instead of a lock, a
    // lookup and a COPY. Reading a few KiB of a spool file just written is
    // served from the page cache.
    if spool.len() <= INSERT_AT_MOST {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; spool.len() as usize];
        spool
            .file
            .read_exact_at(&mut buf, 0)
            .map_err(|e| spool_error("read", e))?;
        return Box::pin(store(conn, sha256, Blob::Bytes(&buf))).await;
    }
    let key = i32::from_be_bytes([sha256[0], sha256[1], sha256[2], sha256[3]]);
    sqlx::query("SELECT pg_advisory_xact_lock($1, $2)")
        .bind(BLOB_LOCK_CLASS)
        .bind(key)
        .execute(&mut *conn)
        .await?;
    let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM blobs WHERE sha256 = $1)")
        .bind(sha256)
        .fetch_one(&mut *conn)
        .await?;
    if exists {
        return Ok(());
    }
    let len = i32::try_from(spool.len()).map_err(|_| {
        AppError::PayloadTooLarge(format!(
            "a blob of {} bytes; at most {} bytes are stored in one",
            spool.len(),
            i32::MAX
        ))
    })?;
    // The binary COPY format: signature, flags, header extension; one
    // tuple of three fields (length-prefixed); the trailer -1.
    let mut head = Vec::with_capacity(64 + sha256.len());
    head.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
    head.extend_from_slice(&0i32.to_be_bytes());
    head.extend_from_slice(&0i32.to_be_bytes());
    head.extend_from_slice(&3i16.to_be_bytes());
    head.extend_from_slice(&(sha256.len() as i32).to_be_bytes());
    head.extend_from_slice(sha256);
    head.extend_from_slice(&8i32.to_be_bytes());
    head.extend_from_slice(&(spool.len() as i64).to_be_bytes());
    head.extend_from_slice(&len.to_be_bytes());
    let mut copy = conn
        .copy_in_raw("COPY blobs (sha256, size, content) FROM STDIN (FORMAT binary)")
        .await?;
    copy.send(head).await?;
    let mut pos = 0u64;
    while pos < spool.len() {
        let (f, buf, n) = tokio::task::spawn_blocking({
            let f = spool.file.try_clone().map_err(|e| spool_error("read", e))?;
            move || {
                let mut buf = vec![0u8; CHUNK * 4];
                let n = f.read_at(&mut buf, pos);
                (f, buf, n)
            }
        })
        .await
        .map_err(|e| AppError::Internal(anyhow::anyhow!("spool read failed: {e}")))?;
        drop(f);
        let n = n.map_err(|e| spool_error("read", e))?;
        if n == 0 {
            return Err(spool_error(
                "read",
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the spool file is shorter than written",
                ),
            ));
        }
        let n = n.min((spool.len() - pos) as usize);
        copy.send(&buf[..n]).await?;
        pos += n as u64;
    }
    copy.send(&(-1i16).to_be_bytes()[..]).await?;
    copy.finish().await?;
    Ok(())
}
