//! Invalid scenario files get an error naming the field and why.
use reclaimlab_sim::{
    builtin_boards, builtin_presets, builtin_scenarios, knob_table, load_scenario,
};

const BASE: &str = r#"
name = "t"
[machine]
board = "x86-desktop"
[[variants]]
name = "a"
[[variants]]
name = "b"
knobs = { isolate_time_cap_us = 1000 }
"#;

fn err(toml: &str) -> String {
    load_scenario(toml).unwrap_err().to_string()
}

#[test]
fn valid_minimal_scenario_loads() {
    let s = load_scenario(BASE).unwrap();
    assert_eq!(s.variants.len(), 2);
    assert_eq!(s.variants[1].knobs.isolate_time_cap_us, Some(1000.0));
}

#[test]
fn negative_knob_names_the_field() {
    let e = err(&BASE.replace("isolate_time_cap_us = 1000", "isolate_time_cap_us = -3"));
    assert_eq!(
        e,
        "variants[1].knobs.isolate_time_cap_us: expected a positive number (at most 1000000), \
         or false (0) for off, found -3"
    );
}

#[test]
fn numeric_overrides_use_the_same_validation() {
    let mut k = load_scenario(BASE).unwrap().variants[0].knobs.clone();
    let e = k.set_number("isolate_time_cap_us", -3.0).unwrap_err();
    assert_eq!(e.field, "isolate_time_cap_us");
    assert!(e.reason.contains("found -3"), "{e}");
    assert!(k.set_number("madvise_resched_every", 0.5).is_err());
    assert!(k.set_number("madvise_resched_every", 1024.0).is_err());
    assert!(
        k.set_number("preempt", 1.0)
            .unwrap_err()
            .to_string()
            .starts_with("preempt: expected one of none | voluntary")
    );
    k.set_number("isolate_time_cap_us", 250.0).unwrap();
    assert_eq!(k.isolate_time_cap_us, Some(250.0));
    k.set_number("isolate_time_cap_us", 0.0).unwrap();
    assert_eq!(k.isolate_time_cap_us, None);
    k.set_number("madvise_ignore_references", 1.0).unwrap();
    assert!(k.madvise_ignore_references);
    assert!(k.set_number("madvise_ignore_references", 2.0).is_err());
    // Every knob of the table is settable by name and only those.
    for spec in knob_table() {
        let r = k.set_number(spec.name, 1.0);
        assert!(
            !r.as_ref()
                .is_err_and(|e| e.reason.starts_with("unknown knob")),
            "{}",
            spec.name
        );
    }
}

#[test]
fn unknown_knob_board_and_field() {
    assert!(
        err(&BASE.replace("isolate_time_cap_us", "isolate_time_capp"))
            .starts_with("variants[1].knobs.isolate_time_capp: unknown knob")
    );
    assert!(
        err(&BASE.replace("x86-desktop", "vax"))
            .starts_with("machine.board: unknown board \"vax\"")
    );
    assert!(
        err(&format!("{BASE}\n[workload]\ncyclictests = 1\n"))
            .starts_with("workload.cyclictests: unknown field")
    );
    assert!(err("[machine]\nboard = 3\n").starts_with("machine.board: expected a string"));
    assert!(err(&BASE.replace("name = \"b\"", "name = \"a\"")).contains("duplicate variant name"));
    assert!(
        err(&format!("{BASE}\n[knobs]\npreempt = \"sometimes\"\n"))
            .starts_with("knobs.preempt: expected one of none | voluntary")
    );
    assert!(
        err(&format!("{BASE}\n[run]\nduration = \"soon\"\n"))
            .starts_with("run.duration: expected a positive duration")
    );
    assert!(err("not toml at all =").starts_with("scenario: invalid TOML"));
    assert!(err("v9-nope").contains("neither a built-in scenario"));
    assert!(
        err(&format!(
            "{BASE}\n[workload.cyclictest]\nhistogram_us = 999999999\n"
        ))
        .starts_with("workload.cyclictest.histogram_us: expected at most")
    );
    assert!(
        err(&format!("{BASE}\n[workload.usemem]\ninstances = [1, 2]\n"))
            .starts_with("machine.swap: workload.usemem swaps")
    );
    assert!(
        err(&format!("{BASE}\n[workload.usemem]\ninstances = [0]\n")
            .replace("[machine]", "[machine]\nswap = \"brd\""))
        .starts_with("workload.usemem.instances[0]: expected 1..=1024")
    );
    assert!(
        err(
            &format!("{BASE}\n[workload.usemem]\ninstances = [1]\nloops = 0\n")
                .replace("[machine]", "[machine]\nswap = \"brd\"")
        )
        .starts_with("workload.usemem.loops: expected 1..=1000")
    );
    assert!(
        err(&BASE.replace("[machine]", "[machine]\nswap_gb = -1")).starts_with("machine.swap_gb: ")
    );
    assert!(
        err(&BASE.replace("[machine]", "[machine]\nswap_prealloc = 3"))
            .starts_with("machine.swap_prealloc: ")
    );
}

