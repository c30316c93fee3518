//! Present-based pacing metrics of one [`FrameSeries`], named as their owners name them: Chromium's
//! `surface_stats_collector` (`avg_surface_fps`, `jank_count`, `max_frame_delay`, `frame_lengths` and the `_99` /
//! `_50` buckets), PerfDog's Jank / BigJank / Stutter, FPS per second with its min / mean / variance and the 1 % /
//! 0.1 % low FPS, and the present-based smoothness `sm`. Every source with present times gets all of them
//! (definitions: `shared/docs/frame-sources.md` §3–§6).

use super::idle::{activity, idle_intervals, Activity};
use crate::model::FrameSeries;
use serde::Serialize;

/// Nanoseconds per second.
const SECOND_NS: i64 = 1_000_000_000;
/// Chromium `_MIN_NORMALIZED_FRAME_LENGTH`: present deltas under half a refresh period are not frames.
const MIN_NORMALIZED_FRAME_LENGTH: f64 = 0.5;
/// Chromium `pause_threshold`: a rise of this many vsyncs or more is a pause, not a jank.
const PAUSE_THRESHOLD: f64 = 20.0;

/// Chromium `surface_stats_collector` results over some present times (`_CalculateResults`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SurfaceStats {
    /// `int(round((frame_count − 1) / seconds))`, frames/s (Python rounding: halves to even).
    pub avg_surface_fps: i64,
    /// Rises of the normalised frame length that round to 1..19 vsyncs.
    pub jank_count: u64,
    /// Longest normalised frame length, rounded, vsyncs.
    pub max_frame_delay: i64,
    /// Present-to-present deltas of at least half a refresh period, in refresh periods.
    pub frame_lengths: Vec<f64>,
}

/// Chromium's per-bucket failure messages, kept as its diagnostics.
const EMPTY_DATA: &str = "Surface stat data is empty";
const NO_LENGTHS: &str = "No valid frames lengths found.";

/// Chromium `_CalculateResults` over present times (ns, ascending) with `period_ns`: deltas under half a period
/// are dropped (and `frame_count` reduced to match), then `avg_surface_fps`, `jank_count`, `max_frame_delay` and
/// the normalised `frame_lengths`. Arithmetic in float seconds as Chromium's Python does.
///
/// Errors (Chromium raises them; ftl reports them as diagnostics): fewer than 3 presents or no period
/// (`Surface stat data is empty`), every delta under half a period (`No valid frames lengths found.`).
pub fn surface_stats(presents_ns: &[i64], period_ns: i64) -> Result<SurfaceStats, &'static str> {
    if period_ns <= 0 || presents_ns.len() < 3 {
        return Err(EMPTY_DATA);
    }
    let refresh_period = period_ns as f64 / 1e9;
    let seconds_of = |t: i64| t as f64 / 1e9;
    // Kept deltas (seconds) in a single pass; Python's `d / refresh_period >= 0.5` filter.
    let frame_lengths: Vec<f64> = presents_ns
        .windows(2)
        .map(|w| seconds_of(w[1]) - seconds_of(w[0]))
        .filter(|d| d / refresh_period >= MIN_NORMALIZED_FRAME_LENGTH)
        .collect();
    let mut frame_count = presents_ns.len();
    if frame_lengths.len() < frame_count - 1 {
        frame_count = frame_lengths.len() + 1;
    }
    if frame_lengths.is_empty() {
        return Err(NO_LENGTHS);
    }
    let (first, last) = match (presents_ns.first(), presents_ns.last()) {
        (Some(f), Some(l)) => (seconds_of(*f), seconds_of(*l)),
        _ => return Err(EMPTY_DATA),
    };
    let seconds = last - first;
    let jank_count = frame_lengths
        .windows(2)
        .map(|w| f64::round_ties_even((w[1] - w[0]) / refresh_period).max(0.0))
        .filter(|j| *j > 0.0 && *j < PAUSE_THRESHOLD)
        .count() as u64;
    let mut normalized = frame_lengths;
    for d in &mut normalized {
        *d /= refresh_period;
    }
    let max_frame_delay = normalized.iter().copied().fold(f64::MIN, f64::max);
    Ok(SurfaceStats {
        avg_surface_fps: f64::round_ties_even((frame_count - 1) as f64 / seconds) as i64,
        jank_count,
        max_frame_delay: f64::round_ties_even(max_frame_delay) as i64,
        frame_lengths: normalized,
    })
}

