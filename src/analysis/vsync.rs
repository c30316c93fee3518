//! Vsync model: the vsync period, SurfaceFlinger's and the app's work durations, the app's ready duration and
//! the phase offsets `dumpsys SurfaceFlinger` prints, all rebuilt from the expected timelines.
//!
//! Expected DisplayFrame ends are VSyncPredictor vsync times (SF's `readyDuration` is 0, A16
//! `Scheduler/MessageQueue.cpp` `vsyncCallback`/`scheduleFrame`), so their spacing is a multiple of the vsync
//! period; an expected DisplayFrame lasts SF's work duration, an expected SurfaceFrame the app's work duration,
//! and the app's deadline is the vsync minus SF's work duration (its ready duration, A16 `SurfaceFlinger.cpp`
//! `setVsyncConfig` and `Scheduler::setVsyncConfig`).

use crate::model::Slice;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Relative tolerance when testing that a spacing of expected presents is a whole number of periods
/// (VSyncPredictor predictions jitter by a few µs; 4 % still separates 90 from 96 Hz).
const GRID_TOLERANCE: f64 = 0.04;
/// Spacings of expected presents that can be one vsync: 2 ms (500 Hz) to 50 ms (20 Hz, SF's slowest rate).
const STEP_RANGE_NS: std::ops::RangeInclusive<i64> = 2_000_000..=50_000_000;
/// Spacings longer than this many periods are idle gaps: they neither confirm nor refute a period.
const MAX_STEP_PERIODS: i64 = 8;
/// One-period steps a window needs before a shorter step is read as a mode change rather than a refinement.
const ESTABLISHED_STEPS: usize = 8;
/// Consecutive steps on a coarser cadence (e.g. every 2nd vsync) that make their own window (a mode change
/// such as 120 → 60 Hz).
const MIN_COARSE_RUN: usize = 24;
/// Windows with fewer steps than this are merged into their predecessor (a lone predictor resync).
const MIN_WINDOW_STEPS: usize = 4;

/// SurfaceFlinger's phase offsets for one set of durations (`dumpsys SurfaceFlinger` "app phase" /
/// "SF phase"), ns relative to the hardware vsync.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PhaseOffsets {
    /// SF phase offset, ns (negative: SF wakes before the previous vsync).
    pub sf_offset_ns: i64,
    /// App phase offset, ns.
    pub app_offset_ns: i64,
}

/// SurfaceFlinger's work durations for one set of offsets, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WorkDurations {
    /// SF work duration (= the app's ready duration), ns.
    pub sf_work_ns: i64,
    /// App work duration, ns.
    pub app_work_ns: i64,
}

/// A stretch of the trace with one vsync period (a display mode). Times in ns on the trace clock.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VsyncWindow {
    /// First expected present (expected DisplayFrame end) in the window, ns.
    pub start_ns: i64,
    /// Last expected present in the window, ns.
    pub end_ns: i64,
    /// Expected DisplayFrames whose end falls in the window.
    pub display_frames: u64,
    /// Period measured from the expected presents: median of spacing / vsyncs, ns.
    pub measured_period_ns: i64,
    /// The measured rate snapped to SurfaceFlinger's float period (`Fps::fromValue`), ns; the measured period
    /// when it is not within 1 % of a whole number of Hz.
    pub period_ns: i64,
    /// `1e9 / period_ns`, Hz.
    pub refresh_rate_hz: f64,
    /// SF work duration: the most common expected DisplayFrame duration, ns.
    pub sf_work_duration_ns: Option<i64>,
    /// The longest expected DisplayFrame duration (early / early-GPU sets are usually longer), ns.
    pub sf_work_duration_max_ns: Option<i64>,
    /// The SF work durations in use (seen on at least two expected DisplayFrames, or the usual one), most
    /// common first, ns.
    pub sf_work_durations_ns: Vec<i64>,
    /// App work duration: the most common expected SurfaceFrame duration, ns.
    pub app_work_duration_ns: Option<i64>,
    /// The app's ready duration (= SF work duration: the app's deadline is vsync − SF work), ns.
    pub app_ready_duration_ns: Option<i64>,
    /// Phase offsets `dumpsys SurfaceFlinger` would print for these durations (late set), computed with the
    /// display mode's period: the measured one when the predictions are exact (most one-vsync spacings
    /// identical, as on an emulator), else `period_ns`.
    pub offsets: Option<PhaseOffsets>,
    /// Expected DisplayFrames scheduled with another (early / early-GPU) SF work duration.
    pub early_duration_frames: u64,
}

