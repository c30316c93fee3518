//! The tests of `ftl diff`: Welch's t-test over runs, a circular block bootstrap over the frames of one trace, and
//! Holm / Benjamini–Hochberg adjustment over every (row, metric) tested. Distributions come from `statrs`;
//! resampling uses a ChaCha generator with a fixed seed, so the same inputs always give the same p-values.

use super::metric::{of_frames, FrameSample, Metric};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Two-sided p-value of Welch's unequal-variance t-test of mean(`new`) − mean(`base`) (Welch 1947; the
/// Welch–Satterthwaite degrees of freedom); `None` with fewer than 2 values on a side. When both sides have no
/// variance the p-value is 1 for equal means and 0 otherwise (the difference is exact).
pub fn welch_p(base: &[f64], new: &[f64]) -> Option<f64> {
    let (n1, n2) = (base.len() as f64, new.len() as f64);
    if base.len() < 2 || new.len() < 2 {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let var =
        |v: &[f64], m: f64| v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    let (m1, m2) = (mean(base), mean(new));
    let (a, b) = (var(base, m1) / n1, var(new, m2) / n2);
    let se2 = a + b;
    if se2 <= 0.0 || !se2.is_finite() {
        return Some(if m1 == m2 { 1.0 } else { 0.0 });
    }
    let t = (m2 - m1) / se2.sqrt();
    let df = se2 * se2 / (a * a / (n1 - 1.0) + b * b / (n2 - 1.0));
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some((2.0 * dist.sf(t.abs())).clamp(0.0, 1.0))
}

/// Block length of the block bootstrap for a series of `n` frames: ⌈√n⌉ (at least 1). Janks cluster
/// over a few frames (a long frame, the skipped slot after it, stuffed buffers behind it), so blocks must be
/// long compared with a cluster and short compared with the series; √n grows with the trace and gives ≥ √n
/// blocks per resample (Künsch 1989 / Lahiri 2003 take n^(1/3)–n^(1/2); √n is the conservative end).
pub fn block_len(n: usize) -> usize {
    (n as f64).sqrt().ceil().max(1.0) as usize
}

/// One circular block bootstrap resample of `frames` (same length; Politis & Romano 1992): blocks of
/// [`block_len`] consecutive frames starting at uniformly drawn positions, wrapping past the end so that every
/// frame is drawn equally often (plain moving blocks under-draw both ends and shrink the variance), concatenated
/// and cut to the original length.
fn resample<'a>(frames: &'a [FrameSample], rng: &mut ChaCha8Rng, out: &mut Vec<&'a FrameSample>) {
    out.clear();
    let n = frames.len();
    let len = block_len(n);
    while out.len() < n {
        let start = rng.random_range(0..n);
        let take = len.min(n - out.len());
        out.extend((start..start + take).map(|i| &frames[i % n]));
    }
}

/// Moving-block bootstrap test of every frame metric between two frame series (each in time order): for each of
/// `resamples` rounds, both series are resampled independently (`resample`: circular blocks) and the difference new − base of
/// each metric recorded. The p-value of an observed difference d is two-sided from the normal approximation with
/// the bootstrap standard error s of the difference: 2·(1 − Φ(|d| / s)), from the survival function so that
/// large z keep their tiny p-values (Efron & Tibshirani 1993, §16); with
/// s = 0 it is 1 for d = 0 and 0 otherwise. Returns one p-value per frame metric (the first [`Metric::FRAME_COUNT`] of [`Metric::ALL`]) (`None` where the
/// metric is undefined on a side, and for `frames`, which is not tested). `seed` fixes the generator.
pub fn bootstrap_p(
    base: &[FrameSample],
    new: &[FrameSample],
    resamples: usize,
    seed: u64,
) -> [Option<f64>; Metric::FRAME_COUNT] {
    let mut scratch = Default::default();
    let observed_base = of_frames(base.iter(), &mut scratch);
    let observed_new = of_frames(new.iter(), &mut scratch);
    let mut out = [None; Metric::FRAME_COUNT];
    if base.is_empty() || new.is_empty() || resamples < 2 {
        return out;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut rb, mut rn) = (
        Vec::with_capacity(base.len()),
        Vec::with_capacity(new.len()),
    );
    // Per metric: Σ d*, Σ d*², rounds where both sides are defined.
    let mut sums = [(0.0f64, 0.0f64, 0usize); Metric::FRAME_COUNT];
    for _ in 0..resamples {
        resample(base, &mut rng, &mut rb);
        resample(new, &mut rng, &mut rn);
        let b = of_frames(rb.iter().copied(), &mut scratch);
        let n = of_frames(rn.iter().copied(), &mut scratch);
        for i in 0..Metric::FRAME_COUNT {
            if let (Some(x), Some(y)) = (b[i], n[i]) {
                let d = y - x;
                sums[i].0 += d;
                sums[i].1 += d * d;
                sums[i].2 += 1;
            }
        }
    }
    let normal = Normal::standard();
    for (i, metric) in Metric::ALL[..Metric::FRAME_COUNT].iter().enumerate() {
        let (Some(x), Some(y), (s, s2, k)) = (observed_base[i], observed_new[i], sums[i]) else {
            continue;
        };
        if metric.higher_is_worse().is_none() || k < 2 {
            continue;
        }
        let k = k as f64;
        let var = ((s2 - s * s / k) / (k - 1.0)).max(0.0);
        let d = y - x;
        out[i] = Some(if var.sqrt() <= 1e-12 * d.abs().max(1.0) {
            if d == 0.0 {
                1.0
            } else {
                0.0
            }
        } else {
            (2.0 * normal.sf(d.abs() / var.sqrt())).clamp(0.0, 1.0)
        });
    }
    out
}

