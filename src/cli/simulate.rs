//! `reclaimlab simulate`: run a scenario in this process and print what the
//! tools it imitates would print (or the report as JSON).

use crate::config::SimulateArgs;

pub fn run(a: SimulateArgs) -> anyhow::Result<()> {
    if a.list {
        println!("Scenarios:");
        for (name, desc) in reclaimlab_sim::builtin_scenarios() {
            println!("  {name:<28} {desc}");
        }
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