/// What the trace says about vsync timing.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VsyncModel {
    /// Vsync period of the longest window (SurfaceFlinger's float period) or the override, ns; `None` when the
    /// trace has too few DisplayFrames.
    pub period_ns: Option<i64>,
    /// Measured period of the longest window (or the override), ns.
    pub measured_period_ns: Option<i64>,
    /// True when the period came from the configuration instead of the trace.
    pub period_overridden: bool,
    /// One window per display mode, in time order.
    pub windows: Vec<VsyncWindow>,
    /// Expected DisplayFrames scheduled with a non-default (early / early-GPU) SF work duration.
    pub early_duration_frames: u64,
    /// Expected DisplayFrames as (start, end) sorted by start: SF wake-up target and expected present.
    #[serde(skip)]
    expected_display: Vec<(i64, i64)>,
    /// Expected DisplayFrame ends (expected presents), sorted.
    #[serde(skip)]
    expected_ends: Vec<i64>,
}

impl VsyncModel {
    /// Refresh rate in Hz from the period.
    pub fn refresh_rate_hz(&self) -> Option<f64> {
        self.period_ns.filter(|p| *p > 0).map(|p| 1e9 / p as f64)
    }

    /// The window holding time `ts_ns` (the nearest one before it, else the first).
    pub fn window_at(&self, ts_ns: i64) -> Option<&VsyncWindow> {
        let idx = self.windows.partition_point(|w| w.start_ns <= ts_ns);
        self.windows.get(idx.saturating_sub(1))
    }

    /// The vsync period in force at `ts_ns` as SurfaceFlinger's scheduler saw it (the measured one), ns.
    pub fn period_at(&self, ts_ns: i64) -> Option<i64> {
        self.window_at(ts_ns)
            .map(|w| w.measured_period_ns)
            .filter(|p| *p > 0)
    }

    /// True if an expected DisplayFrame of duration `dur_ns` ending at `end_ns` used another SF work duration
    /// than its window's usual one (VsyncModulator early / early-GPU set, A16 `Scheduler/VsyncModulator.cpp`).
    pub fn is_early_duration(&self, end_ns: i64, dur_ns: i64) -> bool {
        self.window_at(end_ns)
            .and_then(|w| w.sf_work_duration_ns)
            .is_some_and(|usual| usual != dur_ns)
    }

    /// The app's expected present for an app deadline (expected SurfaceFrame end) `app_end_ns`, ns, and whether
    /// it came from an expected DisplayFrame. The deadline is the vsync minus the SF work duration in force when
    /// the app was scheduled (its ready duration; A16 `EventThread.cpp` `generateFrameTimeline`, doc §3.3), so:
    /// the end of the expected DisplayFrame that woke up at that deadline (matched within an eighth of a period,
    /// or exactly without a period, because app and SF predictions jitter by µs); else the deadline plus the
    /// window's SF work duration (usual, early or early-GPU) that lands closest to the vsync grid, snapped to it.
    pub fn expected_present_ns(&self, app_end_ns: i64) -> Option<(i64, bool)> {
        let window = self.window_at(app_end_ns);
        let period = window.map_or(0, |w| w.measured_period_ns);
        if let Some((start, end)) = nearest(&self.expected_display, app_end_ns, |(start, _)| *start)
            .filter(|(start, _)| (start - app_end_ns).abs() <= period / 8)
        {
            return Some((end + (app_end_ns - start), true));
        }
        window?
            .sf_work_durations_ns
            .iter()
            .filter_map(|sf_work| {
                let target = app_end_ns + sf_work;
                let anchor = nearest(&self.expected_ends, target, |end| *end)?;
                let on_grid = snap(target, anchor, period);
                Some(((on_grid - target).abs(), on_grid))
            })
            .min_by_key(|(residual, _)| *residual)
            .map(|(_, on_grid)| (on_grid, false))
    }
}

/// The element of `sorted` (by `key`) whose key is nearest to `target`.
fn nearest<T: Copy>(sorted: &[T], target: i64, key: impl Fn(&T) -> i64) -> Option<T> {
    let idx = sorted.partition_point(|x| key(x) < target);
    [idx.checked_sub(1), Some(idx)]
        .into_iter()
        .flatten()
        .filter_map(|i| sorted.get(i).copied())
        .min_by_key(|x| (key(x) - target).abs())
}