/// Chromium `_CalculateBuckets`: the tail of the present times that `pct` (0.99 or 0.5) selects —
/// `timestamps[min(int(−pct·n), −3):]`, Python slicing.
pub fn bucket(presents_ns: &[i64], pct: f64) -> &[i64] {
    let n = presents_ns.len() as i64;
    let start = ((-pct * n as f64) as i64).min(-3);
    let from = (n + start).max(0) as usize;
    presents_ns.get(from..).unwrap_or_default()
}

/// PerfDog's Jank / BigJank / Stutter over present times (PerfDog's published definition, frame-sources.md §5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PerfDog {
    /// Intervals with `T > 2 × mean(previous three)` and `T > 2 × 1000/24 ms` (BigJanks included).
    pub jank: u64,
    /// Intervals with `T > 2 × mean(previous three)` and `T > 3 × 1000/24 ms`.
    pub big_jank: u64,
    /// Σ T over Jank intervals ÷ (last present − first present), %.
    pub stutter_pct: f64,
}

/// One interval meeting PerfDog's Jank rule: `presents[index] → presents[index + 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JankInterval {
    /// Index of the interval's first present in the present times.
    pub index: usize,
    /// Its length `T`, ns.
    pub ns: i64,
    /// Also a BigJank (`T > 3 × 1000/24 ms`).
    pub big: bool,
}

/// The intervals meeting PerfDog's Jank rule (BigJanks included, flagged) over present times (ns, ascending), in
/// order, without allocating. Comparisons are exact in integer ns: `T > 2 × mean(a, b, c)` is
/// `3T > 2(a + b + c)`, `T > 2000/24 ms` is `24T > 2 × 10⁹`.
pub fn perfdog_janks(presents_ns: &[i64]) -> impl Iterator<Item = JankInterval> + '_ {
    let second = i128::from(SECOND_NS);
    // Five presents give the four intervals of one test: three before, and the one tested.
    (3..)
        .zip(presents_ns.windows(5))
        .filter_map(move |(index, w)| {
            let previous = i128::from(w[3]) - i128::from(w[0]);
            let t = i128::from(w[4]) - i128::from(w[3]);
            (3 * t > 2 * previous && 24 * t > 2 * second).then_some(JankInterval {
                index,
                ns: w[4].saturating_sub(w[3]),
                big: 24 * t > 3 * second,
            })
        })
}

/// PerfDog's metrics over present times (ns, ascending), from [`perfdog_janks`]; `None` with fewer than two
/// presents.
pub fn perfdog(presents_ns: &[i64]) -> Option<PerfDog> {
    let (first, last) = (presents_ns.first()?, presents_ns.last()?);
    if last <= first {
        return None;
    }
    let (mut jank, mut big_jank, mut jank_ns) = (0u64, 0u64, 0i128);
    for j in perfdog_janks(presents_ns) {
        jank += 1;
        big_jank += u64::from(j.big);
        jank_ns += i128::from(j.ns);
    }
    Some(PerfDog {
        jank,
        big_jank,
        stutter_pct: jank_ns as f64 * 100.0 / (*last as f64 - *first as f64),
    })
}

/// Longest span given per-second series (31 days of windows); a longer one is a clock fault, not a capture.
const MAX_WINDOWS: i128 = 31 * 86_400;

/// Past a day of windows, per-second series also need one present a minute on average ([`WINDOWS_PER_PRESENT`]):
/// a series of days with a few presents is nearly all empty windows, as one corrupt timestamp makes it, and each
/// window costs 8 bytes in every per-second column of every layer (found by fuzzing: 256 MB for a 256 KiB trace).
const DAY_WINDOWS: i128 = 86_400;

/// See [`DAY_WINDOWS`].
const WINDOWS_PER_PRESENT: i128 = 60;

/// The one-second window of `t` from `t0`: `(t − t0) / 1 s`, none before `t0`. The difference is a `u64`, exact
/// for any pair of i64 times (a 128-bit division per present was most of the per-second series' time).
fn window_of(t0: i64, t: i64) -> Option<usize> {
    let since = (t >= t0).then(|| t.abs_diff(t0))?;
    usize::try_from(since / SECOND_NS.unsigned_abs()).ok()
}

