#!/usr/bin/env python3
"""Reference values for crates/report/src/stats.rs.

Run from this directory:   python3 gen_reference.py > reference.json
Produced with scipy 1.17.1, numpy 2.4.6 (versions are recorded in the JSON).

Every number below comes from scipy/numpy except the bootstrap, whose
resampling depends on the PRNG: it is re-implemented here with the same
SplitMix64 + multiply-shift index draw as the Rust code, and the medians and
percentiles are numpy's. A scipy.stats.bootstrap interval on the same data is
recorded too, as a loose sanity check of the method (different random draws).
"""
import json
import sys

import numpy as np
import scipy
from scipy import stats

SAMPLES = {
    # seed 004 style elapsed times (seconds), with repeated runs invented
    # around the printed means
    "elapsd_vanilla": [292.89, 301.2, 285.4, 296.7, 290.1],
    "elapsd_batch": [219.95, 231.0, 210.3, 225.8, 214.4],
    "small_a": [1.0, 2.0, 3.0],
    "small_b": [4.0, 5.0, 6.5],
    "ties_a": [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0],
    "ties_b": [2.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0, 6.0],
    "wide_a": [0.012, 1.5, 30.0, 4000.0, 2.25, 17.0, 0.5, 90.0, 11.0, 3.0],
    "wide_b": [0.02, 2.5, 45.0, 6100.0, 3.5, 21.0, 0.75, 130.0, 16.0, 4.0,
               8.0, 19.0],
    "far_a": [10.0, 10.1, 9.9, 10.05, 9.95, 10.02, 9.98, 10.01, 9.99, 10.03],
    "far_b": [20.0, 20.1, 19.9, 20.05, 19.95, 20.02, 19.98, 20.01, 19.99,
              20.03],
    "rates_a": [1203.5, 1187.2, 1250.9, 1199.0],
    "rates_b": [1302.1, 1288.7, 1275.4, 1311.0, 1290.2],
    "single": [42.0],
    "pair": [1.0, 3.0],
}

PAIRS = [
    ("elapsd_vanilla", "elapsd_batch"),
    ("small_a", "small_b"),
    ("ties_a", "ties_b"),
    ("wide_a", "wide_b"),
    ("far_a", "far_b"),
    ("rates_a", "rates_b"),
    ("small_b", "small_a"),
]

PERCENTILES = [0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0]

HISTOGRAMS = {
    # cyclictest -h style: (bucket lower bound in us, count)
    "cyclictest": [(1.0, 5000), (2.0, 120000), (3.0, 600000), (4.0, 250000),
                   (5.0, 20000), (6.0, 4000), (8.0, 900), (12.0, 90),
                   (40.0, 9), (1969.0, 1)],
    "unsorted_with_empty": [(10.0, 3), (0.0, 0), (2.0, 7), (5.0, 0),
                            (7.0, 1)],
    "one_bucket": [(17.0, 4)],
    "exact_boundary": [(1.0, 999), (2.0, 1)],
    "thousand": [(float(i), 1) for i in range(1, 1001)],
}


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return state, z ^ (z >> 31)


def bootstrap(a, b, resamples, confidence, seed):
    state = seed
    diffs = []
    for _ in range(resamples):
        ra, rb = [], []
        for _ in a:
            state, r = splitmix64(state)
            ra.append(a[(r * len(a)) >> 64])
        for _ in b:
            state, r = splitmix64(state)
            rb.append(b[(r * len(b)) >> 64])
        diffs.append(float(np.median(rb) - np.median(ra)))
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.percentile(diffs, [alpha * 100.0, (1.0 - alpha) * 100.0])
    return float(np.median(b) - np.median(a)), float(lo), float(hi)


def describe(xs):
    x = np.asarray(xs)
    out = {
        "amean": float(np.mean(x)),
        "hmean": float(stats.hmean(x)),
        "gmean": float(stats.gmean(x)),
        "min": float(np.min(x)),
        "max": float(np.max(x)),
        "median": float(np.median(x)),
        "percentiles": [[q, float(np.percentile(x, q))] for q in PERCENTILES],
    }
    if len(x) >= 2:
        out["stddev"] = float(np.std(x, ddof=1))
        out["cov"] = float(stats.variation(x, ddof=1))
    return out


def main():
    ref = {
        "generator": "gen_reference.py",
        "scipy": scipy.__version__,
        "numpy": np.__version__,
        "samples": SAMPLES,
        "describe": {k: describe(v) for k, v in SAMPLES.items()},
        "pairs": [],
        "histograms": [],
        "incomplete_beta": [],
        "t_two_sided": [],
    }
    for ka, kb in PAIRS:
        a, b = SAMPLES[ka], SAMPLES[kb]
        w = stats.ttest_ind(a, b, equal_var=False)
        auto = stats.mannwhitneyu(a, b, alternative="two-sided",
                                  method="auto")
        asym = stats.mannwhitneyu(a, b, alternative="two-sided",
                                  method="asymptotic", use_continuity=True)
        has_ties = len(set(a + b)) < len(a) + len(b)
        auto_method = ("exact" if min(len(a), len(b)) <= 8 and not has_ties
                       else "asymptotic")
        est, lo, hi = bootstrap(a, b, 2000, 0.95, 12345)
        sb = stats.bootstrap(
            (b, a), lambda y, x, axis: np.median(y, axis=axis)
            - np.median(x, axis=axis), vectorized=True, n_resamples=2000,
            confidence_level=0.95, method="percentile", random_state=1)
        ref["pairs"].append({
            "a": ka, "b": kb,
            "welch": {"t": float(w.statistic), "df": float(w.df),
                      "p": float(w.pvalue)},
            "mwu_auto": {"u": float(auto.statistic), "p": float(auto.pvalue),
                         "method": auto_method},
            "mwu_asymptotic": {"u": float(asym.statistic),
                               "p": float(asym.pvalue)},
            "bootstrap": {"resamples": 2000, "confidence": 0.95,
                          "seed": 12345, "estimate": est, "lo": lo,
                          "hi": hi},
            "scipy_bootstrap_percentile": [
                float(sb.confidence_interval.low),
                float(sb.confidence_interval.high)],
        })
    for name, buckets in HISTOGRAMS.items():
        lowers = np.array([b for b, c in buckets for _ in range(c)])
        ref["histograms"].append({
            "name": name,
            "buckets": buckets,
            "p50": float(np.percentile(lowers, 50, method="inverted_cdf")),
            "p99": float(np.percentile(lowers, 99, method="inverted_cdf")),
            "p99_9": float(np.percentile(lowers, 99.9,
                                         method="inverted_cdf")),
            "max": float(np.max(lowers)),
            "count": int(len(lowers)),
        })
    for a, b, x in [(0.5, 0.5, 0.3), (2.0, 3.0, 0.4), (10.0, 0.5, 0.9),
                    (0.5, 0.5, 1e-6), (50.0, 0.5, 0.2), (1.5, 0.5, 0.999),
                    (200.0, 300.0, 0.41), (3.0, 0.5, 0.01)]:
        ref["incomplete_beta"].append(
            {"a": a, "b": b, "x": x,
             "value": float(scipy.special.betainc(a, b, x))})
    for t, df in [(0.5, 3.0), (2.1, 7.3), (-4.0, 12.0), (25.0, 17.9),
                  (1.96, 1e6), (0.0, 5.0), (8.0, 2.2)]:
        ref["t_two_sided"].append(
            {"t": t, "df": df, "p": float(2 * stats.t.sf(abs(t), df))})
    json.dump(ref, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