/// `target` moved to the nearest point of the grid `anchor + n·period`.
fn snap(target: i64, anchor: i64, period: i64) -> i64 {
    if period <= 0 {
        return target;
    }
    let n = ((target - anchor) as f64 / period as f64).round() as i64;
    anchor + n * period
}

/// SurfaceFlinger's period for a rate: `Fps::fromValue(hz).getPeriodNsecs()`, computed in `float` as AOSP
/// does (A16 `Scheduler/include/scheduler/Fps.h`): 60 Hz → 16 666 667 ns, 90 Hz → 11 111 111, 120 Hz → 8 333 333.
pub fn sf_period_ns(hz: f32) -> i64 {
    (1e9_f32 / hz) as i64
}

/// Phase offsets from work durations, as SurfaceFlinger derives the printed "phase" values in work-duration
/// mode (A16 `Scheduler/VsyncConfiguration.cpp` `WorkDuration::constructOffsets`, same in A12):
/// `sf = T − sfWork mod T` (minus T when sfWork ≥ T), `app = T − (appWork + sfWork) mod T`.
/// `None` when `period_ns ≤ 0` or the work durations' sum overflows.
pub fn phase_offsets(period_ns: i64, durations: WorkDurations) -> Option<PhaseOffsets> {
    let t = period_ns;
    let sf_rem = durations.sf_work_ns.checked_rem(t).filter(|_| t > 0)?;
    let app_rem = durations
        .app_work_ns
        .checked_add(durations.sf_work_ns)?
        .checked_rem(t)?;
    let sf_offset_ns = if durations.sf_work_ns >= t {
        t - sf_rem - t
    } else {
        t - sf_rem
    };
    Some(PhaseOffsets {
        sf_offset_ns,
        app_offset_ns: t - app_rem,
    })
}

/// Work durations from phase offsets, as SurfaceFlinger converts them in phase-offset mode (A16
/// `Scheduler/VsyncConfiguration.cpp` `PhaseOffsets::constructOffsets` → `getSfDuration` / `getAppDuration`):
/// `sfWork = T − sf`, `appWork = T + sf − app`, plus T when that is below T.
pub fn work_durations(period_ns: i64, offsets: PhaseOffsets) -> WorkDurations {
    let t = period_ns;
    let app = t + (offsets.sf_offset_ns - offsets.app_offset_ns);
    WorkDurations {
        sf_work_ns: t - offsets.sf_offset_ns,
        app_work_ns: if app < t { app + t } else { app },
    }
}

/// How many times each value was seen.
type Counts = FxHashMap<i64, usize>;

/// Distinct values seen at least twice, most common first (the smaller on ties); the most common one even if
/// seen once.
fn by_frequency(counts: &Counts) -> Vec<i64> {
    let mut sorted: Vec<(i64, usize)> = counts.iter().map(|(v, n)| (*v, *n)).collect();
    sorted.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    sorted
        .iter()
        .enumerate()
        .filter(|(i, (_, n))| *i == 0 || *n >= 2)
        .map(|(_, (v, _))| *v)
        .collect()
}

/// A spacing of consecutive expected presents, in whole periods of the window it was read in.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Step {
    /// Earlier expected present, ns.
    from_ns: i64,
    /// Spacing, ns.
    dur_ns: i64,
    /// Whole periods.
    vsyncs: i64,
}

/// Periods in `dur_ns` if it is a whole number of `period` within [`GRID_TOLERANCE`].
fn whole_periods(dur_ns: i64, period: f64) -> Option<i64> {
    let k = (dur_ns as f64 / period).round();
    (k >= 1.0 && (dur_ns as f64 - k * period).abs() <= GRID_TOLERANCE * period).then_some(k as i64)
}

/// Median of spacing / vsyncs, rounded to ns.
fn median_period(steps: &[Step]) -> i64 {
    let mut periods: Vec<f64> = steps
        .iter()
        .map(|s| s.dur_ns as f64 / s.vsyncs as f64)
        .collect();
    if periods.is_empty() {
        return 0;
    }
    let middle = periods.len() / 2;
    periods
        .select_nth_unstable_by(middle, f64::total_cmp)
        .1
        .round() as i64
}

