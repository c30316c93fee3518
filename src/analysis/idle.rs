//! Idle gaps: which present-to-present intervals of a series are idle (nothing asked to draw) rather than late
//! frames, and the activity numbers — active time, active FPS, PerfDog's numbers — with those gaps removed.
//!
//! ftl's rule (no peer defines one; `ftl explain idle`): a source that records when each frame was asked for
//! (gfxinfo `IntendedVsync`, a Davey! line's `IntendedVsync`, FrameTimeline's expected start) says whether the
//! app was idle. The interval from present `p[i]` to present `p[i+1]` is **idle** when the frame presented at
//! `p[i+1]` was requested later than `p[i]` plus one vsync period: the previous frame was already on screen and
//! a vsync had passed with nothing asked to draw. A late frame is requested on time and presented late, so it
//! is never idle. UI apps draw in bursts; without this rule the gaps between bursts read as seconds-long frames.

use super::pacing::perfdog;

/// What `ftl explain idle` prints: the rule and the numbers it gives.
pub const EXPLANATION: &str = "idle gaps (ftl's rule; no peer defines one)
    UI apps draw in bursts: between bursts nothing asks to draw, and the present-to-present interval across
    such a gap is idle time, not a late frame. Where a source records when each frame was asked for (gfxinfo
    IntendedVsync, a Davey! line's IntendedVsync, FrameTimeline's expected start), the interval from one present
    to the next is idle when the next frame was asked for later than the previous present plus one vsync period.
    A late frame is asked for on time and presented late, so it is never idle.
    idle_gaps     idle intervals; null when the source has no request times or the period is unknown
    active_s      first to last present without the idle intervals, s
    active_fps    intervals that are not idle per active second
    perfdog_jank_active, perfdog_big_jank_active, perfdog_stutter_pct_active
                  PerfDog's rules over the present intervals with the idle ones removed (the intervals before and
                  after a gap become consecutive); Stutter over active_s
    The peers' own numbers (fps, avg_surface_fps, perfdog_*) stay as their owners define them, idle time
    included. The verdict uses the idle-aware numbers; the capture picture breaks its frame-time line at idle
    gaps (grey bands).";
use serde::Serialize;

/// The activity numbers of one series: its idle gaps and the pacing numbers computed without them. Every field is
/// `None` when the source records no request times or the period is unknown (flattened into
/// [`super::pacing::Pacing`] under these names).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Activity {
    /// Idle intervals between presents (see the module's rule).
    pub idle_gaps: Option<u64>,
    /// First present to last present minus the idle intervals, seconds.
    pub active_s: Option<f64>,
    /// Present-to-present intervals that are not idle, per active second (`fps` without the idle gaps), frames/s;
    /// also `None` when no active time remains.
    pub active_fps: Option<f64>,
    /// PerfDog Jank over the present intervals with the idle ones removed (the intervals before and after a
    /// gap are consecutive); also `None` with fewer than two active presents.
    pub perfdog_jank_active: Option<u64>,
    /// PerfDog BigJank, idle intervals removed.
    pub perfdog_big_jank_active: Option<u64>,
    /// PerfDog Stutter over the active time, %.
    pub perfdog_stutter_pct_active: Option<f64>,
}

/// For each interval `presents[i] → presents[i+1]` (distinct, ascending presents, ns), whether it is idle: the
/// earliest request time among the frames presented at `presents[i+1]` is later than `presents[i] +
/// period_ns`. `frames` are `(requested_ns, present_ns)` pairs in any order; a present that no frame with a
/// request time reached is never the end of an idle interval. `None` when no frame has a request time or the
/// period is unknown (≤ 0).
pub fn idle_intervals(
    frames: impl IntoIterator<Item = (i64, i64)>,
    presents: &[i64],
    period_ns: i64,
) -> Option<Vec<bool>> {
    if period_ns <= 0 {
        return None;
    }
    // Per present (by its index), the earliest request among the frames shown at it: the one that decides. Frames
    // come mostly in present order, so a frame's present is usually the previous frame's or the next one.
    let mut earliest: Vec<Option<i64>> = vec![None; presents.len()];
    let (mut any, mut at) = (false, 0usize);
    for (r, p) in frames {
        any = true;
        at = match presents.get(at..at + 2) {
            Some([a, _]) if *a == p => at,
            Some([_, b]) if *b == p => at + 1,
            _ => match presents.binary_search(&p) {
                Ok(i) => i,
                Err(_) => continue,
            },
        };
        let e = &mut earliest[at];
        *e = Some(e.map_or(r, |e| e.min(r)));
    }
    if !any {
        return None;
    }
    let idle = presents
        .windows(2)
        .zip(&earliest[1.min(presents.len())..])
        .map(|(w, r)| r.is_some_and(|r| r > w[0].saturating_add(period_ns)))
        .collect();
    Some(idle)
}