/// How p-values are adjusted for the number of (row, metric) pairs tested.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Correction {
    /// Holm's step-down (family-wise error rate; Holm 1979).
    #[default]
    Holm,
    /// Benjamini–Hochberg step-up (false discovery rate; Benjamini & Hochberg 1995).
    BenjaminiHochberg,
    /// None.
    None,
}

impl Correction {
    /// The name used in outputs (`holm`, `bh`, `none`).
    pub fn name(self) -> &'static str {
        match self {
            Correction::Holm => "holm",
            Correction::BenjaminiHochberg => "bh",
            Correction::None => "none",
        }
    }

    /// The adjusted p-values of `p`, same order; each in [0, 1].
    pub fn adjust(self, p: &[f64]) -> Vec<f64> {
        let m = p.len();
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
        let mut out = vec![0.0; m];
        match self {
            Correction::None => return p.iter().map(|v| v.clamp(0.0, 1.0)).collect(),
            Correction::Holm => {
                let mut running = 0.0f64;
                for (rank, &i) in order.iter().enumerate() {
                    running = running.max(((m - rank) as f64 * p[i]).min(1.0));
                    out[i] = running;
                }
            }
            Correction::BenjaminiHochberg => {
                let mut running = 1.0f64;
                for (rank, &i) in order.iter().enumerate().rev() {
                    running = running.min((p[i] * m as f64 / (rank + 1) as f64).min(1.0));
                    out[i] = running;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_matches_a_hand_computed_case() {
        // base mean 2, var 1 (n 3); new mean 5, var 1 (n 3): t = 3 / √(2/3) = 3.674, df = 4; two-sided p of
        // t(4) at 3.674 = 0.02131 (R: 2*pt(-3.674235, 4)).
        let p = welch_p(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert!((p - 0.02131).abs() < 1e-4, "{p}");
        assert_eq!(welch_p(&[1.0, 1.0], &[1.0, 1.0]), Some(1.0));
        assert_eq!(welch_p(&[1.0, 1.0], &[2.0, 2.0]), Some(0.0));
        assert_eq!(welch_p(&[1.0], &[2.0, 2.0]), None);
    }

    #[test]
    fn holm_and_bh_match_hand_adjustments() {
        let p = [0.01, 0.04, 0.03, 0.2];
        // Holm: sorted 0.01·4 = 0.04, 0.03·3 = 0.09, 0.04·2 = 0.08 → 0.09 (monotone), 0.2·1 → 0.2.
        let holm = Correction::Holm.adjust(&p);
        for (got, want) in holm.iter().zip([0.04, 0.09, 0.09, 0.2]) {
            assert!((got - want).abs() < 1e-12, "{holm:?}");
        }
        // BH: 0.2·4/4 = 0.2, 0.04·4/3 = 0.0533, 0.03·4/2 = 0.06 → 0.0533, 0.01·4 = 0.04.
        let bh = Correction::BenjaminiHochberg.adjust(&p);
        for (got, want) in bh.iter().zip([0.04, 0.053_333, 0.053_333, 0.2]) {
            assert!((got - want).abs() < 1e-5, "{bh:?}");
        }
    }

    /// `n` frames, each janky with probability `janky_in_100` % (ChaCha from `seed`), janky ones twice as long.
    fn series(n: usize, janky_in_100: usize, seed: u64) -> Vec<FrameSample> {
        let dur_ms = 10.0;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|i| {
                let janky = rng.random_range(0..100) < janky_in_100;
                FrameSample {
                    start_ns: i as i64,
                    dur_ms: Some(if janky { 2.0 * dur_ms } else { dur_ms }),
                    overrun_ms: Some(0.0),
                    janky,
                    app_janky: janky,
                    sf_janky: false,
                    dropped: false,
                }
            })
            .collect()
    }

    #[test]
    fn bootstrap_finds_a_real_change_and_not_a_copy() {
        let base = series(900, 3, 1);
        let same = bootstrap_p(&base, &base, 400, 1);
        assert_eq!(same[1], Some(1.0), "a series against itself: d = 0");
        assert_eq!(same[0], None, "frames is not tested");
        // janky 3 % → 10 %: the standard error of the difference is ≈ 1.2 points, z ≈ 6.
        let worse = bootstrap_p(&base, &series(900, 10, 2), 400, 1);
        assert!(worse[1].unwrap() < 1e-4, "{:?}", worse[1]);
        // Another draw at the same 3 %: noise.
        let same_rate = bootstrap_p(&base, &series(900, 3, 3), 400, 1);
        assert!(same_rate[1].unwrap() > 0.05, "{:?}", same_rate[1]);
        // Deterministic for a seed.
        assert_eq!(worse, bootstrap_p(&base, &series(900, 10, 2), 400, 1));
        assert_eq!(block_len(900), 30);
        assert_eq!(block_len(1), 1);
    }
}
