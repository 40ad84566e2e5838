//! Seeded random streams: SplitMix64 to derive seeds, xoshiro256** to draw.
//!
//! Every entity (task, LRU generator, noise source) owns its own stream,
//! derived from (run seed, stable entity key), so that two variants of a
//! scenario draw the same numbers for the same entity (common random
//! numbers, spec §2.1). Nothing here reads a clock or the OS.

/// SplitMix64 step; used to expand seeds and to hash keys.
pub(crate) use reclaimlab_splitmix::step as splitmix64;

/// Mix a string key into a seed (FNV-1a then SplitMix), stable across runs
/// and platforms.
pub(crate) fn derive(seed: u64, key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut s = seed ^ h;
    splitmix64(&mut s)
}

/// xoshiro256** generator.
#[derive(Debug, Clone)]
pub(crate) struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        let mut st = seed;
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        Rng { s }
    }

    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub(crate) fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [lo, hi] (inclusive).
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// Exponential with the given mean.
    #[inline]
    pub(crate) fn exp(&mut self, mean: f64) -> f64 {
        mean * self.exp1()
    }

    /// Standard exponential (mean 1) by the Marsaglia-Tsang ziggurat with
    /// 256 layers: one draw and a table lookup in nearly all calls, a
    /// logarithm only in the tail (x > 7.69, 1 call in 2200).
    #[inline]
    pub(crate) fn exp1(&mut self) -> f64 {
        use crate::zig::{ZIG_EXP_F as F, ZIG_EXP_R, ZIG_EXP_X as X};
        loop {
            let bits = self.next_u64();
            // Low 8 bits pick the layer, the top 52 the position in it.
            let i = (bits & 0xff) as usize;
            let u = (bits >> 12) as f64 * (1.0 / (1u64 << 52) as f64);
            let x = u * X[i];
            if x < X[i + 1] {
                return x;
            }
            if i == 0 {
                // Base layer beyond R: the tail, R + Exp(1).
                return ZIG_EXP_R - (1.0 - self.f64()).ln();
            }
            if F[i + 1] + (F[i] - F[i + 1]) * self.f64() < (-x).exp() {
                return x;
            }
        }
    }

    /// Standard normal (Box-Muller, one value per call for simplicity).
    pub(crate) fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.f64();
        let u2 = self.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Sum of `n` per-item costs with mean `mu` and coefficient of variation
    /// `cv`, aggregated as the spec §2.3 says: a Normal(n·mu, n·(cv·mu)^2)
    /// truncated at zero. For small `n` this is close enough to the exact
    /// lognormal sum for latency maxima, and it costs one draw.
    pub(crate) fn cost(&mut self, n: f64, mu: f64, cv: f64) -> u64 {
        if n <= 0.0 || mu <= 0.0 {
            return 0;
        }
        let mean = n * mu;
        let sd = (n).sqrt() * cv * mu;
        let v = mean + sd * self.normal();
        v.max(mean * 0.05).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_distinct() {
        let mut a = Rng::new(derive(1, "task:cyclictest/0"));
        let mut b = Rng::new(derive(1, "task:cyclictest/0"));
        let mut c = Rng::new(derive(1, "task:cyclictest/1"));
        let va: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
    }

    #[test]
    fn exp_mean_is_close() {
        let mut r = Rng::new(7);
        let n = 100_000;
        let m: f64 = (0..n).map(|_| r.exp(20.0)).sum::<f64>() / n as f64;
        assert!((m - 20.0).abs() < 0.5, "{m}");
    }

    #[test]
    fn exp_distribution_matches() {
        // Mean, variance and tail fractions of Exp(1) from the ziggurat.
        let mut r = Rng::new(11);
        let n = 1_000_000;
        let v: Vec<f64> = (0..n).map(|_| r.exp1()).collect();
        let m = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        assert!((m - 1.0).abs() < 0.005, "mean {m}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
        for q in [0.1f64, 0.5, 1.0, 2.0, 4.0, 8.0] {
            let frac = v.iter().filter(|&&x| x > q).count() as f64 / n as f64;
            let want = (-q).exp();
            let sd = (want * (1.0 - want) / n as f64).sqrt();
            assert!(
                (frac - want).abs() < 5.0 * sd + 1e-6,
                "P(X > {q}) = {frac}, want {want}"
            );
        }
        assert!(v.iter().all(|&x| x >= 0.0 && x.is_finite()));
    }
}