/// One-second windows `[t0 + k s, t0 + (k+1) s)` from the first present `t0`, the last partial window left out
/// (frame-sources.md §6): the number of whole windows; `None` when the presents span more than 31 days, or more
/// than a day with fewer than one present a minute ([`DAY_WINDOWS`]).
fn whole_seconds(presents_ns: &[i64]) -> Option<usize> {
    match (presents_ns.first(), presents_ns.last()) {
        (Some(f), Some(l)) => {
            let windows = (i128::from(*l) - i128::from(*f)) / i128::from(SECOND_NS);
            let sparse =
                windows > DAY_WINDOWS && windows > WINDOWS_PER_PRESENT * presents_ns.len() as i128;
            (windows <= MAX_WINDOWS && !sparse)
                .then(|| usize::try_from(windows).ok())
                .flatten()
        }
        _ => Some(0),
    }
}

/// Presents per one-second window (frame-sources.md §6), ns ascending in; empty when the span is too long
/// for per-second series (`whole_seconds`).
pub fn fps_per_second(presents_ns: &[i64]) -> Vec<u64> {
    let mut counts = vec![0u64; whole_seconds(presents_ns).unwrap_or(0)];
    if let Some(t0) = presents_ns.first() {
        for p in presents_ns {
            if let Some(c) = window_of(*t0, *p).and_then(|w| counts.get_mut(w)) {
                *c += 1;
            }
        }
    }
    counts
}

/// GameBench's "low FPS" for each of `fractions` (descending, e.g. `[0.01, 0.001]`): 1000 / mean of the worst
/// ⌈`fraction` × n⌉ frame times (ms), at least one frame; `None` without frame times. One partial selection
/// (O(n)), not a sort: a capture may hold millions of frames.
pub fn low_fps<const N: usize>(presents_ns: &[i64], fractions: [f64; N]) -> [Option<f64>; N] {
    let mut times: Vec<i64> = presents_ns
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .collect();
    let mut out = [None; N];
    let n = times.len();
    let mut worst: &mut [i64] = &mut times;
    for (fraction, low) in fractions.iter().zip(out.iter_mut()) {
        if n == 0 {
            break;
        }
        let k = ((fraction * n as f64).ceil() as usize).clamp(1, n);
        if k < worst.len() {
            worst.select_nth_unstable_by(k - 1, |a, b| b.cmp(a));
        }
        worst = worst.get_mut(..k).unwrap_or_default();
        let mean_ns = worst.iter().map(|t| *t as f64).sum::<f64>() / k as f64;
        *low = (mean_ns > 0.0).then(|| 1e9 / mean_ns);
    }
    out
}

/// The present-based smoothness per one-second window (frame-sources.md §4, ftl's definition): each presented
/// frame with a desired present misses `max(0, round((present − desired) / period))` vsyncs (halves up); a
/// window's `sm = round(1 s / period) − Σ missed`, floored at 0; an idle window is smooth. Windows as
/// [`fps_per_second`]. `frames` are `(desired_present_ns, present_ns)`; `None` when no frame has a desired
/// present or the period is unknown.
pub fn sm_per_second(
    frames: impl IntoIterator<Item = (i64, i64)>,
    presents_ns: &[i64],
    period_ns: i64,
) -> Option<Vec<i64>> {
    let mut frames = frames.into_iter().peekable();
    if frames.peek().is_none() || period_ns <= 0 {
        return None;
    }
    let t0 = *presents_ns.first()?;
    let rate = (SECOND_NS as f64 / period_ns as f64).round() as i64;
    let mut missed = vec![0i64; whole_seconds(presents_ns)?];
    for (desired, present) in frames {
        let late = present.saturating_sub(desired).max(0);
        let vsyncs = late.saturating_add(period_ns / 2) / period_ns;
        if present >= t0 {
            if let Some(m) = window_of(t0, present).and_then(|w| missed.get_mut(w)) {
                *m = m.saturating_add(vsyncs);
            }
        }
    }
    Some(missed.into_iter().map(|m| (rate - m).max(0)).collect())
}

