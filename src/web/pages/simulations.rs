//! `/simulations`: the submit form, recent jobs and board cost tables;
//! `/simulations/{id}`: progress (refreshes itself while the job runs, no
//! JavaScript needed), cancel, the result beside its runs, re-run;
//! `/simulations/sweeps/{id}`: a knob against an output, as a plot.
//!
//! Forms carry the upload token in their body (see `import.rs` for why).

use std::collections::BTreeMap;

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;

use crate::web::extract::page::{Path, Query};
use axum::response::{IntoResponse, Redirect, Response};

use super::{PageError, PageResult};
use crate::error::AppError;
use crate::simulate::{self, SimulationRequest, SweepRequest};
use crate::storage::ids::{JobId, RunId};
use crate::storage::simulations::{self as jobs, BoardCostRow, Job};
use crate::web::AppState;
use crate::web::auth::SignedForm;
use crate::web::numbers::fmt_us;
use crate::web::percent::urlencode;
use crate::web::svg::svg_response;

pub struct CostView {
    pub name: String,
    pub value: String,
    pub calibrated: bool,
}

pub struct BoardCostsView {
    pub board: String,
    pub class: String,
    pub costs: Vec<CostView>,
    pub updated: String,
}

/// A built-in scenario, board class or kernel preset: its name and what
/// it is.
pub struct Choice {
    pub name: String,
    pub what: String,
}

/// How many of a built-in scenario's predictions are within 2x of the
/// seed thread's measurements.
pub struct Trust {
    pub scenario: String,
    pub within: usize,
    pub of: usize,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/simulations.html")]
pub struct SimulationsPage {
    pub scenarios: Vec<Choice>,
    pub boards: Vec<Choice>,
    pub presets: Vec<Choice>,
    pub stored_boards: Vec<BoardCostsView>,
    pub jobs: Vec<Job>,
    pub error: Option<String>,
    pub form: BTreeMap<String, String>,
    pub examples: Vec<Example>,
    /// Per built-in scenario: predictions within 2x of the seed, of all.
    pub trust: Vec<Trust>,
    /// Simulations one token may have queued or running at once.
    pub per_token: i64,
    pub max_queue: i64,
    pub max_replications: u32,
    pub max_sweep_points: usize,
}

impl SimulationsPage {
    pub fn field(&self, k: &str) -> String {
        self.form.get(k).cloned().unwrap_or_default()
    }
    pub fn selected(&self, k: &str, v: &str) -> bool {
        self.form.get(k).is_some_and(|x| x == v)
    }
}

async fn page(
    state: &AppState,
    error: Option<String>,
    form: BTreeMap<String, String>,
) -> Result<SimulationsPage, AppError> {
    let stored = jobs::all_board_costs(&state.pool).await?;
    Ok(SimulationsPage {
        scenarios: reclaimlab_sim::builtin_scenarios()
            .into_iter()
            .map(|(n, d)| Choice {
                name: n.to_string(),
                what: d.to_string(),
            })
            .collect(),
        boards: reclaimlab_sim::builtin_boards()
            .into_iter()
            .map(|b| Choice {
                name: b.name,
                what: b.description,
            })
            .collect(),
        presets: reclaimlab_sim::builtin_presets()
            .into_iter()
            .map(|p| Choice {
                name: p.name,
                what: p.kernel,
            })
            .collect(),
        stored_boards: stored.iter().map(cost_view).collect(),
        jobs: jobs::recent(&state.pool, 30).await?,
        error,
        form,
        examples: examples(),
        trust: reclaimlab_sim::builtin_scenarios()
            .into_iter()
            .filter_map(|(n, _)| {
                super::validation::for_scenario(n).map(|c| Trust {
                    scenario: n.to_string(),
                    within: c.predictions_within(),
                    of: c.predictions(),
                })
            })
            .collect(),
        per_token: state.jobs.per_token_active,
        max_queue: state.jobs.max_queue,
        max_replications: state.jobs.max_replications,
        max_sweep_points: crate::simulate::MAX_SWEEP_POINTS,
    })
}

/// Which costs of a stored board are calibrated, and which are the class's.
fn cost_view(row: &BoardCostRow) -> BoardCostsView {
    let overrides: toml::Table = row.costs_toml.parse().unwrap_or_default();
    let costs = crate::jobs::exec::board_costs(&row.board_class)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, default)| {
            let cal = overrides
                .get(&name)
                .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)));
            CostView {
                value: format!("{}", cal.unwrap_or(default)),
                calibrated: cal.is_some(),
                name,
            }
        })
        .collect();
    BoardCostsView {
        board: row.board.clone(),
        class: row.board_class.clone(),
        costs,
        updated: row.updated_at.format("%Y-%m-%d %H:%M").to_string(),
    }
}

