//! The view model of a comparison: what the live `/compare` page and a
//! permalink's frozen HTML show, with every number already formatted.

use reclaimlab_report::compare::{Comparison, Judgement, Significance};
use reclaimlab_report::fmt;

pub struct ColView {
    pub label: String,
    /// The label without the prefix every column shares up to a `/`, for
    /// table heads (the columns table names them in full).
    pub short: String,
    pub simulated: bool,
    pub runs: Vec<i64>,
    pub baseline: bool,
}

pub struct CellView {
    pub value: String,
    pub spread: String,
    pub n: String,
    pub delta: String,
    pub delta_prev: String,
    /// The mail's own delta for this cell, as printed.
    pub printed: String,
    pub class: &'static str,
    pub verdict: String,
}

pub struct MetricRowView {
    /// The table or test the row belongs to, set on its first row.
    pub section: Option<String>,
    pub stat: String,
    pub name: String,
    pub unit: String,
    /// "lower is better", "higher is better", "not judged", and where the
    /// direction came from.
    pub direction: String,
    pub cells: Vec<CellView>,
    pub noise: String,
}

/// One kind of worst latency (cyclictest max, or one tracer) per column.
pub struct WorstView {
    pub label: String,
    pub cells: Vec<String>,
    pub culprits: Vec<String>,
    pub has_culprits: bool,
}

pub struct TailView {
    pub column: String,
    pub p50: String,
    pub p99: String,
    pub p99_9: String,
    pub max: String,
    pub samples: String,
    pub overflows: String,
}

/// One thread's cells across the columns.
pub struct ThreadRowView {
    pub thread: u32,
    pub cells: Vec<String>,
}

/// A run shown beside the comparison and compared with nothing.
pub struct ContextRunView {
    pub id: i64,
    /// What it measured.
    pub what: String,
    /// Its kernel and board, where known.
    pub place: String,
}

pub struct ComparisonView {
    pub title: String,
    pub columns: Vec<ColView>,
    pub metrics: Vec<MetricRowView>,
    pub threads: Vec<ThreadRowView>,
    pub tails: Vec<TailView>,
    /// Per thread (CPU): "p99 / p99.9 / max" in each column, from histograms.
    pub thread_tails: Vec<ThreadRowView>,
    pub worst: Vec<WorstView>,
    pub culprit_diffs: Vec<String>,
    pub family: String,
    pub notes: Vec<String>,
    pub has_latency: bool,
    /// Runs beside the comparison, compared with nothing.
    pub context: Vec<ContextRunView>,
}

/// Per column "a / b / c", "-" where the column has none.
fn triples<T>(cells: &[Option<T>], pick: impl Fn(&T) -> [String; 3]) -> Vec<String> {
    cells
        .iter()
        .map(|c| match c {
            Some(x) => pick(x).join(" / "),
            None => "-".into(),
        })
        .collect()
}

fn direction_words(m: &reclaimlab_report::compare::MetricComparison) -> String {
    use reclaimlab_report::direction::DirectionSource;
    let src = match m.direction_source {
        DirectionSource::Rule => "",
        DirectionSource::Upload => " (as uploaded)",
        DirectionSource::Printed => " (from the printed gain)",
        DirectionSource::Unknown => " (direction unknown)",
    };
    format!("{}{src}", m.better.words())
}

fn delta_text(d: &reclaimlab_report::compare::Delta) -> String {
    let Some(p) = d.pct else {
        return "-".into();
    };
    let word = d.judgement.word();
    let how = if d.printed { " as printed" } else { "" };
    let mut s = format!("{}{}{how}", fmt::pct(Some(p)), d.significance.mark());
    if !word.is_empty() && word != "no change" {
        s.push(' ');
        s.push_str(word);
    }
    s
}