/// Every pacing metric of one series. Absent values are `None` (too few presents, no period, no desired
/// presents); why is in `pacing_diagnostics`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Pacing {
    /// Distinct present times (for a trace layer: its frames whose DisplayFrame ended, dropped ones excluded).
    pub presented_frames: u64,
    /// Present-to-present frame rate over the whole span, frames/s: (presents − 1) / (last − first present).
    pub fps: Option<f64>,
    /// Which time the presents are (`present fence`, `DisplayPresentTime`, `FrameCompleted (...)`).
    pub presents_from: &'static str,
    /// First present, ns on the source's clock.
    pub first_present_ns: Option<i64>,
    /// Last present, ns.
    pub last_present_ns: Option<i64>,
    /// Refresh period the frame lengths are normalised by, ms.
    pub refresh_period_ms: Option<f64>,
    /// Where the refresh period came from.
    pub period_from: &'static str,
    /// surface_stats_collector `avg_surface_fps` (integer), frames/s.
    pub avg_surface_fps: Option<i64>,
    /// surface_stats_collector `jank_count`.
    pub jank_count: Option<u64>,
    /// surface_stats_collector `max_frame_delay`, vsyncs.
    pub max_frame_delay: Option<i64>,
    /// surface_stats_collector `frame_lengths`, vsyncs.
    pub frame_lengths: Option<Vec<f64>>,
    /// `avg_surface_fps` of the last 99 % of presents.
    pub avg_surface_fps_99: Option<i64>,
    /// `jank_count` of the last 99 %.
    pub jank_count_99: Option<u64>,
    /// `max_frame_delay` of the last 99 %.
    pub max_frame_delay_99: Option<i64>,
    /// `frame_lengths` of the last 99 %.
    pub frame_lengths_99: Option<Vec<f64>>,
    /// `avg_surface_fps` of the last 50 %.
    pub avg_surface_fps_50: Option<i64>,
    /// `jank_count` of the last 50 %.
    pub jank_count_50: Option<u64>,
    /// `max_frame_delay` of the last 50 %.
    pub max_frame_delay_50: Option<i64>,
    /// `frame_lengths` of the last 50 %.
    pub frame_lengths_50: Option<Vec<f64>>,
    /// PerfDog Jank count (BigJanks included).
    pub perfdog_jank: Option<u64>,
    /// PerfDog BigJank count.
    pub perfdog_big_jank: Option<u64>,
    /// PerfDog Stutter, %.
    pub perfdog_stutter_pct: Option<f64>,
    /// Idle gaps and the numbers without them: `idle_gaps`, `active_s`, `active_fps`, `perfdog_jank_active`,
    /// `perfdog_big_jank_active`, `perfdog_stutter_pct_active` ([`super::idle`]).
    #[serde(flatten)]
    pub activity: Activity,
    /// Presents in each whole second from the first present.
    pub fps_per_second: Vec<u64>,
    /// Lowest of `fps_per_second`.
    pub fps_min: Option<f64>,
    /// Mean of `fps_per_second`.
    pub fps_mean: Option<f64>,
    /// Population variance of `fps_per_second` (PerfDog's Var(FPS)).
    pub fps_variance: Option<f64>,
    /// 1 % low FPS (GameBench).
    pub fps_1pct_low: Option<f64>,
    /// 0.1 % low FPS.
    pub fps_0_1pct_low: Option<f64>,
    /// Present-based smoothness per whole second (frame-sources.md §4).
    pub sm_per_second: Option<Vec<i64>>,
    /// Mean of `sm_per_second`.
    pub sm: Option<f64>,
    /// Lowest of `sm_per_second`.
    pub sm_min: Option<i64>,
    /// Tencent GT's SM per one-second tick from Choreographer logs ([`super::gt`]); `None` for present-based
    /// sources, which have `sm` instead.
    pub gt_sm_per_second: Option<Vec<i64>>,
    /// Mean of `gt_sm_per_second`.
    pub gt_sm: Option<f64>,
    /// Lowest of `gt_sm_per_second`.
    pub gt_sm_min: Option<i64>,
    /// Why some numbers are absent (Chromium's error messages, per bucket).
    pub pacing_diagnostics: Vec<String>,
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Computes every pacing metric of `series` (its distinct presents, its period, its desired presents).
/// Chromium's three buckets are computed beside the rest (`rayon::join`: on a long series each part takes
/// milliseconds, and the other core is often free by then, the largest layer finishing last).
pub fn pacing(series: &FrameSeries) -> Pacing {
    let presents = series.presents();
    let period = series.period_ns.unwrap_or(0);
    let (buckets, mut p) = rayon::join(
        || {
            (period > 0).then(|| {
                [
                    presents.as_slice(),
                    bucket(&presents, 0.99),
                    bucket(&presents, 0.5),
                ]
                .map(|slice| surface_stats(slice, period))
            })
        },
        || without_buckets(series, &presents, period),
    );
    let mut diagnostics = Vec::new();
    match buckets {
        None => diagnostics.push("surface_stats_collector: no refresh period".to_string()),
        Some([whole, last_99, last_50]) => {
            let mut fields = |suffix: &str, stats: Result<SurfaceStats, &str>| match stats {
                Ok(s) => (
                    Some(s.avg_surface_fps),
                    Some(s.jank_count),
                    Some(s.max_frame_delay),
                    Some(s.frame_lengths),
                ),
                Err(why) => {
                    diagnostics.push(format!("surface_stats_collector{suffix}: {why}"));
                    (None, None, None, None)
                }
            };
            (
                p.avg_surface_fps,
                p.jank_count,
                p.max_frame_delay,
                p.frame_lengths,
            ) = fields("", whole);
            (
                p.avg_surface_fps_99,
                p.jank_count_99,
                p.max_frame_delay_99,
                p.frame_lengths_99,
            ) = fields("_99", last_99);
            (
                p.avg_surface_fps_50,
                p.jank_count_50,
                p.max_frame_delay_50,
                p.frame_lengths_50,
            ) = fields("_50", last_50);
        }
    }
    p.pacing_diagnostics.splice(0..0, diagnostics);
    p
}

