//! Big inputs at bounded memory, on the binary users run: `reclaimlab
//! parse -` reads a generated 64 MB irqsoff trace (and a wakeup_rt one)
//! from a pipe while its peak RSS is read from `/proc/<pid>/status`
//! (`VmHWM`, the kernel's high-water mark of the resident set); the bound
//! is 64 MB and the planted stall must come out with its culprit.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

#[path = "../bench/gen/signal_inputs.rs"]
mod signal_inputs;

const MB: u64 = 1 << 20;
const RSS_BOUND_KB: u64 = 64 * 1024;

/// The child's `VmHWM` in KiB, while it lives.
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Writes into the child's stdin and samples its peak RSS every 4 MB.
struct Sampling<W> {
    inner: W,
    pid: u32,
    since: u64,
    peak_kb: u64,
}

impl<W: Write> Write for Sampling<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.since += n as u64;
        if self.since >= 4 * MB {
            self.since = 0;
            self.peak_kb = self.peak_kb.max(peak_rss_kb(self.pid).unwrap_or(0));
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Run `reclaimlab parse -` on what `generate` writes; the document and
/// the peak RSS in KiB.
fn parse_generated(
    generate: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> (serde_json::Value, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reclaimlab"))
        .args(["parse", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn reclaimlab");
    let pid = child.id();
    let stdin = child.stdin.take().unwrap();
    let mut w = Sampling {
        inner: std::io::BufWriter::with_capacity(1 << 20, stdin),
        pid,
        since: 0,
        peak_kb: 0,
    };
    generate(&mut w).expect("write the trace");
    w.flush().unwrap();
    let mut peak = w.peak_kb;
    drop(w);
    // The document is larger than a pipe's buffer: the child waits on its
    // stdout, alive and past its peak, until it is read.
    let mut stable = 0;
    while stable < 3 {
        std::thread::sleep(Duration::from_millis(100));
        match peak_rss_kb(pid) {
            Some(kb) if kb == peak => stable += 1,
            Some(kb) => {
                peak = peak.max(kb);
                stable = 0;
            }
            None => break,
        }
    }
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    let err = stderr_of(&mut child);
    let status = child.wait().unwrap();
    assert!(status.success(), "reclaimlab parse failed: {err}");
    let doc: serde_json::Value = serde_json::from_slice(&out).expect("JSON document");
    (doc, peak)
}

/// All a child wrote to its stderr (its stdout is closed or read).
fn stderr_of(child: &mut std::process::Child) -> String {
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut err).unwrap();
    }
    err
}

fn check_trace(doc: &serde_json::Value, latency: u64, culprit: &str, bytes: u64) {
    let blocks = doc["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{:?}", doc["warnings"]);
    let b = &blocks[0];
    assert_eq!(b["kind"], "ftrace_latency");
    assert_eq!(b["latency_us"].as_f64(), Some(latency as f64));
    assert_eq!(b["culprit"], culprit);
    assert!(doc["source"]["bytes"].as_u64().unwrap() >= bytes);
    // The block runs to the last line of the input.
    assert_eq!(b["lines"][0].as_u64(), Some(1));
    assert_eq!(b["lines"][1], doc["source"]["lines"]);
    let gap = &b["gaps"][0];
    assert_eq!(gap["gap_us"].as_f64(), Some(signal_inputs::STALL_US as f64));
    assert_eq!(gap["events"].as_array().unwrap().len(), 32);
    let total = b["events_total"].as_u64().unwrap();
    assert!(total > bytes / 128, "{total} events");
    assert_eq!(b["events"].as_array().unwrap().len(), 256);
    let functions = b["functions"].as_array().unwrap();
    let counted: u64 = functions.iter().map(|f| f["count"].as_u64().unwrap()).sum();
    // Every function event is counted once (the sched lines are not
    // function events).
    assert!(
        counted + 3 >= total && counted <= total,
        "{counted} of {total}"
    );
}

#[test]
fn a_64_mb_irqsoff_trace_parses_in_64_mb() {
    let bytes = 64 * MB;
    let (doc, peak) = parse_generated(|w| signal_inputs::irqsoff(w, bytes));
    check_trace(
        &doc,
        signal_inputs::IRQSOFF_LATENCY_US,
        signal_inputs::IRQSOFF_CULPRIT,
        bytes,
    );
    let b = &doc["blocks"][0];
    assert_eq!(b["gaps"][0]["function"], signal_inputs::IRQSOFF_CULPRIT);
    eprintln!("peak RSS {peak} KiB");
    assert!(peak > 0 && peak <= RSS_BOUND_KB, "peak RSS {peak} KiB");
}

#[test]
fn a_wakeup_rt_trace_parses_in_64_mb() {
    let bytes = 24 * MB;
    let (doc, peak) = parse_generated(|w| signal_inputs::wakeup_rt(w, bytes));
    check_trace(
        &doc,
        signal_inputs::WAKEUP_RT_LATENCY_US,
        signal_inputs::WAKEUP_RT_CULPRIT,
        bytes,
    );
    eprintln!("peak RSS {peak} KiB");
    assert!(peak > 0 && peak <= RSS_BOUND_KB, "peak RSS {peak} KiB");
}

/// A reader that stops early (`| head`) ends the command quietly.
#[test]
fn a_closed_pipe_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.txt");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    signal_inputs::irqsoff(&mut f, 2 * MB).unwrap();
    f.flush().unwrap();
    drop(f);
    let mut child = Command::new(env!("CARGO_BIN_EXE_reclaimlab"))
        .arg("parse")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let err = stderr_of(&mut child);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}: {err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_long_histogram_parses_in_64_mb() {
    let (doc, peak) = parse_generated(|w| signal_inputs::histogram(w, 24 * MB));
    let blocks = doc["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{:?}", doc["warnings"]);
    let threads = blocks[0]["histogram"]["per_thread"].as_array().unwrap();
    assert_eq!(threads.len(), 14);
    for t in threads {
        // The footer's maximum is the highest non-empty bucket.
        let buckets = t["buckets"].as_array().unwrap();
        let last = buckets.last().unwrap()[0].as_f64().unwrap();
        assert_eq!(t["max_us"].as_f64(), Some(last));
        let counted: u64 = buckets.iter().map(|b| b[1].as_u64().unwrap()).sum();
        assert_eq!(t["total"].as_u64(), Some(counted));
    }
    eprintln!("peak RSS {peak} KiB");
    assert!(peak > 0 && peak <= RSS_BOUND_KB, "peak RSS {peak} KiB");
}