#[test]
fn nested_fields_are_named_by_their_full_path() {
    let w = |t: &str| err(&format!("{BASE}\n{t}\n"));
    assert_eq!(
        w("[workload.file_lru]\nnormal_band_mb = [1, -2]\ndma32_band_mb = [1, 2]"),
        "workload.file_lru.normal_band_mb[1]: expected a positive number, found -2"
    );
    assert_eq!(
        w("[workload.file_lru]\nnormal_band_mb = [3, 2]\ndma32_band_mb = [1, 2]"),
        "workload.file_lru.normal_band_mb: expected min <= max"
    );
    assert_eq!(
        w("[workload.file_lru]\nnormal_band_mb = [1, 2]"),
        "workload.file_lru.dma32_band_mb: missing field"
    );
    assert_eq!(
        w("[workload.munmap]\nsize_gb = [1, 2e6]"),
        "workload.munmap.size_gb[1]: expected at most 1000000"
    );
    assert_eq!(
        w("[workload.cyclictest]\nprio = 0"),
        "workload.cyclictest.prio: expected 1..=99, found 0"
    );
    assert_eq!(
        err("[machine]\nboard = \"x86-desktop\"\nzones = [{name = \"N\", gb = 1, x = 1}]\n"),
        "machine.zones[0].x: unknown field; expected one of: name, gb"
    );
    assert_eq!(
        err("[machine]\nboard = \"x86-desktop\"\n[run]\nreplications = 1.5\n"),
        "run.replications: expected a non-negative integer, found 1.5"
    );
    assert_eq!(err("machine = 3\n"), "machine: expected a table, found 3");
    assert!(
        err(&format!(
            "{BASE}\n[[variants]]\nname = \"c\"\nknobs = {{ preempt = 3 }}\n"
        ))
        .starts_with("variants[2].knobs.preempt: expected one of none | voluntary")
    );
}

#[test]
fn lists_are_complete() {
    let names: Vec<&str> = builtin_scenarios().iter().map(|(n, _)| *n).collect();
    for n in [
        "toy-lock",
        "v1-madvise-pte-walk",
        "v2-munmap-sections",
        "v3-pageout-ignore-refs",
        "v4-isolate-irq-holdoff",
        "v5-tree-lock-contention",
    ] {
        assert!(names.contains(&n), "{n}");
        load_scenario(n).unwrap();
    }
    assert!(builtin_scenarios().iter().all(|(_, d)| !d.is_empty()));
    assert_eq!(builtin_boards().len(), 3);
    assert_eq!(builtin_presets().len(), 5);
}

#[test]
fn hog_jobs_need_hogs_and_ordered_ranges() {
    let jobs = "[workload.hog_jobs]\njob_ms = [50, 1000]\ngap_ms = [0.5, 2]\n";
    let e = err(&format!("{BASE}[workload]\n{jobs}"));
    assert_eq!(
        e,
        "workload.hog_jobs: jobs of the CPU hogs: expected workload.cpu_hogs >= 1, found 0"
    );
    let ok = load_scenario(&format!("{BASE}[workload]\ncpu_hogs = 2\n{jobs}")).unwrap();
    let h = ok.workload.hog_jobs.unwrap();
    assert_eq!((h.job_ms, h.gap_ms), ([50.0, 1000.0], [0.5, 2.0]));
    let e = err(&format!(
        "{BASE}[workload]\ncpu_hogs = 2\n{}",
        jobs.replace("[0.5, 2]", "[2, 0.5]")
    ));
    assert!(e.contains("gap_ms") && e.contains("min <= max"), "{e}");
}
