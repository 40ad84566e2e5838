//! `reclaimlab upload FILE`: what the curl line does, for rigs.

use crate::config::UploadArgs;

pub async fn run(a: UploadArgs) -> anyhow::Result<()> {
    let content = super::read_input(&a.file)?;
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
    let resp = reqwest::Client::new()
        .post(url)
        .bearer_auth(&a.token)
        .header(reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(content)
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("cannot reach {}: {e}", a.server))?;
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
