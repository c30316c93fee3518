//! Tencent GT's SM ("流畅度", smoothness) from Choreographer `Skipped N frames!` logcat lines, reproduced as GT's
//! code computes it (quoted in `docs/frame-sources.md` §4 and seed 002, section 五) under the name `gt_sm`.
//!
//! GT sums the `N` of one process's lines per one-second tick into `x`, then records one value per tick:
//! - `x ≤ 60` → `60 − x` (a tick without skipped frames records 60);
//! - `x > 60` → `n = x / 60`, `v = x % 60`; if `n` exceeds the number of ticks already recorded, this tick
//!   records 60 and nothing is corrected ("log ghosts" at the start of a test); otherwise the previous `n`
//!   recorded values are set to 0 and this tick records `v`.
//!
//! The seed's author notes that recording `v` (not `60 − v`) looks inconsistent; ftl reproduces GT as it is. This
//! is not ftl's present-based `sm`.

use crate::sources::logcat::SkipEvent;
use serde::Serialize;

const NS_PER_S: i64 = 1_000_000_000;
/// Choreographer's default `debug.choreographer.skipwarning`: it logs only skips of at least this many frames.
pub const DEFAULT_SKIP_WARNING: u64 = 30;
/// What a log whose smallest skip is at least [`DEFAULT_SKIP_WARNING`] misses, and how to capture one that does not.
pub const SKIP_WARNING_NOTE: &str =
    "Choreographer logs only skips of at least debug.choreographer.skipwarning \
     frames (default 30): smaller skips are missing and GT SM reads high; `adb shell setprop \
     debug.choreographer.skipwarning 1` before capturing";

/// True if a log whose smallest skip is `min_skipped_frames` likely used the default threshold.
pub fn default_threshold(min_skipped_frames: Option<u64>) -> bool {
    min_skipped_frames.is_some_and(|n| n >= DEFAULT_SKIP_WARNING)
}
/// Longest capture given per-second values (31 days of ticks, ≈ 21 MB); longer spans get totals only.
const MAX_SECONDS: u64 = 31 * 86_400;

/// GT's SM of one process, from its Choreographer skipped-frame lines.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct GtSm {
    /// Σ N over the process's `Skipped N frames!` lines (Choreographer.java), frames (vsync periods).
    pub skipped_frames: u64,
    /// Number of `Skipped N frames!` lines.
    pub skip_events: u64,
    /// Smallest N seen, frames: the log's threshold is at most this. Choreographer logs only `N ≥
    /// debug.choreographer.skipwarning` (default 30; GT sets it to 1 before testing), so values ≥ 30 mean frames
    /// late by fewer periods are missing from the log. `None` without events.
    pub min_skipped_frames: Option<u64>,
    /// GT's SM per one-second tick (0–60, GT's rule, after its corrections), in tick order. Ticks are
    /// `[t0 + k s, t0 + (k+1) s)` from the capture's first timestamp `t0` through its last one, the last, partial
    /// tick included (its skipped frames are real, but a partial tick with few skips reads as smooth). Empty
    /// without timestamps (`-v brief`) or when the span exceeds 31 days.
    pub gt_sm_per_second: Vec<i64>,
    /// Mean of `gt_sm_per_second` (GT's SM for the capture); `None` when that is empty.
    pub gt_sm: Option<f64>,
    /// Minimum of `gt_sm_per_second`; `None` when that is empty.
    pub gt_sm_min: Option<i64>,
    /// Number of one-second ticks of the capture span (`gt_sm_per_second.len()` when computed); 0 without
    /// timestamps.
    pub seconds: u64,
}

