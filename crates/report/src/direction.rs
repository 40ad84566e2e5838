//! Which way is better for a metric, as data: `data/directions.tsv` maps
//! metric names, units, printed statistics and tools to higher, lower or
//! neutral, first match wins. A metric no rule matches has no direction
//! and is never judged. Nothing here guesses from a table's title.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::compare::Better;

const RULES_TSV: &str = include_str!("../data/directions.tsv");

/// Where a metric's direction came from, shown next to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectionSource {
    /// A rule of the direction table matched.
    Rule,
    /// The uploader said so (`direction=` metadata or the import form).
    Upload,
    /// The sign of the gain an mmtests compare table printed (mmtests knows
    /// each test's direction).
    Printed,
    /// No rule matched: shown, never judged.
    #[default]
    Unknown,
}

/// What a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Unit,
    Stat,
    Tool,
}

#[derive(Debug, Clone)]
struct Rule {
    better: Better,
    field: Field,
    /// Lower-cased pattern split at `*`.
    parts: Vec<String>,
    anchored_start: bool,
    anchored_end: bool,
}

impl Rule {
    fn matches(&self, s: &str) -> bool {
        glob(&self.parts, self.anchored_start, self.anchored_end, s)
    }
}

/// `*`-glob, case-insensitive (the subject is lower-cased by the caller).
fn glob(parts: &[String], anchored_start: bool, anchored_end: bool, s: &str) -> bool {
    let mut rest = s;
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() {
            continue;
        }
        if i == 0 && anchored_start {
            match rest.strip_prefix(p.as_str()) {
                Some(r) => rest = r,
                None => return false,
            }
            continue;
        }
        if i == parts.len() - 1 && anchored_end {
            return rest.len() >= p.len() && rest.ends_with(p.as_str());
        }
        match rest.find(p.as_str()) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    !anchored_end || rest.is_empty() || parts.last().is_some_and(String::is_empty)
}

fn parse_rules(text: &str) -> Vec<Rule> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut it = line.split_whitespace();
        let (Some(dir), Some(field), Some(pattern)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let better = match dir {
            "higher" => Better::Higher,
            "lower" => Better::Lower,
            "neutral" => Better::Neutral,
            _ => continue,
        };
        let field = match field {
            "name" => Field::Name,
            "unit" => Field::Unit,
            "stat" => Field::Stat,
            "tool" => Field::Tool,
            _ => continue,
        };
        let pattern = pattern.to_ascii_lowercase();
        out.push(Rule {
            better,
            field,
            anchored_start: !pattern.starts_with('*'),
            anchored_end: !pattern.ends_with('*'),
            parts: pattern.split('*').map(str::to_string).collect(),
        });
    }
    out
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| parse_rules(RULES_TSV))
}

/// What is known about a metric when its direction is looked up.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetricFacts<'a> {
    pub name: &'a str,
    pub unit: &'a str,
    pub stat: Option<&'a str>,
    pub tool: Option<&'a str>,
}

/// The direction table's answer: `(Neutral, Unknown)` when no rule matches.
pub fn lookup(m: MetricFacts<'_>) -> (Better, DirectionSource) {
    let name = m.name.to_ascii_lowercase();
    let unit = m.unit.to_ascii_lowercase();
    let stat = m.stat.unwrap_or("").to_ascii_lowercase();
    let tool = m.tool.unwrap_or("").to_ascii_lowercase();
    for r in rules() {
        let subject = match r.field {
            Field::Name => &name,
            Field::Unit => &unit,
            Field::Stat => &stat,
            Field::Tool => &tool,
        };
        if !subject.is_empty() && r.matches(subject) {
            return (r.better, DirectionSource::Rule);
        }
    }
    (Better::Neutral, DirectionSource::Unknown)
}

/// Parses an uploader's `direction` value: `higher`, `lower`, `neutral`,
/// or `NAME:higher,NAME2:lower`. Returns the default for all metrics and
/// the per-name ones, or a message saying what is wrong.
pub type DirectionOverrides = (Option<Better>, Vec<(String, Better)>);

pub fn parse_overrides(s: &str) -> Result<DirectionOverrides, String> {
    fn word(w: &str) -> Result<Better, String> {
        match w.trim().to_ascii_lowercase().as_str() {
            "higher" => Ok(Better::Higher),
            "lower" => Ok(Better::Lower),
            "neutral" | "none" => Ok(Better::Neutral),
            other => Err(format!(
                "direction '{other}' must be higher, lower or neutral"
            )),
        }
    }
    let mut all = None;
    let mut per = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.rsplit_once(':') {
            Some((name, dir)) => {
                let name = name.trim();
                if name.is_empty() {
                    return Err(format!("direction entry '{part}' has no metric name"));
                }
                per.push((name.to_string(), word(dir)?));
            }
            None => all = Some(word(part)?),
        }
    }
    Ok((all, per))
}

