//! A big function trace through the upload API: what is stored stays a few
//! MB, the culprit and the worst latency are right, the run page is small.

mod common;

use std::fmt::Write as _;
use std::time::Duration;

use common::*;
use reclaimlab::auth::Scope;
use sqlx::PgPool;

/// The stall planted in the trace, in microseconds.
const STALL_US: u64 = 77_000;

const FUNCS: [(&str, &str); 8] = [
    ("__rcu_read_lock+0x0/0x20", "isolate_lru_folios+0x160/0x3e0"),
    (
        "__rcu_read_unlock+0x0/0x180",
        "isolate_lru_folios+0x199/0x3e0",
    ),
    (
        "__mod_node_page_state+0x0/0x70",
        "isolate_lru_folios+0x2ee/0x3e0",
    ),
    (
        "__mod_zone_page_state+0x0/0x60",
        "isolate_lru_folios+0x2fc/0x3e0",
    ),
    (
        "folio_lruvec_lock_irq+0x0/0x90",
        "shrink_inactive_list+0x10f/0x440",
    ),
    (
        "__isolate_lru_page_prepare+0x0/0x120",
        "isolate_lru_folios+0x1a1/0x3e0",
    ),
    ("preempt_count_add+0x0/0x50", "_raw_spin_lock_irq+0x20/0x40"),
    ("list_move+0x0/0x40", "isolate_lru_folios+0x2a0/0x3e0"),
];

/// An irqsoff report in seed 003's layout (tracer header, function-trace
/// events, `<stack trace>`) of about `bytes` bytes, with one stall of
/// [`STALL_US`] after the event in the middle. Returns the text, the
/// latency the header prints and the index of the stalled event.
fn irqsoff_trace(bytes: usize) -> (String, u64, u64) {
    // Event lines are 75-90 bytes: the middle event is about here.
    let stall_at = (bytes / 82 / 2) as u64;
    let mut events = String::with_capacity(bytes + 4096);
    let mut t: u64 = 0;
    let mut i: u64 = 0;
    while events.len() < bytes {
        let (f, c) = FUNCS[(i % FUNCS.len() as u64) as usize];
        if i == stall_at {
            writeln!(
                events,
                " kswapd0-90        5d..1. {t:>5}us*: isolate_lru_folios+0x0/0x3e0 <-shrink_inactive_list+0x10f/0x440"
            )
            .unwrap();
            t += STALL_US;
        } else {
            writeln!(events, " kswapd0-90        5d..1. {t:>5}us : {f} <-{c}").unwrap();
            t += u64::from(i.is_multiple_of(1000));
        }
        i += 1;
    }
    let latency = t;
    let mut out = String::with_capacity(events.len() + 4096);
    write!(
        out,
        "# tracer: irqsoff\n#\n# irqsoff latency trace v1.1.5 on 6.12.0-big\n\
         # --------------------------------------------------------------------\n\
         # latency: {latency} us, #{i}/{i}, CPU#5 | (M:unknown VP:0, KP:0, SP:0 HP:0 #P:8)\n\
         #    -----------------\n#    | task: kswapd0-90 (uid:0 nice:0 policy:0 rt_prio:0)\n\
         #    -----------------\n#  => started at: _raw_spin_lock_irq+0x16/0x40\n\
         #  => ended at:   _raw_spin_unlock_irq+0x10/0x30\n#\n#\n\
         #                    _------=> CPU#\n#                   / _-----=> irqs-off/BH-disabled\n\
         #                  | / _----=> need-resched\n#                  || / _---=> hardirq/softirq\n\
         #                  ||| / _--=> preempt-depth\n#                  |||| / _-=> migrate-disable\n\
         #                  ||||| /     delay\n#  cmd     pid     |||||| time  |   caller\n\
         #     \\   /        ||||||  \\    |    /\n"
    )
    .unwrap();
    out.push_str(&events);
    writeln!(out, " kswapd0-90        5d..1. {t:>5}us : <stack trace>").unwrap();
    for frame in [
        "shrink_inactive_list+0x16a/0x440",
        "shrink_lruvec+0x2fc/0x470",
        "shrink_node+0x1d6/0x4a0",
        "balance_pgdat+0x280/0x5c0",
        "kswapd+0x10f/0x350",
        "kthread+0xfa/0x130",
        "ret_from_fork+0x2d/0x50",
    ] {
        writeln!(out, " => {frame}").unwrap();
    }
    (out, latency, stall_at)
}

