//! `reclaimlab simulate`: run a scenario in this process and print what the
//! tools it imitates would print (or the report as JSON).

use crate::config::SimulateArgs;

pub fn run(a: SimulateArgs) -> anyhow::Result<()> {
    if a.list {
        print!("{}", list_scenarios());
        println!("\nBoard classes:");
        for b in reclaimlab_sim::builtin_boards() {
            println!(
                "  {:<28} {} ({} CPUs, HZ={})",
                b.name, b.description, b.cpus, b.hz
            );
        }
        println!("\nKernel presets:");
        for p in reclaimlab_sim::builtin_presets() {
            println!("  {:<28} {}", p.name, p.kernel);
        }
        println!("\nKnobs (a variant's `knobs`, the API's `knobs` as \"variant.knob\", sweeps):");
        for k in reclaimlab_sim::knob_table() {
            let unit = if k.unit.is_empty() {
                String::new()
            } else {
                format!(" [{}]", k.unit)
            };
            println!("  {:<40} {}{unit}: {}", k.name, knob_type(&k.ty), k.models);
        }
        return Ok(());
    }
    let name = a.scenario.ok_or_else(|| {
        anyhow::anyhow!("give a scenario (a built-in name or a TOML file); see --list")
    })?;
    let text = if std::path::Path::new(&name).is_file() {
        std::fs::read_to_string(&name).map_err(|e| anyhow::anyhow!("cannot read {name}: {e}"))?
    } else {
        name.clone()
    };
    let scenario = reclaimlab_sim::load_scenario(&text)
        .map_err(|e| anyhow::anyhow!("{name}: {}: {}", e.field, e.reason))?;
    let duration_ns = match &a.duration {
        Some(d) => Some(reclaimlab_sim::parse_duration(d).ok_or_else(|| {
            anyhow::anyhow!("--duration: expected e.g. 30s, 5m or 30m, found {d:?}")
        })?),
        None => None,
    };
    let opts = reclaimlab_sim::RunOptions {
        seed: a.seed,
        replications: a.replications.unwrap_or(0),
        duration_ns,
        variants: (!a.variants.is_empty()).then(|| a.variants.clone()),
        ..reclaimlab_sim::RunOptions::default()
    };
    let report = reclaimlab_sim::run(&scenario, &opts, &mut |_| reclaimlab_sim::Control::Continue)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    match a.format.as_str() {
        "text" => print!("{}", report.to_text()),
        "json" => println!("{}", serde_json::to_string_pretty(&report)?),
        other => anyhow::bail!("--format must be text or json, not {other:?}"),
    }
    Ok(())
}

/// Every built-in scenario with its variants and the knobs each variant
/// sets differently from the scenario's first variant (its baseline).
pub fn list_scenarios() -> String {
    use std::fmt::Write;
    let mut out = String::from("Scenarios:\n");
    for (name, desc) in reclaimlab_sim::builtin_scenarios() {
        let _ = writeln!(out, "  {name}: {desc}");
        let sc = match reclaimlab_sim::load_scenario(name) {
            Ok(sc) => sc,
            Err(e) => {
                let _ = writeln!(out, "    (cannot load: {}: {})", e.field, e.reason);
                continue;
            }
        };
        let _ = writeln!(
            out,
            "    board {}, kernel {}, {} simulated, {} replication(s)",
            sc.machine.board,
            sc.kernel,
            fmt_duration(sc.duration_ns),
            sc.replications
        );
        let base = sc
            .variants
            .first()
            .and_then(|v| serde_json::to_value(&v.knobs).ok());
        for (i, v) in sc.variants.iter().enumerate() {
            let knobs = serde_json::to_value(&v.knobs).ok();
            let diff: Vec<String> = match (&base, &knobs) {
                (Some(serde_json::Value::Object(b)), Some(serde_json::Value::Object(k)))
                    if i > 0 =>
                {
                    k.iter()
                        .filter(|(name, val)| b.get(*name) != Some(val))
                        .map(|(name, val)| format!("{name} = {val}"))
                        .collect()
                }
                _ => Vec::new(),
            };
            let knobs = if i == 0 {
                "(baseline)".to_string()
            } else if diff.is_empty() {
                "(same knobs as the baseline)".to_string()
            } else {
                diff.join(", ")
            };
            let _ = writeln!(out, "    - {:<26} {knobs}", v.name);
            if !v.description.is_empty() {
                let _ = writeln!(out, "      {}", v.description);
            }
        }
    }
    out
}

fn fmt_duration(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 60.0 && (s / 60.0).fract() == 0.0 {
        format!("{} min", s / 60.0)
    } else {
        format!("{s} s")
    }
}

fn knob_type(t: &reclaimlab_sim::KnobType) -> String {
    use reclaimlab_sim::KnobType as T;
    match t {
        T::Bool => "true/false".into(),
        T::Choice { options } => options.join("|"),
        T::Count { min, max } => format!("whole number {min}..{max}"),
        T::Number { max } => format!("number > 0, at most {max}"),
        T::OptCount { min, max } => format!("off or whole number {min}..{max}"),
        T::OptNumber { max } => format!("off or number > 0, at most {max}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_list_names_each_scenario_with_its_variants_and_their_knobs() {
        let text = super::list_scenarios();
        for (name, _) in reclaimlab_sim::builtin_scenarios() {
            assert!(text.contains(&format!("  {name}: ")), "{name}");
            let sc = reclaimlab_sim::load_scenario(name).unwrap();
            for v in &sc.variants {
                assert!(
                    text.contains(&format!("    - {}", v.name)),
                    "{name}/{}",
                    v.name
                );
            }
        }
        // A variant that sets a knob shows it.
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("- isolate-time-cap "))
            .expect("v4's isolate-time-cap variant");
        assert!(line.contains("isolate_time_cap_us = 1000"), "{line}");
    }
}
