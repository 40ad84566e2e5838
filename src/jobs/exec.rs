//! The simulator adapter: what a job asks for ([`ExecInput`]), what comes
//! back ([`ExecOutput`]), validation at submit time, and the child-process
//! entry point `reclaimlab sim-exec` (JSON on stdin; progress lines and the
//! result as JSON lines on stdout).

use std::collections::BTreeMap;
use std::io::{Read, Write};

use reclaimlab_formats::Document;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExecInput {
    /// Full scenario TOML (built-ins are expanded at submit time).
    pub scenario: String,
    pub variants: Vec<String>,
    pub seed: u64,
    pub replications: u32,
    pub duration_ns: Option<u64>,
    pub board_class: Option<String>,
    pub costs_toml: Option<String>,
    /// Knob overrides `"variant.knob" -> value` (sweeps).
    #[serde(default)]
    pub knobs: BTreeMap<String, f64>,
    pub max_events: u64,
    pub max_sim_ns: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VariantDoc {
    pub name: String,
    pub kernel: String,
    pub document: Document,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExecOutput {
    pub board: String,
    pub report: serde_json::Value,
    pub text: String,
    pub variants: Vec<VariantDoc>,
    pub events: u64,
    pub sim_ns: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecLine {
    Progress { sim_ns: u64, events: u64 },
    Done(Box<ExecOutput>),
    Error(String),
}

/// What a submit resolved to.
#[derive(Debug, Clone)]
pub struct Validated {
    pub scenario_name: Option<String>,
    pub scenario_toml: String,
    pub variants: Vec<String>,
    pub board_class: String,
}

/// `reclaimlab sim-exec`: read an [`ExecInput`], simulate, print JSON lines.
pub fn sim_exec_main() -> anyhow::Result<()> {
    let mut buf = Vec::new();
    std::io::stdin().read_to_end(&mut buf)?;
    let input: ExecInput = serde_json::from_slice(&buf)?;
    let stdout = std::io::stdout();
    let emit = |line: &ExecLine| {
        let mut out = stdout.lock();
        // A closed pipe means the worker is gone: stop at once.
        if serde_json::to_writer(&mut out, line).is_err()
            || out.write_all(b"\n").is_err()
            || out.flush().is_err()
        {
            std::process::exit(3);
        }
    };
    match simulate(&input, &mut |sim_ns, events| {
        emit(&ExecLine::Progress { sim_ns, events })
    }) {
        Ok(out) => emit(&ExecLine::Done(Box::new(out))),
        Err(msg) => emit(&ExecLine::Error(msg)),
    }
    Ok(())
}

pub fn simulate(
    _input: &ExecInput,
    _progress: &mut dyn FnMut(u64, u64),
) -> Result<ExecOutput, String> {
    Err("simulator not wired".into())
}