/// `presents` (distinct, ascending, ns) with every idle interval cut out: each present after an idle interval
/// moves back by the idle time before it, so that the last present before a gap and the first after it become
/// one; and, for each interval of the result, the index of the interval of `presents` it is. An interval without
/// a flag in `idle` is not idle.
pub fn active_presents(presents: &[i64], idle: &[bool]) -> (Vec<i64>, Vec<usize>) {
    let mut active = Vec::with_capacity(presents.len());
    let mut original = Vec::with_capacity(presents.len().saturating_sub(1));
    let mut idle_ns = 0i64;
    active.extend(presents.first());
    for (i, w) in presents.windows(2).enumerate() {
        if idle.get(i).copied().unwrap_or(false) {
            idle_ns = idle_ns.saturating_add(w[1].saturating_sub(w[0]));
        } else {
            active.push(w[1].saturating_sub(idle_ns));
            original.push(i);
        }
    }
    (active, original)
}

/// The activity numbers of `presents` (distinct, ascending, ns) given which intervals are idle
/// ([`idle_intervals`]): PerfDog's rules run over [`active_presents`].
pub fn activity(presents: &[i64], idle: &[bool]) -> Activity {
    let (active, _) = active_presents(presents, idle);
    let active_ns = match (active.first(), active.last()) {
        (Some(a), Some(b)) => b.saturating_sub(*a),
        _ => 0,
    };
    let active_s = active_ns as f64 / 1e9;
    let perf = perfdog(&active);
    Activity {
        idle_gaps: Some(idle.iter().filter(|i| **i).count() as u64),
        active_s: Some(active_s),
        active_fps: (active_ns > 0).then(|| active.len().saturating_sub(1) as f64 / active_s),
        perfdog_jank_active: perf.map(|d| d.jank),
        perfdog_big_jank_active: perf.map(|d| d.big_jank),
        perfdog_stutter_pct_active: perf.map(|d| d.stutter_pct),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const P: i64 = 16 * MS;

    #[test]
    fn a_frame_requested_after_the_last_present_and_a_vsync_ends_an_idle_interval() {
        let presents = [100 * MS, 116 * MS, 2_000 * MS, 2_016 * MS];
        // Requests: each frame asked for two vsyncs before its present (pipelined) ...
        let mut frames: Vec<(i64, i64)> = presents.iter().map(|p| (p - 2 * P, *p)).collect();
        // ... so the third, asked for at 1968 ms, long after 116 ms + 16 ms, ends an idle interval.
        assert_eq!(
            idle_intervals(frames.clone(), &presents, P),
            Some(vec![false, true, false])
        );
        // Asked for exactly one vsync after the previous present: not idle (the rule is "later than").
        frames[2] = (116 * MS + P, 2_000 * MS);
        assert_eq!(
            idle_intervals(frames.clone(), &presents, P),
            Some(vec![false, false, false])
        );
        // A late frame asked for on time is never idle, however late it presents.
        frames[2] = (100 * MS, 2_000 * MS);
        assert_eq!(
            idle_intervals(frames, &presents, P),
            Some(vec![false, false, false])
        );
    }

    #[test]
    fn the_earliest_request_of_a_present_decides_and_unknowns_are_not_idle() {
        let presents = [0, 1_000 * MS, 2_000 * MS];
        // Two frames share the second present; one of them was asked for on time.
        let frames = [(900 * MS, 1_000 * MS), (-P, 1_000 * MS), (0, 0)];
        assert_eq!(
            idle_intervals(frames, &presents, P),
            Some(vec![false, false])
        );
        // No request reaches the third present: not idle.
        let frames = [(900 * MS, 1_000 * MS)];
        assert_eq!(
            idle_intervals(frames, &presents, P),
            Some(vec![true, false])
        );
        assert_eq!(idle_intervals([], &presents, P), None);
        assert_eq!(idle_intervals([(0, 0)], &presents, 0), None);
    }

    #[test]
    fn frames_in_any_order_and_presents_not_listed_give_the_same_intervals() {
        // 40 presents 16 ms apart with a 1 s gap after every 10th; two frames per present, requested two and one
        // vsyncs ahead, except at the first present after each gap, whose frames were both asked for one vsync
        // before it (long after the previous present: idle).
        let presents: Vec<i64> = (0..40).map(|i| i * P + (i / 10) * 1_000 * MS).collect();
        let mut frames: Vec<(i64, i64)> = presents
            .iter()
            .enumerate()
            .flat_map(|(i, &p)| {
                let first = i % 10 == 0 && i > 0;
                [(if first { p - P } else { p - 2 * P }, p), (p - P, p)]
            })
            .collect();
        frames.push((0, 5 * MS)); // a present that is not in the list is ignored
        let want: Vec<bool> = (1..40).map(|i| i % 10 == 0).collect();
        assert_eq!(
            idle_intervals(frames.clone(), &presents, P),
            Some(want.clone())
        );
        frames.reverse();
        assert_eq!(
            idle_intervals(frames.clone(), &presents, P),
            Some(want.clone())
        );
        // A fixed shuffle: every 7th frame first (7 and 81 are coprime).
        let shuffled: Vec<(i64, i64)> = (0..frames.len())
            .map(|i| frames[i * 7 % frames.len()])
            .collect();
        assert_eq!(idle_intervals(shuffled, &presents, P), Some(want));
    }

    #[test]
    fn activity_removes_idle_time_from_fps_and_perfdog() {
        // Two bursts of 11 presents at 16 ms with a 50 s gap between them.
        let burst = |start: i64| (0..11).map(move |i| start + i * P);
        let presents: Vec<i64> = burst(0).chain(burst(50_000 * MS)).collect();
        let mut idle = vec![false; presents.len() - 1];
        idle[10] = true;
        let a = activity(&presents, &idle);
        assert_eq!(a.idle_gaps, Some(1));
        // 20 intervals of 16 ms are active.
        assert!(
            a.active_s.is_some_and(|s| (s - 0.32).abs() < 1e-12),
            "{:?}",
            a.active_s
        );
        assert!(a.active_fps.is_some_and(|f| (f - 62.5).abs() < 1e-9));
        assert_eq!(
            (a.perfdog_jank_active, a.perfdog_big_jank_active),
            (Some(0), Some(0))
        );
        assert_eq!(a.perfdog_stutter_pct_active, Some(0.0));
        // With the gap counted, PerfDog sees one 50 s BigJank filling nearly all the span.
        let whole = perfdog(&presents).unwrap();
        assert_eq!((whole.jank, whole.big_jank), (1, 1));
        let (active, original) = active_presents(&presents, &idle);
        assert_eq!(active.len(), 21);
        assert_eq!(active[11] - active[10], P);
        assert_eq!(original[10], 11);
        // No idle interval: the active numbers are the whole-span ones.
        let a = activity(&presents[..11], &[false; 10]);
        assert_eq!(a.idle_gaps, Some(0));
        assert!(
            a.active_s.is_some_and(|s| (s - 0.16).abs() < 1e-12),
            "{:?}",
            a.active_s
        );
        assert!(a.active_fps.is_some_and(|f| (f - 62.5).abs() < 1e-9));
    }

    #[test]
    fn a_real_jank_inside_a_burst_stays_a_jank() {
        // 8 presents at 16 ms, one 200 ms late frame (requested on time), 4 more at 16 ms.
        let mut presents: Vec<i64> = (0..8).map(|i| i * P).collect();
        let late = 7 * P + 200 * MS;
        presents.extend((0..5).map(|i| late + i * P));
        let frames: Vec<(i64, i64)> = presents
            .iter()
            .map(|p| (if *p == late { 7 * P } else { p - P }, *p))
            .collect();
        let idle = idle_intervals(frames, &presents, P).unwrap();
        assert!(idle.iter().all(|i| !i));
        let a = activity(&presents, &idle);
        assert_eq!(
            (a.perfdog_jank_active, a.perfdog_big_jank_active),
            (Some(1), Some(1))
        );
    }
}
