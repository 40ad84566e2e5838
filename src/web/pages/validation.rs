//! How far each built-in scenario's predictions are from the seed thread's
//! measurements: the calibration tables of `docs/SIMULATOR.md` ("quantity |
//! seed | simulated | input or prediction | within 2x"), written by the
//! simulator's `calibrate` example and asserted by `crates/sim/tests/v*.rs`.
//! Compiled in, so a page shows exactly what the document says.

use std::sync::OnceLock;

const SIMULATOR_MD: &str = include_str!("../../../docs/SIMULATOR.md");

#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub quantity: String,
    pub seed: String,
    pub simulated: String,
    /// "input (fitted)", "prediction", ...
    pub role: String,
    pub within_2x: bool,
    /// The ratio as the table prints it, e.g. "0.94x".
    pub ratio: String,
}

impl Check {
    pub fn is_prediction(&self) -> bool {
        self.role.starts_with("prediction")
    }
}

/// The checks of one scenario, with the heading they are under.
#[derive(Debug, Clone, Default)]
pub struct ScenarioChecks {
    pub heading: String,
    pub checks: Vec<Check>,
}

impl ScenarioChecks {
    pub fn predictions(&self) -> usize {
        self.checks.iter().filter(|c| c.is_prediction()).count()
    }
    pub fn predictions_within(&self) -> usize {
        self.checks
            .iter()
            .filter(|c| c.is_prediction() && c.within_2x)
            .count()
    }
}

fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

/// Parse the document: scenario names from the rows that start with
/// "| Vn `name` |", the checks from the tables under "#### Vn (...)".
pub fn parse(md: &str) -> Vec<(String, ScenarioChecks)> {
    let mut names: Vec<(String, String)> = Vec::new();
    for line in md.lines() {
        let c = cells(line);
        if let Some(first) = c.first()
            && let Some((tag, rest)) = first.split_once(' ')
            && tag.len() == 2
            && tag.starts_with('V')
            && rest.starts_with('`')
            && rest.ends_with('`')
        {
            let name = rest.trim_matches('`').to_string();
            if !names.iter().any(|(t, _)| t == tag) {
                names.push((tag.to_string(), name));
            }
        }
    }
    let mut out: Vec<(String, ScenarioChecks)> = Vec::new();
    let mut current: Option<(String, ScenarioChecks)> = None;
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("#### ") {
            if let Some(c) = current.take() {
                out.push(c);
            }
            let tag = h.split_whitespace().next().unwrap_or("");
            if let Some((_, name)) = names.iter().find(|(t, _)| t == tag) {
                current = Some((
                    name.clone(),
                    ScenarioChecks {
                        heading: h.trim().to_string(),
                        checks: Vec::new(),
                    },
                ));
            }
            continue;
        }
        if line.starts_with("## ") || line.starts_with("### ") {
            if let Some(c) = current.take() {
                out.push(c);
            }
            continue;
        }
        let Some((_, sc)) = current.as_mut() else {
            continue;
        };
        if !line.trim_start().starts_with('|') {
            continue;
        }
        let c = cells(line);
        if c.len() != 5 || c[0] == "quantity" || c[0].starts_with("---") {
            continue;
        }
        let verdict = c[4].replace('*', "");
        let within_2x = verdict.trim_start().starts_with("yes");
        let ratio = verdict
            .split_once('(')
            .map(|(_, r)| r.trim_end_matches(')').to_string())
            .unwrap_or_default();
        sc.checks.push(Check {
            quantity: c[0].clone(),
            seed: c[1].clone(),
            simulated: c[2].clone(),
            role: c[3].clone(),
            within_2x,
            ratio,
        });
    }
    if let Some(c) = current.take() {
        out.push(c);
    }
    out
}

fn all() -> &'static [(String, ScenarioChecks)] {
    static ALL: OnceLock<Vec<(String, ScenarioChecks)>> = OnceLock::new();
    ALL.get_or_init(|| parse(SIMULATOR_MD))
}

/// The checks of a built-in scenario, if the document has them.
pub fn for_scenario(name: &str) -> Option<&'static ScenarioChecks> {
    all().iter().find(|(n, _)| n == name).map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_validated_scenario_is_found_with_its_checks() {
        for name in [
            "v1-madvise-pte-walk",
            "v2-munmap-sections",
            "v3-pageout-ignore-refs",
            "v4-isolate-irq-holdoff",
            "v5-tree-lock-contention",
        ] {
            let c = for_scenario(name).unwrap_or_else(|| panic!("{name} missing"));
            assert!(c.predictions() >= 3, "{name}: {c:?}");
            assert!(
                reclaimlab_sim::builtin_scenarios()
                    .iter()
                    .any(|(n, _)| *n == name),
                "{name} is not a built-in scenario"
            );
        }
        assert!(for_scenario("toy-lock").is_none());
    }

    #[test]
    fn rows_keep_their_verdict() {
        let v1 = for_scenario("v1-madvise-pte-walk").unwrap();
        let merged = v1
            .checks
            .iter()
            .find(|c| c.quantity.starts_with("wakeup_rt max, merged patch"))
            .unwrap();
        assert_eq!(merged.seed, "879 us");
        assert!(merged.within_2x && merged.is_prediction());
        assert_eq!(merged.ratio, "0.94x");
        let v5 = for_scenario("v5-tree-lock-contention").unwrap();
        assert!(v5.predictions_within() < v5.predictions(), "V5 has misses");
        let v4 = for_scenario("v4-isolate-irq-holdoff").unwrap();
        let both = v4
            .checks
            .iter()
            .find(|c| c.quantity.contains("both caps"))
            .unwrap();
        assert_eq!(both.seed, "1.47-4.45 ms");
    }
}