impl ComparisonView {
    pub fn new(c: &Comparison) -> Self {
        let short = c.short_labels();
        let columns = c
            .columns
            .iter()
            .enumerate()
            .map(|(i, col)| ColView {
                label: col.label.clone(),
                short: short.get(i).cloned().unwrap_or_else(|| col.label.clone()),
                simulated: col.simulated,
                runs: col.runs.iter().map(|r| r.id).collect(),
                baseline: i == c.baseline,
            })
            .collect();
        let mut last_scope: Option<&str> = None;
        let metrics = c
            .metrics
            .iter()
            .map(|m| MetricRowView {
                section: if last_scope != Some(m.scope.as_str()) {
                    last_scope = Some(m.scope.as_str());
                    Some(if m.section.is_empty() {
                        "metrics".to_string()
                    } else {
                        m.section.clone()
                    })
                } else {
                    None
                },
                stat: m.stat.clone(),
                name: m.name.clone(),
                unit: m.unit.clone(),
                direction: direction_words(m),
                noise: m
                    .noise_floor_pct
                    .map(|p| format!("noise ±{}%", fmt::compact(p)))
                    .unwrap_or_default(),
                cells: m
                    .cells
                    .iter()
                    .map(|cell| {
                        let d = cell.vs_baseline.as_ref().filter(|d| d.pct.is_some());
                        let prev = cell.vs_previous.as_ref().filter(|p| p.pct.is_some());
                        // Shown beside the baseline delta only: when there is
                        // none, the previous column's delta is the main one.
                        let delta_prev = prev
                            .filter(|p| d.is_some_and(|b| b.against != p.against))
                            .map(|p| format!("{} vs prev", delta_text(p)))
                            .unwrap_or_default();
                        // The delta shown first: against the baseline when the
                        // baseline has this row, else against the previous
                        // column (a chain's link, as its mail printed it).
                        let main = d.or(prev);
                        let main_is_prev = d.is_none() && prev.is_some();
                        let printed = main
                            .and_then(|d| d.printed_pct.map(|p| (p, d.printed_convention)))
                            .map(|(p, conv)| {
                                let conv = match conv {
                                    Some(reclaimlab_report::compare::DeltaConvention::Gain) => {
                                        " gain"
                                    }
                                    _ => "",
                                };
                                format!("mail: {}{conv}", fmt::pct(Some(p)))
                            })
                            .unwrap_or_default();
                        let (delta, class, verdict) = match main {
                            Some(d) => {
                                let judged = matches!(
                                    d.significance,
                                    Significance::Significant
                                        | Significance::HighlySignificant
                                        | Significance::NoVariance
                                );
                                let class = match d.judgement {
                                    Judgement::Better if judged => "better",
                                    Judgement::Worse if judged => "worse",
                                    _ => "",
                                };
                                let mut t = delta_text(d);
                                if main_is_prev {
                                    t.push_str(" vs prev");
                                }
                                (t, class, d.verdict.clone())
                            }
                            None => (String::new(), "", String::new()),
                        };
                        CellView {
                            value: cell.mean.map(fmt::value).unwrap_or_else(|| "-".into()),
                            spread: match cell.stddev.filter(|_| cell.n > 1) {
                                Some(0.0) => "no spread".into(),
                                Some(s) => format!("±{}", fmt::compact(s)),
                                None => String::new(),
                            },
                            n: if cell.single_summary {
                                "summary".into()
                            } else if cell.n == 0 {
                                String::new()
                            } else {
                                format!("n={}", cell.n)
                            },
                            delta,
                            delta_prev,
                            printed,
                            class,
                            verdict,
                        }
                    })
                    .collect(),
            })
            .collect();
        let mut v = ComparisonView {
            title: c.title.clone(),
            columns,
            metrics,
            threads: Vec::new(),
            tails: Vec::new(),
            thread_tails: Vec::new(),
            worst: Vec::new(),
            culprit_diffs: Vec::new(),
            family: c.family.sentence.clone(),
            notes: c.notes.clone(),
            has_latency: false,
            context: c
                .context
                .iter()
                .map(|r| {
                    let place: Vec<&str> = [r.run.kernel.as_str(), r.run.board.as_str()]
                        .into_iter()
                        .filter(|x| !x.is_empty())
                        .collect();
                    ContextRunView {
                        id: r.run.id,
                        what: r.headline(),
                        place: place.join(", "),
                    }
                })
                .collect(),
        };
        if let Some(l) = &c.latency {
            v.has_latency = true;
            v.threads = l
                .threads
                .iter()
                .map(|t| {
                    let cells = triples(&t.cells, |x| {
                        [fmt::us(x.min_us), fmt::us(x.avg_us), fmt::us(x.max_us)]
                    });
                    ThreadRowView {
                        thread: t.thread,
                        cells,
                    }
                })
                .collect();
            v.tails = c
                .columns
                .iter()
                .zip(&l.tails)
                .filter_map(|(col, t)| {
                    t.as_ref().map(|t| TailView {
                        column: col.label.clone(),
                        p50: t.p50.show(),
                        p99: t.p99.show(),
                        p99_9: t.p99_9.show(),
                        max: t.max.show(),
                        samples: t.count.to_string(),
                        overflows: t.overflows.to_string(),
                    })
                })
                .collect();
            v.thread_tails = l
                .thread_tails
                .iter()
                .map(|t| ThreadRowView {
                    thread: t.thread,
                    cells: triples(&t.cells, |x| [x.p99.show(), x.p99_9.show(), x.max.show()]),
                })
                .collect();
            v.worst = l
                .worst
                .iter()
                .map(|w| WorstView {
                    label: w.label.clone(),
                    cells: w
                        .cells
                        .iter()
                        .map(|m| m.map(|p| p.show()).unwrap_or_else(|| "-".into()))
                        .collect(),
                    culprits: w
                        .culprits
                        .iter()
                        .map(|c| c.clone().unwrap_or_else(|| "-".into()))
                        .collect(),
                    has_culprits: w.culprits.iter().any(Option::is_some),
                })
                .collect();
            v.culprit_diffs = l
                .culprit_diffs
                .iter()
                .map(|d| {
                    format!(
                        "{} vs {}: {}",
                        c.columns
                            .get(d.column)
                            .map(|x| x.label.as_str())
                            .unwrap_or("?"),
                        c.columns
                            .get(d.against)
                            .map(|x| x.label.as_str())
                            .unwrap_or("?"),
                        d.sentence
                    )
                })
                .collect();
        }
        v
    }
}
