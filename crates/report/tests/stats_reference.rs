//! Agreement of `stats` with scipy/numpy. The reference values are in
//! `tests/reference/reference.json`, written by `tests/reference/gen_reference.py`
//! (`python3 gen_reference.py > reference.json`, scipy 1.17.1, numpy 2.4.6).

use reclaimlab_report::stats;
use serde_json::Value;

const REFERENCE: &str = include_str!("reference/reference.json");

/// Relative tolerance for everything computed in closed form or by
/// converging series.
const REL: f64 = 1e-6;

fn reference() -> Value {
    serde_json::from_str(REFERENCE).expect("reference.json parses")
}

fn close(what: &str, got: Option<f64>, want: f64, rel: f64) {
    let got = got.unwrap_or_else(|| panic!("{what}: got None, want {want}"));
    let tol = rel * want.abs().max(1e-300);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:e}, want {want:e} (rel tol {rel:e})"
    );
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn descriptive_statistics_match_numpy() {
    let r = reference();
    let samples = r["samples"].as_object().unwrap();
    for (name, d) in r["describe"].as_object().unwrap() {
        let xs = floats(&samples[name]);
        close(
            &format!("{name} amean"),
            stats::amean(&xs),
            d["amean"].as_f64().unwrap(),
            REL,
        );
        close(
            &format!("{name} hmean"),
            stats::hmean(&xs),
            d["hmean"].as_f64().unwrap(),
            REL,
        );
        close(
            &format!("{name} gmean"),
            stats::gmean(&xs),
            d["gmean"].as_f64().unwrap(),
            REL,
        );
        close(
            &format!("{name} min"),
            stats::min(&xs),
            d["min"].as_f64().unwrap(),
            REL,
        );
        close(
            &format!("{name} max"),
            stats::max(&xs),
            d["max"].as_f64().unwrap(),
            REL,
        );
        close(
            &format!("{name} median"),
            stats::median(&xs),
            d["median"].as_f64().unwrap(),
            REL,
        );
        if let Some(s) = d.get("stddev") {
            close(
                &format!("{name} stddev"),
                stats::stddev(&xs),
                s.as_f64().unwrap(),
                REL,
            );
            close(
                &format!("{name} cov"),
                stats::coefficient_of_variation(&xs),
                d["cov"].as_f64().unwrap(),
                REL,
            );
        } else {
            assert_eq!(stats::stddev(&xs), None, "{name}: stddev of n=1");
        }
        for qv in d["percentiles"].as_array().unwrap() {
            let (q, want) = (qv[0].as_f64().unwrap(), qv[1].as_f64().unwrap());
            // Percentiles of data containing exact zeros need an absolute
            // floor; the data here are all non-zero.
            close(
                &format!("{name} p{q}"),
                stats::percentile(&xs, q),
                want,
                REL,
            );
        }
    }
}

#[test]
fn welch_t_test_matches_scipy_ttest_ind() {
    for p in reference()["pairs"].as_array().unwrap() {
        let r = reference();
        let a = floats(&r["samples"][p["a"].as_str().unwrap()]);
        let b = floats(&r["samples"][p["b"].as_str().unwrap()]);
        let got = stats::welch_t_test(&a, &b).expect("welch defined");
        let w = &p["welch"];
        let what = format!("{} vs {}", p["a"], p["b"]);
        close(
            &format!("{what} t"),
            Some(got.t),
            w["t"].as_f64().unwrap(),
            REL,
        );
        close(
            &format!("{what} df"),
            Some(got.df),
            w["df"].as_f64().unwrap(),
            REL,
        );
        close(
            &format!("{what} p"),
            Some(got.p),
            w["p"].as_f64().unwrap(),
            REL,
        );
    }
}