/// The fields a link may fill in (the examples on the page are such links).
const PREFILL: [&str; 10] = [
    "scenario",
    "variants",
    "seed",
    "replications",
    "duration",
    "board_class",
    "sweep_variant",
    "sweep_knob",
    "sweep_values",
    "sweep_output",
];

#[tracing::instrument(skip_all)]
pub async fn show_simulations(
    State(state): State<AppState>,
    Query(q): Query<BTreeMap<String, String>>,
) -> PageResult<SimulationsPage> {
    let mut form = BTreeMap::new();
    form.insert("scenario".into(), "v4-isolate-irq-holdoff".into());
    form.insert("seed".into(), "1".into());
    for (k, v) in q {
        if PREFILL.contains(&k.as_str()) {
            form.insert(k, v);
        }
    }
    Ok(page(&state, None, form).await?)
}

/// An example of the page: a link that fills the form in.
pub struct Example {
    pub title: &'static str,
    pub what: String,
    pub url: String,
    /// Simulations it queues (what counts against the token's limit).
    pub jobs: usize,
}

fn examples() -> Vec<Example> {
    let link = |pairs: &[(&str, &str)]| {
        let q = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        format!("/simulations?{q}#simulate")
    };
    vec![
        Example {
            title: "Every variant of the irq-holdoff scenario",
            what: format!(
                "{} on an i7-4790-like desktop, 20 s simulated each",
                reclaimlab_sim::load_scenario("v4-isolate-irq-holdoff")
                    .map(|s| s
                        .variants
                        .iter()
                        .map(|v| v.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default()
            ),
            url: link(&[
                ("scenario", "v4-isolate-irq-holdoff"),
                ("seed", "1"),
                ("replications", "1"),
                ("duration", "20s"),
            ]),
            jobs: 1,
        },
        Example {
            title: "Sweep the isolate time cap",
            what: "isolate-time-cap only, at 300, 1000, 3000 and 10000 us, \
                   plotting the irqsoff maximum"
                .into(),
            url: link(&[
                ("scenario", "v4-isolate-irq-holdoff"),
                ("seed", "1"),
                ("replications", "1"),
                ("duration", "20s"),
                ("variants", "isolate-time-cap"),
                ("sweep_variant", "isolate-time-cap"),
                ("sweep_knob", "isolate_time_cap_us"),
                ("sweep_values", "300, 1000, 3000, 10000"),
                ("sweep_output", "irqsoff_max_us"),
            ]),
            jobs: 4,
        },
    ]
}

fn request_from_form(f: &BTreeMap<String, String>) -> Result<SimulationRequest, String> {
    let get = |k: &str| {
        f.get(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let toml = get("scenario_toml");
    let scenario = toml.or_else(|| get("scenario")).unwrap_or_default();
    let num = |k: &str, default: u64| -> Result<u64, String> {
        match get(k) {
            Some(v) => v
                .parse()
                .map_err(|_| format!("{k}: expected a whole number, found {v:?}")),
            None => Ok(default),
        }
    };
    let sweep = match (get("sweep_variant"), get("sweep_knob"), get("sweep_values")) {
        (Some(variant), Some(knob), Some(values)) => Some(SweepRequest {
            variant,
            knob,
            values: values
                .split([',', ' '])
                .filter(|v| !v.is_empty())
                .map(|v| {
                    v.parse::<f64>()
                        .map_err(|_| format!("sweep values: {v:?} is not a number"))
                })
                .collect::<Result<_, _>>()?,
            output: get("sweep_output").unwrap_or_else(|| "cyclictest_max_us".into()),
        }),
        (None, None, None) => None,
        _ => return Err("sweep: give the variant, the knob and the values".into()),
    };
    let mut variants: Vec<String> = get("variants")
        .map(|v| {
            v.split([',', ' '])
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    // A sweep simulates the swept variant (and those named), not every
    // variant of the scenario at each point.
    if let Some(s) = &sweep
        && !variants.contains(&s.variant)
    {
        variants.insert(0, s.variant.clone());
    }
    Ok(SimulationRequest {
        scenario,
        variants,
        seed: num("seed", 1)?,
        replications: num("replications", 0)? as u32,
        duration: get("duration"),
        board_class: get("board_class"),
        board: get("board").map(|b| crate::boards::canonical(&b)),
        knobs: BTreeMap::new(),
        sweep,
        force: f.contains_key("force"),
    })
}

#[tracing::instrument(skip_all)]
pub async fn submit_simulation(
    State(state): State<AppState>,
    SignedForm {
        caller,
        fields: form,
    }: SignedForm,
) -> Result<Response, PageError> {
    let f = form.map;
    let req = match request_from_form(&f) {
        Ok(r) => r,
        Err(e) => {
            return Ok((
                axum::http::StatusCode::UNPROCESSABLE_ENTITY,
                page(&state, Some(e), f).await?,
            )
                .into_response());
        }
    };
    match simulate::submit(&state.pool, &state.jobs, req, Some(caller.token.id)).await {
        Ok(s) => Ok(match s.sweep_id {
            Some(id) => Redirect::to(&format!("/simulations/sweeps/{id}")),
            None => Redirect::to(&format!("/simulations/{}", s.ids[0])),
        }
        .into_response()),
        Err(
            e @ (AppError::Unprocessable { .. }
            | AppError::BadRequest(_)
            | AppError::TooManyRequests(_)
            | AppError::Busy(_)),
        ) => Ok((e.status(), page(&state, Some(e.public_message()), f).await?).into_response()),
        Err(e) => Err(e.into()),
    }
}

#[tracing::instrument(skip_all)]
pub async fn submit_costs(
    State(state): State<AppState>,
    SignedForm {
        caller,
        fields: form,
    }: SignedForm,
) -> Result<Response, PageError> {
    let f = form.map;
    let board = crate::boards::canonical(f.get("board").map(String::as_str).unwrap_or_default());
    let class = f.get("board_class").cloned().unwrap_or_default();
    let costs = f.get("costs").cloned().unwrap_or_default();
    match simulate::set_board_costs(&state.pool, &caller, &board, &class, &costs).await {
        Ok(()) => Ok(Redirect::to("/simulations#boards").into_response()),
        Err(e @ (AppError::Unprocessable { .. } | AppError::BadRequest(_))) => {
            Ok((e.status(), page(&state, Some(e.public_message()), f).await?).into_response())
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/simulation.html")]
pub struct SimulationPage {
    pub job: Job,
    pub active: bool,
    pub progress: String,
    pub runs: Vec<crate::storage::runs::RunSummary>,
    pub report_text: Option<String>,
    pub compare_url: Option<String>,
    /// How the scenario's predictions compare with the seed thread.
    pub validation: Option<&'static super::validation::ScenarioChecks>,
    /// The replications the job runs: its own, or the scenario's.
    pub replications: String,
}

#[tracing::instrument(skip_all, fields(simulation.id = id.0))]
pub async fn show_simulation(
    State(state): State<AppState>,
    Path(id): Path<JobId>,
) -> PageResult<SimulationPage> {
    let job = jobs::get(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("simulation {id}")))?;
    let run_ids = jobs::result_runs(&state.pool, id).await?;
    let runs = crate::storage::runs::summaries(&state.pool, &run_ids).await?;
    let report_text = jobs::result_report_text(&state.pool, id).await?;
    let compare_url = (!runs.is_empty()).then(|| {
        // One column per simulated variant, in order.
        let mut cols: Vec<(String, Vec<RunId>)> = Vec::new();
        for r in &runs {
            match cols.iter_mut().find(|c| c.0 == r.variant) {
                Some(c) => c.1.push(r.id),
                None => cols.push((r.variant.clone(), vec![r.id])),
            }
        }
        let q: Vec<String> = cols
            .iter()
            .map(|(v, ids)| {
                format!(
                    "c={}",
                    urlencode(&format!(
                        "runs:{};label:{v} (simulated)",
                        ids.iter()
                            .map(RunId::to_string)
                            .collect::<Vec<_>>()
                            .join(",")
                    ))
                )
            })
            .collect();
        format!("/compare?{}", q.join("&"))
    });
    let active = job.state.is_active();
    let progress = format!(
        "{} s simulated, {} events",
        fmt_us(job.progress_sim_ns as f64 / 1e9),
        job.progress_events
    );
    let validation = job
        .scenario_name
        .as_deref()
        .and_then(super::validation::for_scenario);
    let replications = simulate::effective_replications(&job)
        .map(|n| n.to_string())
        .unwrap_or_else(|| "the scenario's".into());
    Ok(SimulationPage {
        active,
        progress,
        runs,
        report_text,
        compare_url,
        validation,
        replications,
        job,
    })
}

#[tracing::instrument(skip_all, fields(simulation.id = id.0))]
pub async fn cancel_from_page(
    State(state): State<AppState>,
    Path(id): Path<JobId>,
    SignedForm { caller, .. }: SignedForm,
) -> Result<Response, PageError> {
    simulate::cancel(&state.pool, &caller, id).await?;
    Ok(Redirect::to(&format!("/simulations/{id}")).into_response())
}

#[tracing::instrument(skip_all, fields(simulation.id = id.0))]
pub async fn rerun_from_page(
    State(state): State<AppState>,
    Path(id): Path<JobId>,
    SignedForm { caller, .. }: SignedForm,
) -> Result<Response, PageError> {
    let req = simulate::rerun_request(&state.pool, id).await?;
    let s = simulate::submit(&state.pool, &state.jobs, req, Some(caller.token.id)).await?;
    Ok(Redirect::to(&format!("/simulations/{}", s.ids[0])).into_response())
}

/// One job of a sweep: the knob value it ran with and what it gave.
pub struct SweepRow {
    pub job: JobId,
    pub value: String,
    /// The sweep's output, formatted, or `-` until the job is done.
    pub output: String,
    pub state: jobs::JobState,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/sweep.html")]
pub struct SweepPage {
    pub sweep: jobs::Sweep,
    pub rows: Vec<SweepRow>,
    pub active: bool,
    pub has_points: bool,
}

async fn sweep_points(
    state: &AppState,
    id: i64,
) -> Result<(jobs::Sweep, Vec<Job>, Vec<(f64, Option<f64>)>), AppError> {
    let sweep = jobs::sweep(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("sweep {id}")))?;
    let list = jobs::by_sweep(&state.pool, id).await?;
    let mut points = Vec::new();
    for j in &list {
        let y = match jobs::result_text(&state.pool, j.id).await? {
            Some((_, report)) => {
                let variant = report["variants"]
                    .as_array()
                    .and_then(|vs| vs.iter().find(|v| v["name"] == sweep.variant.as_str()))
                    .map(|_| sweep.variant.clone())
                    .unwrap_or_default();
                simulate::output_value(&report, &variant, &sweep.output)
            }
            None => None,
        };
        points.push((j.sweep_value.unwrap_or(f64::NAN), y));
    }
    Ok((sweep, list, points))
}

#[tracing::instrument(skip_all, fields(sweep.id = id))]
pub async fn show_sweep(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> PageResult<SweepPage> {
    let (sweep, list, points) = sweep_points(&state, id).await?;
    let active = list.iter().any(|j| j.state.is_active());
    let rows = list
        .iter()
        .zip(&points)
        .map(|(j, (x, y))| SweepRow {
            job: j.id,
            value: format!("{x}"),
            output: y.map(fmt_us).unwrap_or_else(|| "-".into()),
            state: j.state,
        })
        .collect();
    Ok(SweepPage {
        has_points: points.iter().any(|p| p.1.is_some()),
        sweep,
        rows,
        active,
    })
}

#[tracing::instrument(skip_all, fields(sweep.id = id))]
pub async fn show_sweep_svg(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> Result<Response, PageError> {
    let (sweep, _, points) = sweep_points(&state, id).await?;
    let series = vec![reclaimlab_report::svg::Series {
        label: format!("{} ({})", sweep.variant, sweep.output),
        points: points
            .into_iter()
            .filter_map(|(x, y)| y.map(|y| (x, y)))
            .collect(),
    }];
    Ok(svg_response(
        reclaimlab_report::svg::line_plot(
            &format!("{} against {}", sweep.output, sweep.knob),
            &sweep.knob,
            &sweep.output,
            &series,
        ),
        false,
    ))
}