/// Every pacing metric of `series` but Chromium's buckets, from its distinct ascending `presents` and its
/// period (≤ 0 when unknown).
fn without_buckets(series: &FrameSeries, presents: &[i64], period: i64) -> Pacing {
    let mut p = Pacing {
        presented_frames: presents.len() as u64,
        presents_from: series.presents_from,
        fps: match (presents.first(), presents.last()) {
            (Some(a), Some(b)) if b > a => {
                Some((presents.len() - 1) as f64 / ((*b as f64 - *a as f64) / 1e9))
            }
            _ => None,
        },
        first_present_ns: presents.first().copied(),
        last_present_ns: presents.last().copied(),
        refresh_period_ms: series.period_ns.map(|n| n as f64 / 1e6),
        period_from: series.period_from,
        ..Pacing::default()
    };
    if let Some(d) = perfdog(presents) {
        p.perfdog_jank = Some(d.jank);
        p.perfdog_big_jank = Some(d.big_jank);
        p.perfdog_stutter_pct = Some(d.stutter_pct);
    }
    p.activity = idle_intervals(series.frames.requested_and_present(), presents, period)
        .map(|idle| activity(presents, &idle))
        .unwrap_or_default();
    if whole_seconds(presents).is_none() {
        p.pacing_diagnostics.push(
            "presents span more than 31 days, or more than a day at under one present a minute (a clock \
             fault): no per-second series"
                .to_string(),
        );
    }
    p.fps_per_second = fps_per_second(presents);
    let fps: Vec<f64> = p.fps_per_second.iter().map(|&c| c as f64).collect();
    p.fps_min = fps.iter().copied().reduce(f64::min);
    p.fps_mean = mean(&fps);
    p.fps_variance = p
        .fps_mean
        .map(|m| fps.iter().map(|f| (f - m) * (f - m)).sum::<f64>() / fps.len() as f64);
    [p.fps_1pct_low, p.fps_0_1pct_low] = low_fps(presents, [0.01, 0.001]);
    p.sm_per_second = sm_per_second(series.frames.desired_and_present(), presents, period);
    if let Some(sm) = &p.sm_per_second {
        let values: Vec<f64> = sm.iter().map(|&v| v as f64).collect();
        p.sm = mean(&values);
        p.sm_min = sm.iter().copied().min();
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SeriesFrame;

    /// Chromium's unit-test times: seconds → ns.
    fn ns(seconds: &[f64]) -> Vec<i64> {
        seconds.iter().map(|s| (s * 1e9).round() as i64).collect()
    }

    #[test]
    fn rounding_is_pythons() {
        // Python 3's round() of a float rounds halves to even, as f64::round_ties_even does.
        let cases = [
            (0.5, 0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-0.5, -0.0),
            (-1.5, -2.0),
            (2.4, 2.0),
            (2.6, 3.0),
        ];
        for (x, want) in cases {
            assert_eq!(f64::round_ties_even(x), want, "round({x})");
        }
    }

    #[test]
    fn chromium_uniform_presents() {
        // surface_stats_collector_unittest: refresh 0.1 s, presents every 0.1 s for 1 s.
        let t = ns(&(0..10).map(|i| i as f64 * 0.1).collect::<Vec<_>>());
        let s = surface_stats(&t, 100_000_000).unwrap();
        assert_eq!(
            (s.avg_surface_fps, s.jank_count, s.max_frame_delay),
            (10, 0, 1)
        );
        assert_eq!(s.frame_lengths.len(), 9);
    }

    #[test]
    fn chromium_short_deltas_are_dropped() {
        // 5 presents 0.1 s apart, 5 at 0.001 s, 5 at 0.1 s → 9 frame lengths.
        let mut t = vec![];
        let mut now = 0.0;
        for step in [0.1; 5].iter().chain(&[0.001; 5]).chain(&[0.1; 5]) {
            now += step;
            t.push(now);
        }
        let s = surface_stats(&ns(&t), 100_000_000).unwrap();
        assert_eq!(s.frame_lengths.len(), 9);
        // frame_count = 10 over 1.005 − 0.1 s → round(9 / 0.905) = 10.
        assert_eq!(s.avg_surface_fps, 10);
    }

    #[test]
    fn chromium_errors() {
        let t = ns(&(0..10).map(|i| i as f64 * 0.001).collect::<Vec<_>>());
        assert_eq!(surface_stats(&t, 100_000_000), Err(NO_LENGTHS));
        assert_eq!(surface_stats(&[0, 1], 100), Err(EMPTY_DATA));
        assert_eq!(surface_stats(&[0, 100, 200], 0), Err(EMPTY_DATA));
    }

    #[test]
    fn chromium_jank_and_delay() {
        // Intervals 1, 1, 2, 1 vsyncs: one rise of 1 → jank_count 1; max delay 2.
        let s = surface_stats(&[0, 100, 200, 400, 500], 100).unwrap();
        assert_eq!((s.jank_count, s.max_frame_delay), (1, 2));
        // A rise of 25 vsyncs is a pause (≥ 20), not a jank.
        let s = surface_stats(&[0, 100, 2600, 2700], 100).unwrap();
        assert_eq!((s.jank_count, s.max_frame_delay), (0, 25));
        // A rise of 2.5 vsyncs rounds to 2 (even) → one jank; the longest length 3.5 rounds to 4.
        let s = surface_stats(&[0, 100, 450], 100).unwrap();
        assert_eq!((s.jank_count, s.max_frame_delay), (1, 4));
        let s = surface_stats(
            &[
                0,
                500_000_000,
                1_000_000_000,
                1_500_000_000,
                2_000_000_000,
                2_000_000_000,
            ],
            100_000_000,
        );
        // The zero delta is dropped: frame_count 5, 4 lengths over 2 s → 2.
        assert_eq!(s.unwrap().avg_surface_fps, 2);
        // avg_surface_fps: 2 frames over 0.8 s = 2.5 → 2, as Python's round gives.
        let s = surface_stats(&[0, 400_000_000, 800_000_000], 100_000_000).unwrap();
        assert_eq!(s.avg_surface_fps, 2);
    }

    #[test]
    fn chromium_buckets_follow_python_slicing() {
        let t: Vec<i64> = (0..10).collect();
        assert_eq!(bucket(&t, 0.99), &t[1..]); // int(-9.9) = -9
        assert_eq!(bucket(&t, 0.5), &t[5..]);
        assert_eq!(bucket(&t[..3], 0.5), &t[..3]); // at least 3
        assert_eq!(bucket(&t[..2], 0.5), &t[..2]);
        let t: Vec<i64> = (0..100).collect();
        assert_eq!(bucket(&t, 0.99).len(), 99);
    }

    #[test]
    fn perfdog_jank_rules() {
        let ms = 1_000_000i64;
        // Three 16 ms frames, then 90 ms: > 2 × 16 and > 83.3 ms → Jank, not BigJank (≤ 125 ms).
        let mut t = vec![0, 16 * ms, 32 * ms, 48 * ms];
        t.push(48 * ms + 90 * ms);
        let d = perfdog(&t).unwrap();
        assert_eq!((d.jank, d.big_jank), (1, 0));
        assert!((d.stutter_pct - 90.0 * 100.0 / 138.0).abs() < 1e-9);
        // 130 ms → Jank and BigJank.
        let t = [0, 16 * ms, 32 * ms, 48 * ms, 178 * ms];
        assert_eq!(perfdog(&t).map(|d| (d.jank, d.big_jank)), Some((1, 1)));
        // 80 ms after 16 ms frames: > 2 × mean but under two film frames → nothing.
        let t = [0, 16 * ms, 32 * ms, 48 * ms, 128 * ms];
        assert_eq!(perfdog(&t).map(|d| d.jank), Some(0));
        // 100 ms after 60 ms frames: not more than twice the mean → nothing.
        let t = [0, 60 * ms, 120 * ms, 180 * ms, 280 * ms];
        assert_eq!(perfdog(&t).map(|d| d.jank), Some(0));
        // Only three intervals: nothing to compare with.
        assert_eq!(perfdog(&[0, ms, 2 * ms, 500 * ms]).map(|d| d.jank), Some(0));
        assert_eq!(perfdog(&[5]), None);
    }

    #[test]
    fn perfdog_jank_intervals_are_the_ones_counted() {
        let ms = 1_000_000i64;
        // Intervals 16, 16, 16, 90 (Jank), 16, 16, 16, 130 (BigJank), 16, then 80 after 16s (nothing).
        let steps = [16, 16, 16, 90, 16, 16, 16, 130, 16, 16, 16, 80];
        let mut t = vec![0i64];
        for s in steps {
            t.push(t[t.len() - 1] + s * ms);
        }
        let janks: Vec<JankInterval> = perfdog_janks(&t).collect();
        let jank = |index, ms: i64, big| JankInterval {
            index,
            ns: ms * 1_000_000,
            big,
        };
        assert_eq!(janks, vec![jank(3, 90, false), jank(7, 130, true)]);
        let d = perfdog(&t).unwrap();
        assert_eq!((d.jank, d.big_jank), (2, 1));
        let last = t[t.len() - 1] as f64;
        assert!((d.stutter_pct - 220.0 * ms as f64 * 100.0 / last).abs() < 1e-9);
        // The first three intervals have no three before them.
        assert_eq!(
            perfdog_janks(&[0, 500 * ms, 1000 * ms, 1500 * ms]).count(),
            0
        );
        assert_eq!(perfdog_janks(&[]).count(), 0);
    }

    #[test]
    fn windows_are_the_euclidean_quotient_of_any_two_times() {
        let times = [
            i64::MIN,
            -SECOND_NS - 1,
            -1,
            0,
            1,
            SECOND_NS - 1,
            SECOND_NS,
            7 * SECOND_NS + 3,
            i64::MAX,
        ];
        for t0 in times {
            for t in times {
                let exact = (i128::from(t) - i128::from(t0)).div_euclid(i128::from(SECOND_NS));
                assert_eq!(window_of(t0, t), usize::try_from(exact).ok(), "{t0} {t}");
            }
        }
    }

    #[test]
    fn fps_windows_leave_out_the_partial_last_second() {
        let s = SECOND_NS;
        // 10 presents in the first second, 5 in the second, then one at 2.5 s.
        let mut t: Vec<i64> = (0..10).map(|i| i * s / 10).collect();
        t.extend((0..5).map(|i| s + i * s / 5));
        t.push(2 * s + s / 2);
        assert_eq!(fps_per_second(&t), vec![10, 5]);
        assert_eq!(fps_per_second(&[0, s - 1]), Vec::<u64>::new());
    }

    #[test]
    fn low_fps_uses_the_worst_frames() {
        let ms = 1_000_000i64;
        // 99 frames of 10 ms and one of 50 ms: 1 % of 100 → the worst one → 20 FPS.
        let mut t = vec![0i64];
        for i in 0..100 {
            let step = if i == 50 { 50 * ms } else { 10 * ms };
            t.push(t[t.len() - 1] + step);
        }
        // 0.1 % of 100 rounds up to one frame as well.
        assert_eq!(low_fps(&t, [0.01, 0.001]), [Some(20.0), Some(20.0)]);
        // 2 % → mean of 50 and 10 → 1000 / 30.
        let [two] = low_fps(&t, [0.02]);
        assert!((two.unwrap() - 1000.0 / 30.0).abs() < 1e-9);
        assert_eq!(low_fps(&[1], [0.01]), [None]);
    }

    #[test]
    fn sm_counts_missed_vsyncs_per_second() {
        let p = 16_666_667i64;
        let s = SECOND_NS;
        // Second 0: one frame 2 vsyncs late, one 0.4 vsync late (rounds to 0), one early; second 1: idle.
        let frames = [(0, 2 * p), (100, 100 + 2 * p / 5), (s / 2, s / 2 - 5)];
        let presents = [0, 100 + 2 * p / 5, 2 * p, s / 2 - 5, 2 * s + 1];
        let sm = sm_per_second(frames, &presents, p).unwrap();
        assert_eq!(sm, vec![58, 60]);
        // Floored at 0: 100 vsyncs late, presented in second 1.
        let late = [(0, 100 * p)];
        assert_eq!(
            sm_per_second(late, &[0, 100 * p, 2 * s], p),
            Some(vec![60, 0])
        );
        assert_eq!(sm_per_second([], &presents, p), None);
    }

    #[test]
    fn per_second_series_past_a_day_need_a_present_a_minute() {
        let s = SECOND_NS;
        let day = 86_400 * s;
        // 100 presents a second apart, then one two days on (a corrupt timestamp): no series.
        let mut presents: Vec<i64> = (0..100).map(|i| i * s).collect();
        presents.push(2 * day);
        assert_eq!(whole_seconds(&presents), None);
        assert!(fps_per_second(&presents).is_empty());
        assert_eq!(sm_per_second([(0, 0)], &presents, 16_666_667), None);
        // Within a day, any density: every window.
        assert_eq!(whole_seconds(&[0, day]), Some(86_400));
        // Two days at one present a minute: every window.
        let minutely: Vec<i64> = (0..=2 * 1440).map(|i| i * 60 * s).collect();
        assert_eq!(whole_seconds(&minutely), Some(2 * 86_400));
        // Past 31 days, never.
        let dense_but_long: Vec<i64> = (0..=32 * 1440).map(|i| i * 60 * s).collect();
        assert_eq!(whole_seconds(&dense_but_long), None);
    }

    #[test]
    fn pacing_of_a_series_fills_every_family() {
        let p = 16_666_667i64;
        let frames = (0..130)
            .map(|i| SeriesFrame {
                desired_present_ns: Some(i * p),
                present_ns: Some(i * p + if i == 60 { p } else { 0 }),
                ..Default::default()
            })
            .collect();
        let series = FrameSeries {
            period_ns: Some(p),
            period_from: "test",
            presents_from: "present fence",
            frames,
            ..Default::default()
        };
        let r = pacing(&series);
        // Frame 60 presents one vsync late, on frame 61's vsync: 129 distinct presents over 129 periods.
        assert_eq!(r.presented_frames, 129);
        assert_eq!(r.avg_surface_fps, Some(60));
        // Interval 2 then 0 around frame 60: rise of 1 → one jank; max delay 2.
        assert_eq!((r.jank_count, r.max_frame_delay), (Some(1), Some(2)));
        assert_eq!(r.avg_surface_fps_50, Some(60));
        // Second 0 holds presents 0..=59; second 1 those of vsyncs 61..=119 (60 periods are a hair over 1 s).
        assert_eq!(r.fps_per_second, vec![60, 59]);
        assert_eq!(r.sm_per_second, Some(vec![60, 59]));
        assert_eq!(r.perfdog_jank, Some(0));
        assert!(
            r.pacing_diagnostics.is_empty(),
            "{:?}",
            r.pacing_diagnostics
        );
        // No period: Chromium's numbers and sm are absent, with the reason; FPS and PerfDog remain.
        let r = pacing(&FrameSeries {
            period_ns: None,
            ..series
        });
        assert_eq!(r.avg_surface_fps, None);
        assert_eq!(r.sm_per_second, None);
        assert_eq!(r.fps_per_second.len(), 2);
        assert_eq!(
            r.pacing_diagnostics,
            vec!["surface_stats_collector: no refresh period"]
        );
    }
}