/// Splits the expected presents `ends` (sorted, distinct) into windows of one period each, as lists of steps.
/// Greedy: a window's period is Σspacing / Σvsyncs of its steps; a step that is no whole number of periods
/// starts a new window, so does a shorter step after an established cadence (e.g. 60 → 120 Hz), while a
/// shorter step early in a window refines its period. Then runs on a coarser cadence become windows
/// ([`split_coarse_runs`]), windows too short to stand alone are dropped (their frames fall into the window
/// before) unless none is longer, and neighbours with the same period are joined. Spacings outside 2–50 ms
/// are idle gaps, unless no spacing is inside (a trace on another time scale).
fn split_windows(ends: &[i64]) -> Vec<Vec<Step>> {
    let spacings = ends
        .windows(2)
        .filter_map(|pair| Some((*pair.first()?, pair.get(1)? - pair.first()?)));
    // Traces on another time scale (unit-test style nanosecond periods) use every spacing.
    let range = if spacings.clone().any(|(_, d)| STEP_RANGE_NS.contains(&d)) {
        STEP_RANGE_NS
    } else {
        1..=i64::MAX
    };
    let mut windows: Vec<Vec<Step>> = Vec::new();
    let mut current: Vec<Step> = Vec::new();
    // Running Σspacing, Σvsyncs and one-vsync steps of `current`.
    let (mut sum_dur, mut sum_vsyncs, mut unit_steps) = (0i64, 0i64, 0usize);
    for (from_ns, dur_ns) in spacings {
        if !range.contains(&dur_ns) {
            continue;
        }
        let mut step = Step {
            from_ns,
            dur_ns,
            vsyncs: 1,
        };
        if !current.is_empty() {
            let period = sum_dur as f64 / sum_vsyncs as f64;
            if let Some(vsyncs) = whole_periods(dur_ns, period) {
                if vsyncs > MAX_STEP_PERIODS {
                    continue;
                }
                step.vsyncs = vsyncs;
            } else {
                match whole_periods(period.round() as i64, dur_ns as f64).filter(|m| *m >= 2) {
                    Some(m) if unit_steps < ESTABLISHED_STEPS => {
                        current.iter_mut().for_each(|s| s.vsyncs *= m);
                        (sum_vsyncs, unit_steps) = (sum_vsyncs * m, 0);
                    }
                    _ => {
                        windows.push(std::mem::take(&mut current));
                        (sum_dur, sum_vsyncs, unit_steps) = (0, 0, 0);
                    }
                }
            }
        }
        sum_dur += step.dur_ns;
        sum_vsyncs += step.vsyncs;
        unit_steps += usize::from(step.vsyncs == 1);
        current.push(step);
    }
    windows.push(current);
    let windows: Vec<Vec<Step>> = windows.into_iter().flat_map(split_coarse_runs).collect();
    let min_steps = windows
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .clamp(1, MIN_WINDOW_STEPS);
    let mut joined: Vec<Vec<Step>> = Vec::new();
    for window in windows.into_iter().filter(|w| w.len() >= min_steps) {
        match joined.last_mut() {
            Some(last)
                if whole_periods(median_period(&window), median_period(last) as f64) == Some(1) =>
            {
                last.extend(window)
            }
            _ => joined.push(window),
        }
    }
    joined
}

