//! `reclaimlab upload FILE`: what the curl line does, for rigs. The file
//! (or stdin) is sent in chunks as it is read, never held whole. An
//! `https://` server is checked against the public roots bundled with the
//! binary (webpki-roots, through rustls), plus any `--ca-cert FILE`.

use std::io::Read;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::config::UploadArgs;

/// Bytes read and sent at a time.
const CHUNK: usize = 1 << 20;

/// A request body fed by a reader on a blocking thread, a few chunks ahead.
struct ReadBody {
    rx: mpsc::Receiver<std::io::Result<Bytes>>,
    len: Option<u64>,
}

impl http_body::Body for ReadBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, std::io::Error>>> {
        self.rx
            .poll_recv(cx)
            .map(|item| item.map(|r| r.map(http_body::Frame::data)))
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self.len {
            Some(n) => http_body::SizeHint::with_exact(n),
            None => http_body::SizeHint::default(),
        }
    }
}

/// The file (or stdin for `-`) as a streaming body.
fn body_of(path: &std::path::Path) -> anyhow::Result<reqwest::Body> {
    let (mut input, len): (Box<dyn Read + Send>, Option<u64>) = if path.as_os_str() == "-" {
        (Box::new(std::io::stdin()), None)
    } else {
        let f = std::fs::File::open(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let len = f.metadata().ok().map(|m| m.len());
        (Box::new(f), len)
    };
    let (tx, rx) = mpsc::channel(4);
    tokio::task::spawn_blocking(move || {
        loop {
            let mut buf = vec![0u8; CHUNK];
            let item = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    buf.truncate(n);
                    Ok(Bytes::from(buf))
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            let last = item.is_err();
            if tx.blocking_send(item).is_err() || last {
                break;
            }
        }
    });
    Ok(reqwest::Body::wrap(ReadBody { rx, len }))
}

pub async fn run(a: UploadArgs) -> anyhow::Result<()> {
    let content = body_of(&a.file)?;
    let mut url = reqwest::Url::parse(&a.server)
        .map_err(|e| anyhow::anyhow!("--server '{}' is not a URL: {e}", a.server))?
        .join("/api/v1/uploads")?;
    {
        let mut q = url.query_pairs_mut();
        for (k, v) in [
            ("board", &a.board),
            ("kernel", &a.kernel),
            ("variant", &a.variant),
            ("parent", &a.parent),
            ("message_id", &a.message_id),
            ("tool_args", &a.tool_args),
        ] {
            if let Some(v) = v {
                q.append_pair(k, v);
            }
        }
        if a.unlisted {
            q.append_pair("unlisted", "true");
        }
        if let Some(n) = a.file.file_name().filter(|_| a.file.as_os_str() != "-") {
            q.append_pair("filename", &n.to_string_lossy());
        }
    }
    let resp = client(&a)?
        .post(url)
        .bearer_auth(&a.token)
        .header(reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(content)
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("cannot reach {}: {}", a.server, chain(&e)))?;
    let status = resp.status();
    let body = resp.text().await.unwrap_or_default();
    if !status.is_success() {
        anyhow::bail!("server answered {status}: {body}");
    }
    let v: serde_json::Value = serde_json::from_str(&body).unwrap_or(serde_json::Value::Null);
    let what = if status.as_u16() == 201 {
        "created"
    } else {
        "already stored"
    };
    eprintln!("upload {} {what}", v["upload_id"]);
    if let Some(runs) = v["runs"].as_array() {
        for r in runs {
            println!(
                "{}\t{}\t{}",
                r["id"],
                r["kind"].as_str().unwrap_or(""),
                r["url"].as_str().unwrap_or("")
            );
        }
    }
    Ok(())
}

/// The HTTP client: rustls, trusting the bundled public roots and the
/// certificates of `--ca-cert`.
fn client(a: &UploadArgs) -> anyhow::Result<reqwest::Client> {
    let mut b = reqwest::Client::builder();
    if let Some(path) = &a.ca_cert {
        let pem = std::fs::read(path)
            .map_err(|e| anyhow::anyhow!("--ca-cert {}: {e}", path.display()))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| anyhow::anyhow!("--ca-cert {}: {e}", path.display()))?;
        if certs.is_empty() {
            anyhow::bail!(
                "--ca-cert {}: no PEM certificate in the file",
                path.display()
            );
        }
        for c in certs {
            b = b.add_root_certificate(c);
        }
    }
    b.build()
        .map_err(|e| anyhow::anyhow!("cannot set up the HTTP client: {}", chain(&e)))
}

/// An error and its causes, "a: b: c" (a TLS failure says why only in
/// its causes, e.g. "invalid peer certificate: UnknownIssuer").
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}
