//! Percentiles as Perfetto computes them (SQLite `ext/misc/percentile.c`): sort, `ix = p/100·(n−1)`, linear
//! interpolation between the two neighbours — identical to numpy's default and Macrobenchmark.

/// The `p`-th percentile (0–100) of `sorted` (ascending); `None` when empty.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    percentile_by(sorted.len(), |i| sorted[i], p)
}

/// [`percentile`] of the `n` ascending values `value(0)`, …, `value(n − 1)`, read where they are (no copy of
/// the values is made); `None` when `n` is 0.
pub fn percentile_by(n: usize, value: impl Fn(usize) -> f64, p: f64) -> Option<f64> {
    let last = n.checked_sub(1)?;
    let ix = p / 100.0 * last as f64;
    let lo = ix.floor() as usize;
    if lo > last {
        return None;
    }
    let hi = if ix == lo as f64 || lo == last {
        lo
    } else {
        lo + 1
    };
    if hi > last {
        return None;
    }
    let (a, b) = (value(lo), value(hi));
    Some(a + (b - a) * (ix - lo as f64))
}

/// Percentile of integer ns values, truncated toward zero as SQL `CAST(... AS INTEGER)` does.
pub fn percentile_ns(sorted_ns: &[i64], p: f64) -> Option<i64> {
    percentile_by(sorted_ns.len(), |i| sorted_ns[i] as f64, p).map(|v| v as i64)
}

/// Macrobenchmark's `MetricResult.getPercentile` (androidx `benchmark-common`): the same interpolation with
/// Kotlin's operation order — `idealIndex = p / 100.0 × (n − 1)`, `a × (1 − r) + b × r` — which differs from
/// [`percentile`] in the last bits (e.g. P95 of [0, 50, 100] is 94.99999999999999 there). `None` when empty.
pub fn macrobenchmark_percentile(sorted: &[f64], p: u32) -> Option<f64> {
    let ideal = f64::from(p.min(100)) / 100.0 * (sorted.len().checked_sub(1)? as f64);
    let first = ideal as usize;
    let a = *sorted.get(first)?;
    let b = sorted.get(first + 1).copied().unwrap_or(a);
    let ratio = ideal - first as f64;
    Some(a * (1.0 - ratio) + b * ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macrobenchmark_percentiles_match_its_json() {
        // androidx ResultWriterTest: data [0, 50, 100] → P50 50.0, P90 90.0, P95 94.99999999999999, P99 99.0.
        let v = [0.0, 50.0, 100.0];
        assert_eq!(macrobenchmark_percentile(&v, 50), Some(50.0));
        assert_eq!(macrobenchmark_percentile(&v, 90), Some(90.0));
        assert_eq!(macrobenchmark_percentile(&v, 95), Some(94.99999999999999));
        assert_eq!(macrobenchmark_percentile(&v, 99), Some(99.0));
        assert_eq!(macrobenchmark_percentile(&[], 50), None);
    }

    #[test]
    fn interpolates_linearly_like_sqlite() {
        // Perfetto's metric oracle: {0.5, 0.5, 0.5, 1.5, 2.0} ms → p90 = 1.8 ms.
        let v = [0.5, 0.5, 0.5, 1.5, 2.0];
        assert!((percentile(&v, 90.0).unwrap() - 1.8).abs() < 1e-12);
        assert_eq!(percentile(&v, 0.0), Some(0.5));
        assert_eq!(percentile(&v, 100.0), Some(2.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&v, 150.0), None);
        assert_eq!(percentile(&v, f64::INFINITY), None);
        assert_eq!(percentile_ns(&[1, 2], 50.0), Some(1));
        assert_eq!(percentile_ns(&[7], 99.0), Some(7));
    }
}
