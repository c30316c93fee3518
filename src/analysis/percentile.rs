//! Percentiles as Perfetto computes them (SQLite `ext/misc/percentile.c`): sort, `ix = p/100·(n−1)`, linear
//! interpolation between the two neighbours — identical to numpy's default and Macrobenchmark.

/// The `p`-th percentile (0–100) of `sorted` (ascending); `None` when empty.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let ix = p / 100.0 * last as f64;
    let lo = ix.floor() as usize;
    let hi = if ix == lo as f64 || lo == last {
        lo
    } else {
        lo + 1
    };
    let (a, b) = (*sorted.get(lo)?, *sorted.get(hi)?);
    Some(a + (b - a) * (ix - lo as f64))
}

/// Percentile of integer ns values, truncated toward zero as SQL `CAST(... AS INTEGER)` does.
pub fn percentile_ns(sorted_ns: &[i64], p: f64) -> Option<i64> {
    let values: Vec<f64> = sorted_ns.iter().map(|v| *v as f64).collect();
    percentile(&values, p).map(|v| v as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_linearly_like_sqlite() {
        // Perfetto's metric oracle: {0.5, 0.5, 0.5, 1.5, 2.0} ms → p90 = 1.8 ms.
        let v = [0.5, 0.5, 0.5, 1.5, 2.0];
        assert!((percentile(&v, 90.0).unwrap() - 1.8).abs() < 1e-12);
        assert_eq!(percentile(&v, 0.0), Some(0.5));
        assert_eq!(percentile(&v, 100.0), Some(2.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile_ns(&[1, 2], 50.0), Some(1));
        assert_eq!(percentile_ns(&[7], 99.0), Some(7));
    }
}
