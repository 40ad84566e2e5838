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
    /// Nice value the simulator process gives itself before it starts.
    #[serde(default)]
    pub nice: u8,
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
    /// The scenario's own `[run]` replications and duration: what a job
    /// runs when the request does not override them.
    pub replications: u32,
    pub duration_ns: u64,
}

/// `reclaimlab sim-exec`: read an [`ExecInput`], simulate, print JSON lines.
pub fn sim_exec_main() -> anyhow::Result<()> {
    let mut buf = Vec::new();
    std::io::stdin().read_to_end(&mut buf)?;
    let input: ExecInput = serde_json::from_slice(&buf)?;
    if input.nice > 0 {
        // Batch work: yield the CPU to the service (which runs at nice 0).
        // Raising one's own nice value needs no privilege.
        rustix::process::setpriority_process(None, i32::from(input.nice.min(19)))
            .map_err(|e| anyhow::anyhow!("cannot lower the simulator's CPU priority: {e}"))?;
    }
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
    // At most five progress lines a second: the worker only needs them for
    // its heartbeat and the job page.
    let mut last = std::time::Instant::now();
    match simulate(&input, &mut |sim_ns, events| {
        if last.elapsed() >= std::time::Duration::from_millis(200) {
            last = std::time::Instant::now();
            emit(&ExecLine::Progress { sim_ns, events })
        }
    }) {
        Ok(out) => emit(&ExecLine::Done(Box::new(out))),
        Err(msg) => emit(&ExecLine::Error(msg)),
    }
    Ok(())
}

/// Load the scenario and apply the job's board class, calibrated costs and
/// knob overrides. Errors name the field, as the simulator's do.
pub fn prepare(
    scenario: &str,
    board_class: Option<&str>,
    costs_toml: Option<&str>,
    knobs: &BTreeMap<String, f64>,
) -> Result<reclaimlab_sim::Scenario, String> {
    let mut sc = reclaimlab_sim::load_scenario(scenario)
        .map_err(|e| format!("scenario: {}: {}", e.field, e.reason))?;
    if let Some(class) = board_class.filter(|c| !c.is_empty() && *c != sc.machine.board) {
        let board = self::board_class(class)?;
        sc.machine.board = board.name.clone();
        sc.machine.cost_cv = board.cost_cv;
        sc.costs = board.costs.clone();
    }
    if let Some(text) = costs_toml.filter(|t| !t.trim().is_empty()) {
        sc.costs = apply_costs(&sc.costs, text)?;
    }
    for (key, value) in knobs {
        let (variant, knob) = key
            .split_once('.')
            .ok_or_else(|| format!("knobs: {key:?} must be \"variant.knob\""))?;
        let v = sc
            .variants
            .iter_mut()
            .find(|v| v.name == variant)
            .ok_or_else(|| format!("knobs: {key:?}: the scenario has no variant {variant:?}"))?;
        v.knobs = set_knob(&v.knobs, knob, *value).map_err(|e| format!("knobs: {key:?}: {e}"))?;
    }
    Ok(sc)
}

/// A built-in board class by name; the error lists the known ones.
pub fn board_class(class: &str) -> Result<reclaimlab_sim::Board, String> {
    let boards = reclaimlab_sim::builtin_boards();
    let names = boards
        .iter()
        .map(|b| b.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    boards
        .iter()
        .find(|b| b.name == class)
        .cloned()
        .ok_or_else(|| {
            format!("board_class: unknown board class {class:?}; expected one of: {names}")
        })
}

/// Override cost fields from a TOML table of `name = nanoseconds`.
pub fn apply_costs(
    costs: &reclaimlab_sim::Costs,
    text: &str,
) -> Result<reclaimlab_sim::Costs, String> {
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("costs: not valid TOML: {e}"))?;
    let mut v = serde_json::to_value(costs).map_err(|e| e.to_string())?;
    let obj = v.as_object_mut().ok_or("costs: internal shape")?;
    for (k, val) in table {
        if !obj.contains_key(&k) {
            let mut known: Vec<&str> = obj.keys().map(String::as_str).collect();
            known.sort();
            return Err(format!(
                "costs.{k}: unknown cost; expected one of: {}",
                known.join(", ")
            ));
        }
        let x = match val {
            toml::Value::Float(f) => f,
            toml::Value::Integer(i) => i as f64,
            other => {
                return Err(format!(
                    "costs.{k}: expected a number of nanoseconds, found {other}"
                ));
            }
        };
        if !x.is_finite() || x < 0.0 {
            return Err(format!(
                "costs.{k}: expected a non-negative number, found {x}"
            ));
        }
        obj.insert(k, serde_json::json!(x));
    }
    serde_json::from_value(v).map_err(|e| format!("costs: {e}"))
}