/// GT's SM for one process from its `Skipped N frames!` lines (`events`). `first_ts_ns` / `last_ts_ns` are the capture's span (first and last timestamp of any
/// log line, [`ChoreographerLog`](crate::sources::logcat::ChoreographerLog)), ns on the events' clock; event
/// times outside it widen it. Without any timestamp (`-v brief`) per-second values are impossible: only the
/// totals are returned (`gt_sm_per_second` empty, `gt_sm` None, `seconds` 0). Events without a timestamp in a
/// log that has some (mixed formats) count in the totals only.
pub fn gt_sm(events: &[SkipEvent], first_ts_ns: Option<i64>, last_ts_ns: Option<i64>) -> GtSm {
    let mut out = GtSm {
        skipped_frames: events.iter().fold(0u64, |a, e| a.saturating_add(e.skipped)),
        skip_events: events.len() as u64,
        min_skipped_frames: events.iter().map(|e| e.skipped).min(),
        gt_sm_per_second: Vec::new(),
        gt_sm: None,
        gt_sm_min: None,
        seconds: 0,
    };
    let times = || events.iter().filter_map(|e| e.ts_ns);
    let t0 = first_ts_ns.into_iter().chain(times()).min();
    let t1 = last_ts_ns.into_iter().chain(times()).max();
    let (Some(t0), Some(t1)) = (t0, t1) else {
        return out;
    };
    let tick_of = |t: i64| ((i128::from(t) - i128::from(t0)) / i128::from(NS_PER_S)) as u64;
    let seconds = tick_of(t1).saturating_add(1);
    out.seconds = seconds;
    if seconds > MAX_SECONDS {
        return out;
    }
    let mut x = vec![0u64; seconds as usize];
    for e in events {
        if let Some(slot) = e.ts_ns.and_then(|t| x.get_mut(tick_of(t) as usize)) {
            *slot = slot.saturating_add(e.skipped);
        }
    }
    let per_second = gt_rule(&x);
    out.gt_sm = (!per_second.is_empty())
        .then(|| per_second.iter().map(|&v| v as f64).sum::<f64>() / per_second.len() as f64);
    out.gt_sm_min = per_second.iter().copied().min();
    out.gt_sm_per_second = per_second;
    out
}