#[test]
fn mann_whitney_matches_scipy() {
    let r = reference();
    for p in r["pairs"].as_array().unwrap() {
        let a = floats(&r["samples"][p["a"].as_str().unwrap()]);
        let b = floats(&r["samples"][p["b"].as_str().unwrap()]);
        let what = format!("{} vs {}", p["a"], p["b"]);

        let auto = stats::mann_whitney_u(&a, &b).expect("mwu defined");
        let want = &p["mwu_auto"];
        close(
            &format!("{what} U"),
            Some(auto.u),
            want["u"].as_f64().unwrap(),
            REL,
        );
        let method = match auto.method {
            stats::MwMethod::Exact => "exact",
            stats::MwMethod::Asymptotic => "asymptotic",
        };
        assert_eq!(method, want["method"].as_str().unwrap(), "{what} method");
        // Exact p-values are ratios of integer counts: same tolerance.
        // Asymptotic ones go through our own erfc: 1e-6 relative as well,
        // the tail is computed directly, not as 1 - cdf.
        close(
            &format!("{what} p (auto)"),
            Some(auto.p),
            want["p"].as_f64().unwrap(),
            REL,
        );

        let asym = stats::mann_whitney_u_asymptotic(&a, &b).expect("mwu defined");
        let want = &p["mwu_asymptotic"];
        close(
            &format!("{what} U (asym)"),
            Some(asym.u),
            want["u"].as_f64().unwrap(),
            REL,
        );
        close(
            &format!("{what} p (asym)"),
            Some(asym.p),
            want["p"].as_f64().unwrap(),
            REL,
        );
    }
}

#[test]
fn bootstrap_matches_python_reimplementation_and_scipy_roughly() {
    let r = reference();
    for p in r["pairs"].as_array().unwrap() {
        let a = floats(&r["samples"][p["a"].as_str().unwrap()]);
        let b = floats(&r["samples"][p["b"].as_str().unwrap()]);
        let want = &p["bootstrap"];
        let what = format!("{} vs {}", p["a"], p["b"]);
        let got = stats::bootstrap_median_diff_ci(
            &a,
            &b,
            want["resamples"].as_u64().unwrap() as usize,
            want["confidence"].as_f64().unwrap(),
            want["seed"].as_u64().unwrap(),
        )
        .expect("bootstrap defined");
        // Same PRNG, same draws, numpy medians and percentiles: exact up to
        // float summation order.
        let abs = |x: f64, y: f64| (x - y).abs() <= 1e-9 * (1.0 + y.abs());
        assert!(
            abs(got.estimate, want["estimate"].as_f64().unwrap()),
            "{what} estimate"
        );
        assert!(
            abs(got.lo, want["lo"].as_f64().unwrap()),
            "{what} lo {got:?}"
        );
        assert!(
            abs(got.hi, want["hi"].as_f64().unwrap()),
            "{what} hi {got:?}"
        );
        // scipy.stats.bootstrap draws differently; the interval must still
        // be in the same place: within 15% of the data range.
        let sp = floats(&p["scipy_bootstrap_percentile"]);
        let all: Vec<f64> = a.iter().chain(&b).copied().collect();
        let range = stats::max(&all).unwrap() - stats::min(&all).unwrap();
        assert!((got.lo - sp[0]).abs() <= 0.15 * range, "{what} lo vs scipy");
        assert!((got.hi - sp[1]).abs() <= 0.15 * range, "{what} hi vs scipy");
    }
}

#[test]
fn histogram_tails_match_numpy_inverted_cdf() {
    for h in reference()["histograms"].as_array().unwrap() {
        let name = h["name"].as_str().unwrap();
        let buckets: Vec<(f64, u64)> = h["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b[0].as_f64().unwrap(), b[1].as_u64().unwrap()))
            .collect();
        let t = stats::histogram_tails(&buckets).expect("non-empty histogram");
        assert_eq!(t.count, h["count"].as_u64().unwrap(), "{name} count");
        assert_eq!(t.p50, h["p50"].as_f64().unwrap(), "{name} p50");
        assert_eq!(t.p99, h["p99"].as_f64().unwrap(), "{name} p99");
        assert_eq!(t.p99_9, h["p99_9"].as_f64().unwrap(), "{name} p99.9");
        assert_eq!(t.max, h["max"].as_f64().unwrap(), "{name} max");
    }
}

#[test]
fn special_functions_match_scipy() {
    let r = reference();
    for c in r["incomplete_beta"].as_array().unwrap() {
        let (a, b, x) = (
            c["a"].as_f64().unwrap(),
            c["b"].as_f64().unwrap(),
            c["x"].as_f64().unwrap(),
        );
        close(
            &format!("betainc({a}, {b}, {x})"),
            stats::regularized_incomplete_beta(a, b, x),
            c["value"].as_f64().unwrap(),
            REL,
        );
    }
    for c in r["t_two_sided"].as_array().unwrap() {
        let (t, df) = (c["t"].as_f64().unwrap(), c["df"].as_f64().unwrap());
        close(
            &format!("t={t} df={df}"),
            stats::student_t_two_sided_p(t, df),
            c["p"].as_f64().unwrap(),
            REL,
        );
    }
}
