//! Every knob of the knob table moves some output: for each knob, a
//! built-in scenario is run with the knob at a base value and at another
//! value (same seed), and at least one reported output must differ. A knob
//! added to the table without a probe here fails the test, and so does a
//! knob that stops mattering. Run with `--nocapture` to print the table of
//! outputs each knob moves (docs/SIMULATOR.md "Knob coverage").

use std::collections::BTreeMap;

use reclaimlab_sim::{
    Control, KnobValue, RunOptions, SimReport, Variant, knob_table, load_scenario, run,
};

struct Probe {
    knob: &'static str,
    scenario: &'static str,
    /// Knobs set on both sides first.
    base: &'static [(&'static str, Val)],
    from: Val,
    to: Val,
    duration_s: f64,
}

#[derive(Clone, Copy)]
enum Val {
    B(bool),
    N(f64),
    T(&'static str),
}

impl Val {
    fn get(self) -> KnobValue {
        match self {
            Val::B(b) => KnobValue::Bool(b),
            Val::N(x) => KnobValue::Number(x),
            Val::T(s) => KnobValue::Text(s.to_string()),
        }
    }
}

use Val::{B, N, T};

const V1: &str = "v1-madvise-pte-walk";
const V2: &str = "v2-munmap-sections";
const V3: &str = "v3-pageout-ignore-refs";
const V4: &str = "v4-isolate-irq-holdoff";
const V5: &str = "v5-tree-lock-contention";

const PROBES: &[Probe] = &[
    Probe {
        knob: "preempt",
        scenario: V1,
        base: &[],
        from: T("rt"),
        to: T("full"),
        duration_s: 2.0,
    },
    Probe {
        knob: "rt_sleeping_spinlock_defers_preemption",
        scenario: V1,
        base: &[],
        from: B(true),
        to: B(false),
        duration_s: 2.0,
    },
    Probe {
        knob: "lru",
        scenario: V4,
        base: &[],
        from: T("classic"),
        to: T("mglru"),
        duration_s: 5.0,
    },
    Probe {
        knob: "isolate_skip_counts",
        scenario: V4,
        base: &[],
        from: B(false),
        to: B(true),
        duration_s: 5.0,
    },
    Probe {
        knob: "isolate_max_skipped",
        scenario: V4,
        base: &[],
        from: B(false),
        to: N(32768.0),
        duration_s: 5.0,
    },
    Probe {
        knob: "isolate_time_cap_us",
        scenario: V4,
        base: &[],
        from: B(false),
        to: N(1000.0),
        duration_s: 5.0,
    },
    Probe {
        knob: "isolate_time_cap_every",
        scenario: V4,
        base: &[("isolate_time_cap_us", N(1000.0))],
        from: N(1024.0),
        to: N(65536.0),
        duration_s: 5.0,
    },
    Probe {
        knob: "madvise_resched",
        scenario: V1,
        base: &[],
        from: T("none"),
        to: T("need_resched"),
        duration_s: 2.0,
    },
    Probe {
        knob: "madvise_resched_every",
        scenario: V1,
        base: &[("madvise_resched", T("need_resched"))],
        from: N(32.0),
        to: N(256.0),
        duration_s: 2.0,
    },
    Probe {
        knob: "madvise_ignore_references",
        scenario: V3,
        base: &[],
        from: B(false),
        to: B(true),
        duration_s: 200.0,
    },
    Probe {
        knob: "munmap_mode",
        scenario: V2,
        base: &[],
        from: T("write_whole"),
        to: T("downgrade"),
        duration_s: 25.0,
    },
    Probe {
        knob: "munmap_section_gb",
        scenario: V2,
        base: &[
            ("munmap_mode", T("section")),
            ("munmap_drop_if", T("contended")),
        ],
        from: N(1.0),
        to: N(8.0),
        duration_s: 25.0,
    },
    Probe {
        knob: "munmap_drop_if",
        scenario: V2,
        base: &[("munmap_mode", T("section"))],
        from: T("contended_and_need_resched"),
        to: T("contended"),
        duration_s: 25.0,
    },
    Probe {
        knob: "remove_mapping_batched",
        scenario: V5,
        base: &[],
        from: B(false),
        to: B(true),
        duration_s: 600.0,
    },
    Probe {
        knob: "swap_rotational",
        scenario: V5,
        base: &[],
        from: B(true),
        to: B(false),
        duration_s: 600.0,
    },
    Probe {
        knob: "swapcache_trunk_pages",
        scenario: V5,
        base: &[("swap_rotational", B(false))],
        from: B(false),
        to: N(16384.0),
        duration_s: 600.0,
    },
    Probe {
        knob: "kswapd_backoff_on_tree_lock_ms",
        scenario: V5,
        // The patch changes remove_mapping_list, which S5 patch 1 adds.
        base: &[("remove_mapping_batched", B(true))],
        from: B(false),
        to: N(10.0),
        duration_s: 600.0,
    },
    Probe {
        knob: "direct_congest_on_tree_lock",
        scenario: V5,
        // Patch 4 marks the node in patch 3's stall branch.
        base: &[
            ("remove_mapping_batched", B(true)),
            ("kswapd_backoff_on_tree_lock_ms", N(10.0)),
        ],
        from: B(false),
        to: B(true),
        duration_s: 600.0,
    },
    Probe {
        knob: "writeback_move_expired_cap_us",
        scenario: V4,
        base: &[],
        from: B(false),
        to: N(1000.0),
        duration_s: 5.0,
    },
];

/// Every reported output of a variant, by name, as text.
fn outputs(r: &SimReport, variant: usize) -> BTreeMap<String, String> {
    let v = &r.variants[variant];
    let s = &v.summary;
    let mut m = BTreeMap::new();
    let mut put = |k: String, x: String| {
        m.insert(k, x);
    };
    let f = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    put("cyclictest max".into(), f(s.cyclictest_max_us));
    put("cyclictest avg".into(), f(s.cyclictest_avg_us));
    put("irqsoff max".into(), f(s.irqsoff_max_us));
    put("irqsoff culprit".into(), format!("{:?}", s.irqsoff_culprit));
    put("preemptoff max".into(), f(s.preemptoff_max_us));
    put(
        "preemptoff culprit".into(),
        format!("{:?}", s.preemptoff_culprit),
    );
    put("wakeup_rt max".into(), f(s.wakeup_rt_max_us));
    put(
        "wakeup_rt culprit".into(),
        format!("{:?}", s.wakeup_rt_culprit),
    );
    for x in &s.metrics {
        put(x.name.clone(), format!("{:.6}", x.mean));
    }
    for (k, x) in &v.vmstat {
        put(format!("vmstat {k}"), format!("{x:.3}"));
    }
    for l in &v.locks {
        put(
            format!("{} contentions", l.class),
            l.contentions.to_string(),
        );
        put(
            format!("{} hold max", l.class),
            format!("{:.3}", l.holdtime_max_us),
        );
    }
    m
}

fn moved(p: &Probe) -> Vec<String> {
    let mut sc = load_scenario(p.scenario).expect("built-in scenario");
    if let Some(u) = sc.workload.usemem.as_mut() {
        u.instances = vec![5];
        // A few passes keep the probe short; every knob it probes acts in
        // each pass alike.
        u.loops = u.loops.min(4);
    }
    let mut knobs = sc.variants[0].knobs.clone();
    for (k, v) in p.base {
        knobs.set(k, &v.get(), k).expect("base knob is valid");
    }
    let mut a = knobs.clone();
    a.set(p.knob, &p.from.get(), p.knob)
        .expect("from value is valid");
    let mut b = knobs;
    b.set(p.knob, &p.to.get(), p.knob)
        .expect("to value is valid");
    assert_ne!(a, b, "{}: the two values must differ", p.knob);
    sc.variants = vec![
        Variant {
            name: "from".into(),
            description: String::new(),
            knobs: a,
        },
        Variant {
            name: "to".into(),
            description: String::new(),
            knobs: b,
        },
    ];
    let opts = RunOptions {
        seed: 7,
        replications: 1,
        duration_ns: Some((p.duration_s * 1e9) as u64),
        ..Default::default()
    };
    let r = run(&sc, &opts, &mut |_| Control::Continue).expect("runs");
    let (x, y) = (outputs(&r, 0), outputs(&r, 1));
    let mut keys: Vec<String> = x.keys().chain(y.keys()).cloned().collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().filter(|k| x.get(k) != y.get(k)).collect()
}

#[test]
fn every_knob_has_a_probe_and_moves_an_output() {
    for spec in knob_table() {
        assert!(
            PROBES.iter().any(|p| p.knob == spec.name),
            "knob {} has no coverage probe",
            spec.name
        );
    }
    assert_eq!(PROBES.len(), knob_table().len(), "one probe per knob");
    let mut inert = Vec::new();
    for p in PROBES {
        let m = moved(p);
        println!("| `{}` | {} | {} |", p.knob, p.scenario, m.join(", "));
        if m.is_empty() {
            inert.push(p.knob);
        }
    }
    assert!(inert.is_empty(), "inert knobs: {inert:?}");
}