#[test]
fn the_generator_plants_one_stall_in_a_trace_the_parser_reads() {
    let (text, latency, stall) = irqsoff_trace(200_000);
    let doc = reclaimlab_formats::parse(text.as_bytes(), None).expect("parses");
    let reclaimlab_formats::BlockBody::FtraceLatency(t) = &doc.blocks[0].body else {
        panic!("not a trace: {:?}", doc.blocks[0].kind());
    };
    assert_eq!(t.latency_us, latency as f64);
    assert_eq!(t.culprit.as_deref(), Some("isolate_lru_folios"));
    let d = reclaimlab::ingest::trace_digest(t);
    assert_eq!(d.gaps[0].event, stall);
    assert_eq!(d.gaps[0].gap_us, STALL_US as f64);
    assert!((1..=reclaimlab::ingest::DIGEST_GAPS).contains(&d.gaps.len()));
    assert!(d.gaps.windows(2).all(|w| w[0].gap_us >= w[1].gap_us));
    assert_eq!(d.functions[0].name, "isolate_lru_folios");
    let events: u64 = d.functions.iter().map(|f| f.count).sum();
    // Every function-trace event is counted once; the `<stack trace>`
    // marker is an event without a function.
    assert_eq!(events, d.events_total - 1);
}

#[sqlx::test]
async fn a_50_mb_trace_is_stored_in_a_few_mb_and_its_run_page_is_small(pool: PgPool) {
    let mut st = state(&pool);
    st.request_timeout = Duration::from_secs(900);
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Upload).await;
    let (text, latency, stall) = irqsoff_trace(50 << 20);
    assert!(text.len() >= 50 << 20);
    let r = upload(
        &app,
        Some(&tok),
        "board=rig-big&kernel=6.12.0-big&variant=baseline",
        text,
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let j = r.json();
    let upload_id = j["upload_id"].as_i64().unwrap();
    let run_id = j["runs"][0]["id"].as_i64().unwrap();

    let run = get(&app, &format!("/api/v1/runs/{run_id}")).await;
    assert_eq!(run.status, 200);
    let run = run.json();
    assert_eq!(run["worst_us"], latency as f64);
    assert_eq!(run["trace"]["culprit"], "isolate_lru_folios");
    assert_eq!(run["trace"]["latency_us"], latency as f64);
    let digest = &run["block"]["digest"];
    assert_eq!(digest["gaps"][0]["event"], stall);
    assert_eq!(digest["gaps"][0]["gap_us"], STALL_US as f64);
    assert!(
        digest["events_total"].as_u64().unwrap() > 500_000,
        "{digest}"
    );

    // Everything stored as JSON for this upload: its outline and its block.
    let stored: i64 = sqlx::query_scalar(
        "SELECT (SELECT COALESCE(sum(pg_column_size(document)), 0) FROM uploads WHERE id = $1)
              + (SELECT COALESCE(sum(pg_column_size(block)), 0) FROM runs WHERE upload_id = $1)",
    )
    .bind(upload_id)
    .fetch_one(&pool)
    .await
    .unwrap();
    eprintln!("stored JSON for the upload: {stored} bytes");
    assert!(stored < 4 << 20, "{stored} bytes of JSON stored");

    let page = get(&app, &format!("/runs/{run_id}")).await;
    assert_eq!(page.status, 200);
    let html = page.text();
    eprintln!("run page: {} bytes", page.body.len());
    assert!(
        page.body.len() < 1 << 20,
        "run page is {} bytes",
        page.body.len()
    );
    assert!(html.contains("isolate_lru_folios"));
    assert!(html.contains("Longest gaps between events"));
    assert!(html.contains(&format!("{STALL_US}")), "the stall is shown");
    assert!(html.contains("shrink_lruvec"), "the stack is shown");
    // The per-function list pages when long; a page past the end shows the last.
    let last = get(&app, &format!("/runs/{run_id}?page=999")).await;
    assert_eq!(last.status, 200);
}