/// Every cost of a board class with its value, for the cost table form.
pub fn board_costs(class: &str) -> Option<Vec<(String, f64)>> {
    let b = reclaimlab_sim::builtin_boards()
        .into_iter()
        .find(|b| b.name == class)?;
    match serde_json::to_value(b.costs) {
        Ok(serde_json::Value::Object(m)) => Some(
            m.into_iter()
                .map(|(k, v)| (k, v.as_f64().unwrap_or(f64::NAN)))
                .collect(),
        ),
        _ => None,
    }
}

/// Set one numeric knob through the simulator's knob table (the same
/// validation as scenario TOML): booleans take 0 / 1, optional knobs take
/// 0 for off; choices are refused with the knob named.
pub fn set_knob(
    knobs: &reclaimlab_sim::Knobs,
    knob: &str,
    value: f64,
) -> Result<reclaimlab_sim::Knobs, String> {
    let mut k = knobs.clone();
    k.set_number(knob, value).map_err(|e| e.to_string())?;
    Ok(k)
}

/// Validate a submit in-process (cheap): scenario, variants, overrides.
pub fn validate(
    scenario: &str,
    variants: &[String],
    board_class: Option<&str>,
    costs_toml: Option<&str>,
    knobs: &BTreeMap<String, f64>,
) -> Result<Validated, String> {
    let sc = prepare(scenario, board_class, costs_toml, knobs)?;
    for v in variants {
        if !sc.variants.iter().any(|x| &x.name == v) {
            return Err(format!(
                "variants: the scenario has no variant {v:?}; it has: {}",
                sc.variants
                    .iter()
                    .map(|x| x.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Ok(Validated {
        scenario_name: Some(sc.name.clone()),
        scenario_toml: scenario.to_string(),
        variants: variants.to_vec(),
        board_class: sc.machine.board.clone(),
        replications: sc.replications,
        duration_ns: sc.duration_ns,
    })
}

/// Run the simulator for a job. Pure computation: no database.
pub fn simulate(
    input: &ExecInput,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ExecOutput, String> {
    let sc = prepare(
        &input.scenario,
        input.board_class.as_deref(),
        input.costs_toml.as_deref(),
        &input.knobs,
    )?;
    let opts = reclaimlab_sim::RunOptions {
        seed: input.seed,
        replications: input.replications,
        duration_ns: input.duration_ns,
        variants: (!input.variants.is_empty()).then(|| input.variants.clone()),
        limits: reclaimlab_sim::Limits {
            max_events: input.max_events,
            max_sim_ns: input.max_sim_ns,
        },
    };
    let report = reclaimlab_sim::run(&sc, &opts, &mut |p| {
        progress(p.sim_ns, p.events);
        reclaimlab_sim::Control::Continue
    })
    .map_err(|e| e.to_string())?;
    let text = report.to_text();
    let events = report.variants.iter().map(|v| v.events).sum();
    let sim_ns = report.variants.iter().map(|v| v.sim_ns).sum();
    let variants = report
        .variants
        .iter()
        .map(|v| VariantDoc {
            name: format!("{}/{}", sc.name, v.name),
            kernel: report.kernel.clone(),
            document: v.document.clone(),
        })
        .collect();
    Ok(ExecOutput {
        board: format!("{} (simulated)", report.board),
        report: serde_json::to_value(&report).map_err(|e| e.to_string())?,
        text,
        variants,
        events,
        sim_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knob_overrides_go_through_the_simulator_knob_table() {
        let bad = BTreeMap::from([("isolate-time-cap.isolate_time_cap_us".to_string(), -3.0)]);
        let e = prepare("v4-isolate-irq-holdoff", None, None, &bad).unwrap_err();
        assert!(
            e.contains("isolate_time_cap_us") && e.contains("found -3"),
            "{e}"
        );
        let choice = BTreeMap::from([("baseline.preempt".to_string(), 1.0)]);
        let e = prepare("v4-isolate-irq-holdoff", None, None, &choice).unwrap_err();
        assert!(e.contains("preempt: expected one of"), "{e}");
        let ok = BTreeMap::from([("baseline.isolate_time_cap_us".to_string(), 500.0)]);
        let sc = prepare("v4-isolate-irq-holdoff", None, None, &ok).unwrap();
        assert_eq!(sc.variants[0].knobs.isolate_time_cap_us, Some(500.0));
    }
}