/// GT's per-tick rule (seed 002, section 五) over the skipped frames summed per tick, in tick order.
fn gt_rule(ticks: &[u64]) -> Vec<i64> {
    let mut records: Vec<i64> = Vec::with_capacity(ticks.len());
    for &x in ticks {
        if x > 60 {
            let n = x / 60;
            let v = (x % 60) as i64;
            if n > records.len() as u64 {
                records.push(60);
            } else {
                for r in records.iter_mut().rev().take(n as usize) {
                    *r = 0;
                }
                records.push(v);
            }
        } else {
            records.push(60 - x as i64);
        }
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = NS_PER_S;

    fn frames(events: &[(i64, u64)]) -> Vec<SkipEvent> {
        events
            .iter()
            .enumerate()
            .map(|(i, &(ts, skipped))| SkipEvent {
                ts_ns: Some(ts),
                skipped,
                line: i as u64 + 1,
            })
            .collect()
    }

    #[test]
    fn rule_small_ticks() {
        // x ≤ 60 → 60 − x; x = 0 → 60.
        assert_eq!(gt_rule(&[0, 31, 60, 1]), vec![60, 29, 0, 59]);
    }

    #[test]
    fn rule_correction_after_three_ticks() {
        // x = 130: n = 2, v = 10; 3 ticks recorded → the previous 2 become 0, this tick 10.
        assert_eq!(gt_rule(&[0, 30, 45, 130]), vec![60, 0, 0, 10]);
    }

    #[test]
    fn rule_ghost_at_start() {
        // x = 130 as the first tick: n = 2 > len = 0 → 60, nothing corrected.
        assert_eq!(gt_rule(&[130, 0]), vec![60, 60]);
        // n = len exactly is corrected: x = 125 after 2 ticks → both 0, this tick 5.
        assert_eq!(gt_rule(&[10, 20, 125]), vec![0, 0, 5]);
        // x = 61 after none → 60.
        assert_eq!(gt_rule(&[61]), vec![60]);
    }

    #[test]
    fn ticks_from_capture_span_with_partial_last_second() {
        let t0 = 1_000 * S;
        // Span 2.5 s → ticks [0,1), [1,2), [2,2.5]; events at 0.2 s (31), 0.9 s (10), 2.2 s (31).
        let f = frames(&[
            (t0 + S / 5, 31),
            (t0 + 9 * S / 10, 10),
            (t0 + 2 * S + S / 5, 31),
        ]);
        let g = gt_sm(&f, Some(t0), Some(t0 + 2 * S + S / 2));
        assert_eq!(g.gt_sm_per_second, vec![19, 60, 29]);
        assert_eq!(g.seconds, 3);
        assert_eq!(g.gt_sm, Some(36.0));
        assert_eq!(g.gt_sm_min, Some(19));
        assert_eq!(
            (g.skipped_frames, g.skip_events, g.min_skipped_frames),
            (72, 3, Some(10))
        );
    }

    #[test]
    fn correction_through_ticks() {
        let t0 = 0;
        let f = frames(&[
            (S + 1, 30),
            (2 * S + 1, 45),
            (3 * S, 100),
            (3 * S + 999_999_999, 30),
        ]);
        let g = gt_sm(&f, Some(t0), Some(3 * S + S / 2));
        assert_eq!(g.gt_sm_per_second, vec![60, 0, 0, 10]);
        assert_eq!(g.gt_sm, Some(17.5));
        assert_eq!(g.gt_sm_min, Some(0));
    }

    #[test]
    fn first_tick_ghost() {
        let f = frames(&[(0, 130)]);
        let g = gt_sm(&f, Some(0), Some(S));
        assert_eq!(g.gt_sm_per_second, vec![60, 60]);
    }

    #[test]
    fn two_pids_apart() {
        let (a, b) = (frames(&[(S / 2, 40)]), frames(&[(S / 2, 50), (S + 1, 31)]));
        let ga = gt_sm(&a, Some(0), Some(S + S / 2));
        let gb = gt_sm(&b, Some(0), Some(S + S / 2));
        assert_eq!(ga.gt_sm_per_second, vec![20, 60]);
        assert_eq!(gb.gt_sm_per_second, vec![10, 29]);
    }

    #[test]
    fn no_events_is_smooth() {
        let g = gt_sm(&[], Some(5), Some(5 + 2 * S));
        assert_eq!(g.gt_sm_per_second, vec![60, 60, 60]);
        assert_eq!(
            (g.skipped_frames, g.skip_events, g.min_skipped_frames),
            (0, 0, None)
        );
    }

    #[test]
    fn brief_has_totals_only() {
        let f = vec![
            SkipEvent {
                ts_ns: None,
                skipped: 31,
                line: 1,
            },
            SkipEvent {
                ts_ns: None,
                skipped: 90,
                line: 2,
            },
        ];
        let g = gt_sm(&f, None, None);
        assert_eq!(
            g,
            GtSm {
                skipped_frames: 121,
                skip_events: 2,
                min_skipped_frames: Some(31),
                gt_sm_per_second: vec![],
                gt_sm: None,
                gt_sm_min: None,
                seconds: 0,
            }
        );
    }

    #[test]
    fn extreme_spans_do_not_allocate_or_panic() {
        let f = frames(&[(i64::MIN, u64::MAX), (i64::MAX, u64::MAX)]);
        let g = gt_sm(&f, Some(0), Some(1));
        assert!(g.gt_sm_per_second.is_empty());
        assert_eq!(g.skipped_frames, u64::MAX);
    }

    #[test]
    fn from_a_parsed_log() {
        let text = "11-23 11:20:03.000  1 1 I x: start\n\
                    11-23 11:20:03.500  1234  1250 I Choreographer: Skipped 31 frames!  The application may be \
                    doing too much work on its main thread.\n\
                    11-23 11:20:05.100  1 1 I x: end\n";
        let log = match crate::sources::logcat::read(text.as_bytes(), std::path::Path::new("l")) {
            Ok(l) => l,
            Err(e) => panic!("{e}"),
        };
        let g = gt_sm(&log.pids[0].events, log.first_ts_ns, log.last_ts_ns);
        assert_eq!(g.gt_sm_per_second, vec![29, 60, 60]);
    }
}