/// Splits off runs of at least [`MIN_COARSE_RUN`] consecutive steps whose vsync counts share a factor g ≥ 2:
/// a mode change to a divisor rate (120 → 60 Hz) leaves every spacing a multiple of the old period.
fn split_coarse_runs(window: Vec<Step>) -> Vec<Vec<Step>> {
    let mut out = Vec::new();
    let mut pending = Vec::new();
    let mut rest: &[Step] = &window;
    while let Some((first, tail)) = rest.split_first() {
        let (mut len, mut g) = (0, 0);
        for s in rest {
            let next = gcd(g, s.vsyncs);
            if next < 2 {
                break;
            }
            (len, g) = (len + 1, next);
        }
        if len >= MIN_COARSE_RUN {
            if !pending.is_empty() {
                out.push(std::mem::take(&mut pending));
            }
            out.push(
                rest.iter()
                    .take(len)
                    .map(|s| Step {
                        vsyncs: s.vsyncs / g,
                        ..*s
                    })
                    .collect(),
            );
            rest = rest.get(len..).unwrap_or_default();
        } else {
            pending.push(*first);
            rest = tail;
        }
    }
    if !pending.is_empty() {
        out.push(pending);
    }
    out
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Infers the vsync model of a trace from its expected slices ([`crate::model::Timeline::expected`]).
/// `period_override_ns` (from `Config.vsync_period_ns`) replaces the inferred period in every window (a single
/// window when the trace has none).
pub fn infer_vsync(expected: &[Slice], period_override_ns: Option<i64>) -> VsyncModel {
    // Read twice rather than collected: this runs beside the links, whose tables share the peak.
    let expected_df = || {
        expected
            .iter()
            .filter(|s| s.kind.is_display() && s.dur_ns >= 0)
    };
    let mut ends: Vec<i64> = expected_df().filter_map(|s| s.end_ns()).collect();
    ends.sort_unstable();
    ends.dedup();
    let (mut windows, exact): (Vec<VsyncWindow>, Vec<bool>) = split_windows(&ends)
        .iter()
        .filter_map(|steps| {
            let first = steps.first()?;
            let last = steps.last()?;
            let measured_period_ns = median_period(steps);
            let unit: Vec<i64> = steps
                .iter()
                .filter(|s| s.vsyncs == 1)
                .map(|s| s.dur_ns)
                .collect();
            let exact = unit.iter().filter(|d| **d == measured_period_ns).count() * 2 > unit.len();
            Some((
                VsyncWindow {
                    start_ns: first.from_ns,
                    end_ns: last.from_ns + last.dur_ns,
                    measured_period_ns,
                    ..VsyncWindow::default()
                },
                exact,
            ))
        })
        .unzip();
    // Lookups before the first window use the first window (`window_at`), so its bounds stay the measured ones.
    if let Some(period) = period_override_ns.filter(|p| *p > 0) {
        if windows.is_empty() {
            windows.push(VsyncWindow::default());
        }
        windows
            .iter_mut()
            .for_each(|w| w.measured_period_ns = period);
    }
    let mut model = VsyncModel {
        expected_display: expected_df()
            .filter_map(|s| Some((s.ts_ns, s.end_ns()?)))
            .collect(),
        period_overridden: period_override_ns.is_some_and(|p| p > 0),
        windows,
        ..VsyncModel::default()
    };
    model.expected_display.sort_unstable();
    model.expected_display.shrink_to_fit();
    ends.shrink_to_fit();
    model.expected_ends = ends;
    let index = |ts: i64| {
        model
            .windows
            .partition_point(|w| w.start_ns <= ts)
            .saturating_sub(1)
    };
    // Per window, how often each work duration was seen (a few distinct values: SF and the app are scheduled
    // with fixed durations).
    let mut sf_durs: Vec<Counts> = vec![Counts::default(); model.windows.len()];
    let mut app_durs: Vec<Counts> = vec![Counts::default(); model.windows.len()];
    for s in expected.iter().filter(|s| s.dur_ns >= 0) {
        let durs = if s.kind.is_display() {
            &mut sf_durs
        } else {
            &mut app_durs
        };
        if let Some(counts) = s.end_ns().and_then(|end| durs.get_mut(index(end))) {
            *counts.entry(s.dur_ns).or_default() += 1;
        }
    }
    for (((w, sf), app), exact) in model
        .windows
        .iter_mut()
        .zip(&sf_durs)
        .zip(&app_durs)
        .zip(exact.iter().copied().chain(std::iter::repeat(false)))
    {
        w.period_ns = if model.period_overridden {
            w.measured_period_ns
        } else {
            snapped_period(w.measured_period_ns)
        };
        let mode_period_ns = if exact && !model.period_overridden {
            w.measured_period_ns
        } else {
            w.period_ns
        };
        w.refresh_rate_hz = if w.period_ns > 0 {
            1e9 / w.period_ns as f64
        } else {
            0.0
        };
        w.display_frames = sf.values().sum::<usize>() as u64;
        w.sf_work_durations_ns = by_frequency(sf);
        w.sf_work_duration_ns = w.sf_work_durations_ns.first().copied();
        w.sf_work_duration_max_ns = sf.keys().copied().max();
        w.app_work_duration_ns = by_frequency(app).first().copied();
        w.app_ready_duration_ns = w.sf_work_duration_ns;
        w.early_duration_frames = sf
            .iter()
            .filter(|(d, _)| Some(**d) != w.sf_work_duration_ns)
            .map(|(_, n)| *n as u64)
            .sum();
        w.offsets = w.sf_work_duration_ns.zip(w.app_work_duration_ns).and_then(
            |(sf_work_ns, app_work_ns)| {
                phase_offsets(
                    mode_period_ns,
                    WorkDurations {
                        sf_work_ns,
                        app_work_ns,
                    },
                )
            },
        );
    }
    model.early_duration_frames = model.windows.iter().map(|w| w.early_duration_frames).sum();
    if let Some(longest) = model.windows.iter().max_by_key(|w| w.display_frames) {
        model.period_ns = Some(longest.period_ns).filter(|p| *p > 0);
        model.measured_period_ns = Some(longest.measured_period_ns).filter(|p| *p > 0);
    }
    model
}

/// The measured period snapped to SurfaceFlinger's float period of the nearest whole rate, if within 1 %.
fn snapped_period(measured_ns: i64) -> i64 {
    if measured_ns <= 0 {
        return measured_ns;
    }
    let hz = (1e9 / measured_ns as f64).round();
    if hz < 1.0 {
        // Longer than a second: no whole rate to snap to.
        return measured_ns;
    }
    let snapped = sf_period_ns(hz as f32);
    if (i128::from(snapped) - i128::from(measured_ns)).abs() * 100 <= i128::from(measured_ns) {
        snapped
    } else {
        measured_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_and_offsets_of_absurd_traces_stay_in_range() {
        // A fuzzer's trace: DisplayFrames 8.6 s apart. No whole rate is within 1 % (this overflowed, and gave
        // i64::MAX in a release build), nor near i64::MAX.
        for measured in [8_606_601_259, i64::MAX / 2, i64::MAX] {
            assert_eq!(snapped_period(measured), measured);
        }
        assert_eq!(snapped_period(16_600_000), 16_666_667);
        let huge = WorkDurations {
            sf_work_ns: i64::MAX - 5,
            app_work_ns: i64::MAX - 5,
        };
        assert_eq!(phase_offsets(16_666_666, huge), None);
    }

    #[test]
    fn sf_period_is_computed_in_float_like_fps_from_value() {
        let cases = [
            (60.0, 16_666_667),
            (90.0, 11_111_111),
            (120.0, 8_333_333),
            (20.0, 50_000_000),
        ];
        for (hz, period) in cases {
            assert_eq!(sf_period_ns(hz), period, "{hz} Hz");
        }
        assert_eq!(sf_period_ns(14.7), 68_027_208);
        assert_eq!(sf_period_ns(11.0), 90_909_088);
    }

    #[test]
    fn seed_example_converts_both_ways() {
        let t = sf_period_ns(60.0);
        let offsets = PhaseOffsets {
            sf_offset_ns: -10_933_333,
            app_offset_ns: 2_400_001,
        };
        let durations = WorkDurations {
            sf_work_ns: 27_600_000,
            app_work_ns: 20_000_000,
        };
        assert_eq!(work_durations(t, offsets), durations);
        assert_eq!(phase_offsets(t, durations), Some(offsets));
    }

    /// `VsyncConfigurationTest.cpp` WorkDurationTest (A16): durations → (sf offset, app offset).
    #[test]
    fn work_duration_cases_give_aosp_offsets() {
        let offsets = |hz: f32, sf: i64, app: i64| {
            phase_offsets(
                sf_period_ns(hz),
                WorkDurations {
                    sf_work_ns: sf,
                    app_work_ns: app,
                },
            )
            .map(|o| (o.sf_offset_ns, o.app_offset_ns))
        };
        let sets = [
            (10_500_000, 20_500_000),
            (16_000_000, 16_500_000),
            (13_500_000, 21_000_000),
        ];
        let expected: [(f32, [(i64, i64); 3]); 3] = [
            (
                60.0,
                [
                    (6_166_667, 2_333_334),
                    (666_667, 833_334),
                    (3_166_667, 15_500_001),
                ],
            ),
            (
                90.0,
                [
                    (611_111, 2_333_333),
                    (-4_888_889, 833_333),
                    (-2_388_889, 9_944_444),
                ],
            ),
            (
                14.7,
                [
                    (57_527_208, 37_027_208),
                    (52_027_208, 35_527_208),
                    (54_527_208, 33_527_208),
                ],
            ),
        ];
        for (hz, want) in expected {
            for ((sf, app), want) in sets.iter().zip(want) {
                assert_eq!(
                    offsets(hz, *sf, *app),
                    Some(want),
                    "{hz} Hz sf {sf} app {app}"
                );
            }
        }
        // workDurationIsARange: min SF duration for late, max for early / early-GPU.
        assert_eq!(
            offsets(60.0, 10_500_000, 16_000_000),
            Some((6_166_667, 6_833_334))
        );
        assert_eq!(
            offsets(60.0, 20_500_000, 16_000_000),
            Some((-3_833_333, 13_500_001))
        );
        // Defaults (-1 → sf = T − 1 ms, app = T).
        let t = sf_period_ns(60.0);
        assert_eq!(
            offsets(60.0, t - 1_000_000, t),
            Some((1_000_000, 1_000_000))
        );
        assert_eq!(
            phase_offsets(
                0,
                WorkDurations {
                    sf_work_ns: 1,
                    app_work_ns: 1
                }
            ),
            None
        );
    }

    /// `VsyncConfigurationTest.cpp` PhaseOffsetsTest (A16): offsets → (sf work, app work).
    #[test]
    fn phase_offset_cases_give_aosp_durations() {
        let durations = |hz: f32, sf: i64, app: i64| {
            let d = work_durations(
                sf_period_ns(hz),
                PhaseOffsets {
                    sf_offset_ns: sf,
                    app_offset_ns: app,
                },
            );
            (d.sf_work_ns, d.app_work_ns)
        };
        let ms = 1_000_000;
        assert_eq!(durations(60.0, 6 * ms, 2 * ms), (10_666_667, 20_666_667));
        assert_eq!(durations(60.0, 7 * ms, 3 * ms), (9_666_667, 20_666_667));
        assert_eq!(durations(60.0, 8 * ms, 4 * ms), (8_666_667, 20_666_667));
        assert_eq!(durations(90.0, ms, 2 * ms), (10_111_111, 21_222_222));
        assert_eq!(durations(90.0, 2 * ms, 3 * ms), (9_111_111, 21_222_222));
        assert_eq!(durations(90.0, 3 * ms, 4 * ms), (8_111_111, 21_222_222));
        assert_eq!(durations(14.7, 6 * ms, 2 * ms), (62_027_208, 72_027_208));
        assert_eq!(durations(14.7, 8 * ms, 4 * ms), (60_027_208, 72_027_208));
        assert_eq!(durations(60.0, ms, ms), (15_666_667, 16_666_667));
    }

    fn steps(ends: &[i64]) -> Vec<i64> {
        split_windows(ends)
            .iter()
            .map(|w| median_period(w))
            .collect()
    }

    #[test]
    fn windows_follow_mode_changes_and_ignore_gaps() {
        let grid = |start: i64, period: i64, ks: &[i64]| -> Vec<i64> {
            ks.iter()
                .scan(start, |t, k| {
                    *t += k * period;
                    Some(*t)
                })
                .collect()
        };
        // 60 Hz with skipped vsyncs and an idle gap, then 120 Hz.
        let mut ends = grid(
            0,
            16_666_667,
            &[1, 1, 2, 1, 1, 3, 1, 1, 1, 1, 60, 1, 1, 1, 2, 1, 1],
        );
        let last = *ends.last().unwrap();
        ends.extend(grid(last, 8_333_333, &[1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 3, 1]));
        assert_eq!(steps(&ends), vec![16_666_667, 8_333_333]);
        // 120 Hz that drops to 60 Hz: every spacing stays a multiple of 8.33 ms.
        let mut ends = grid(0, 8_333_333, &[1; 30]);
        let last = *ends.last().unwrap();
        ends.extend(grid(last, 8_333_333, &[2; 40]));
        assert_eq!(steps(&ends), vec![8_333_333, 16_666_666]);
        // A start on a coarse cadence is refined by the first one-vsync step.
        assert_eq!(
            steps(&grid(0, 11_111_111, &[2, 3, 1, 1, 2, 1])),
            vec![11_111_111]
        );
        assert!(steps(&[]).is_empty());
        // Too few frames for a confident window still give one; nanosecond-scale grids too.
        assert_eq!(steps(&grid(0, 16_666_667, &[1, 1, 2])), vec![16_666_667]);
        assert_eq!(steps(&[10, 21, 32, 54]), vec![11]);
    }
}