/// The direction an mmtests compare-table row implies: mmtests prints the
/// gain of each column over the first with the test's own sign (positive =
/// better), so a gain whose sign agrees with the raw change means higher is
/// better, and the opposite sign lower. `None` when nothing can be told
/// (no delta, zero change, or a change too small to have a sign in print).
pub fn from_printed_gain(reference: f64, value: f64, printed_gain_pct: f64) -> Option<Better> {
    if !reference.is_finite() || !value.is_finite() || reference == 0.0 {
        return None;
    }
    let raw = (value - reference) / reference.abs() * 100.0;
    // mmtests prints two decimals: a gain of 0.00 carries no sign.
    if printed_gain_pct.abs() < 0.005 || raw.abs() < 0.005 {
        return None;
    }
    Some(if (raw > 0.0) == (printed_gain_pct > 0.0) {
        Better::Higher
    } else {
        Better::Lower
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str, unit: &str) -> Better {
        lookup(MetricFacts {
            name,
            unit,
            ..MetricFacts::default()
        })
        .0
    }

    #[test]
    fn table_follows_mmtests_and_lkp_conventions() {
        assert_eq!(dir("mmap-pread-seq", "#/s"), Better::Higher);
        assert_eq!(dir("80GB", "us"), Better::Lower);
        assert_eq!(dir("vm-scalability.throughput", ""), Better::Higher);
        assert_eq!(dir("stress-ng.mmap.ops_per_sec", ""), Better::Higher);
        assert_eq!(dir("pgmigrate_fail", ""), Better::Lower);
        assert_eq!(dir("pgscan_kswapd", ""), Better::Neutral);
        assert_eq!(dir("allocstall_normal", ""), Better::Lower);
        assert_eq!(dir("System-1", ""), Better::Lower);
        assert_eq!(dir("pwrite-single-rewrite-async-Elapsd", ""), Better::Lower);
        assert_eq!(dir("real", "s"), Better::Lower);
        assert_eq!(dir("wakeup_latency.median", "us"), Better::Lower);
        // cyclictest's histogram footer rows, copied into a hand-made table.
        assert_eq!(dir("Max Latencies", ""), Better::Lower);
        assert_eq!(dir("99% latencies", ""), Better::Lower);
        assert_eq!(dir("perf-stat.i.ipc", ""), Better::Neutral);
        assert_eq!(
            dir("vm-scalability.time.voluntary_context_switches", ""),
            Better::Neutral
        );
        assert_eq!(
            dir("vm-scalability.time.elapsed_time.max", ""),
            Better::Lower
        );
    }

    #[test]
    fn unknown_metrics_are_not_guessed() {
        let (b, src) = lookup(MetricFacts {
            name: "frobnication",
            unit: "",
            ..MetricFacts::default()
        });
        assert_eq!((b, src), (Better::Neutral, DirectionSource::Unknown));
        // A title saying "Throughput" is not a rule input at all.
        assert_eq!(dir("mmap-pread-seq", ""), Better::Neutral);
    }

    #[test]
    fn every_rule_line_has_three_fields() {
        for (n, line) in RULES_TSV.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = t.split_whitespace().collect();
            assert_eq!(f.len(), 3, "data/directions.tsv line {}: {line}", n + 1);
            assert!(
                matches!(f[0], "higher" | "lower" | "neutral"),
                "line {}",
                n + 1
            );
            assert!(
                matches!(f[1], "name" | "unit" | "stat" | "tool"),
                "line {}",
                n + 1
            );
        }
        assert_eq!(
            dir("processes [tasks=16]", ""),
            Better::Higher,
            "will-it-scale"
        );
        assert_eq!(dir("threads_idle [tasks=16]", ""), Better::Neutral);
    }

    #[test]
    fn glob_anchors() {
        let r = parse_rules("lower name *_fail\nhigher name rps*\nlower name real");
        assert!(r[0].matches("pgmigrate_fail"));
        assert!(!r[0].matches("pgmigrate_failure"));
        assert!(r[1].matches("rps.p50"));
        assert!(!r[1].matches("xrps"));
        assert!(r[2].matches("real"));
        assert!(!r[2].matches("really"));
    }

    #[test]
    fn overrides_parse() {
        assert_eq!(
            parse_overrides("higher").unwrap(),
            (Some(Better::Higher), vec![])
        );
        assert_eq!(
            parse_overrides("foo:lower, bar.baz:higher").unwrap(),
            (
                None,
                vec![
                    ("foo".to_string(), Better::Lower),
                    ("bar.baz".to_string(), Better::Higher)
                ]
            )
        );
        assert!(parse_overrides("sideways").is_err());
    }

    #[test]
    fn printed_gain_gives_the_direction() {
        // mmtests: System-1 260.53 -> 192.98 printed ( 25.93%): lower is better.
        assert_eq!(
            from_printed_gain(260.53, 192.98, 25.93),
            Some(Better::Lower)
        );
        assert_eq!(from_printed_gain(100.0, 110.0, 10.0), Some(Better::Higher));
        assert_eq!(from_printed_gain(100.0, 100.0, 0.0), None);
    }
}
