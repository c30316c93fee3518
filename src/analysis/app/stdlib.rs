//! Perfetto stdlib `android.frames.timeline` and `android.frames.per_frame_metrics`, row for row: the app's
//! `Choreographer#doFrame` / `DrawFrame` sections joined by frame id (vsync id) to the FrameTimeline slices of
//! the same process. Source: `src/trace_processor/perfetto_sql/stdlib/android/frames/timeline.sql` and
//! `per_frame_metrics.sql` (google/perfetto @ ec5d16b1). SQL's joins are reproduced as written, duplicates and
//! all; where SQLite picks a "bare column" from an arbitrary row of a group, the choice made here is documented.
//! The SDK ≤ 28 fallback (`_frames_maxsdk_28`) is not reproduced: ftl reads only traces with FrameTimeline.

use crate::model::frame::layer_index;
use crate::model::sections::AppSections;
use crate::model::{Slice, Timeline};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// 5 ms, Perfetto's `_cpu_time_per_frame_fallback` addition to the UI time, ns.
const FALLBACK_CPU_NS: i64 = 5_000_000;

/// A `Choreographer#doFrame <id>` or `DrawFrame <id>` section (`android_frames_choreographer_do_frame`,
/// `android_frames_draw_frame`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSection {
    /// Index into [`AppSections::sections`] (Perfetto's slice id order).
    pub section: usize,
    /// `CAST(second space-separated word of the name AS INT)`; never 0 or −1.
    pub frame_id: i64,
    /// The thread.
    pub tid: i32,
    /// Its process, if known.
    pub pid: Option<i32>,
    /// Start, ns.
    pub ts: i64,
    /// Duration, ns (−1 if it never ended).
    pub dur: i64,
}

impl FrameSection {
    /// `ts + dur`, ns (Perfetto's arithmetic, also for `dur = −1`).
    pub fn end(&self) -> i64 {
        self.ts + self.dur
    }
}

/// A row of `android_frames_layers`: one per (doFrame, DrawFrame, actual slice, expected slice) combination.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FrameLayer {
    /// Frame id (vsync id).
    pub frame_id: i64,
    /// `COALESCE(actual.ts, doFrame.ts)`, ns.
    pub ts: i64,
    /// `COALESCE(actual.dur, DrawFrame end − doFrame.ts)`, ns.
    pub dur: i64,
    /// Index into [`AppFrameTables::do_frames`].
    pub do_frame: usize,
    /// Index into [`AppFrameTables::draw_frames`].
    pub draw_frame: usize,
    /// Index into [`Timeline::actual`].
    pub actual: Option<usize>,
    /// Index into [`Timeline::expected`].
    pub expected: Option<usize>,
    /// The expected slice's process (`upid`), `None` without an expected slice.
    pub pid: Option<i32>,
    /// The process of the doFrame and DrawFrame threads (gives `process_name`).
    pub app_pid: i32,
}

/// A row of `android_frames`: `android_frames_layers` grouped by (frame id, `pid`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppFrame {
    /// Frame id.
    pub frame_id: i64,
    /// `MIN(ts)` over its layers, ns.
    pub ts: i64,
    /// `MAX(dur)` over its layers, ns.
    pub dur: i64,
    /// `MIN(do_frame_id)`: index into [`AppFrameTables::do_frames`].
    pub do_frame: usize,
    /// `MIN(draw_frame_id)`: index into [`AppFrameTables::draw_frames`].
    pub draw_frame: usize,
    /// `MIN(actual_frame_timeline_id)`: index into [`Timeline::actual`].
    pub actual: Option<usize>,
    /// Expected slice (bare column: taken from the group's first layer row).
    pub expected: Option<usize>,
    /// `COUNT(DISTINCT actual_frame_timeline_id)`.
    pub actual_frame_timeline_count: i64,
    /// `COUNT(DISTINCT draw_frame_id)`.
    pub draw_frame_count: i64,
    /// The expected slice's process, as the stdlib (`upid` from the expected slice).
    pub pid: Option<i32>,
    /// The app process of the doFrame thread.
    pub app_pid: i32,
}

/// The app frames of a trace, as Perfetto's stdlib sees them.
#[derive(Debug, Clone, Default)]
pub struct AppFrameTables {
    /// `android_frames_choreographer_do_frame`, in slice order.
    pub do_frames: Vec<FrameSection>,
    /// `android_frames_draw_frame`, in slice order.
    pub draw_frames: Vec<FrameSection>,
    /// `android_frames_layers`.
    pub layers: Vec<FrameLayer>,
    /// `android_frames`, ordered by (frame id, pid) with `None` first.
    pub frames: Vec<AppFrame>,
}

/// SQLite's `CAST(text AS INT)`: the longest integer prefix after leading spaces, 0 if none, saturating.
pub fn sqlite_cast_int(text: &str) -> i64 {
    let t = text.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i128 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = (v * 10 + i128::from(b - b'0')).min(i128::from(i64::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    i64::try_from(v).unwrap_or(if neg { i64::MIN } else { i64::MAX })
}

/// `cast_int!(STR_SPLIT(name, ' ', 1))` with the stdlib's filter: `None` for a name without a second word and
/// for ids 0 and −1 (e.g. `Choreographer#doFrame - resynced to …`).
pub fn frame_id_of(name: &str) -> Option<i64> {
    let id = sqlite_cast_int(name.split(' ').nth(1)?);
    (id != 0 && id != -1).then_some(id)
}

/// Name prefix of the UI thread's frame sections (`android_frames_choreographer_do_frame`).
pub const DO_FRAME: &str = "Choreographer#doFrame";
/// Name prefix of the RenderThread's frame sections (`android_frames_draw_frame`).
pub const DRAW_FRAME: &str = "DrawFrame";

/// The sections whose name starts with `prefix` and carries a frame id ([`frame_id_of`]), in slice order.
pub fn frame_sections(app: &AppSections, prefix: &str) -> Vec<FrameSection> {
    // Per interned name: its frame id if it is such a name (names repeat over many sections).
    let ids: Vec<Option<i64>> = app
        .names
        .iter()
        .map(|name| {
            name.starts_with(prefix)
                .then(|| frame_id_of(name))
                .flatten()
        })
        .collect();
    app.sections
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            Some(FrameSection {
                section: i,
                frame_id: (*ids.get(s.name as usize)?)?,
                tid: s.tid,
                pid: app.pid_of(s.tid),
                ts: s.ts,
                dur: s.dur,
            })
        })
        .collect()
}

/// A trace's doFrame and DrawFrame sections, found once for all that reads them.
#[derive(Debug, Clone, Default)]
pub struct FrameSections {
    /// [`frame_sections`] of [`DO_FRAME`].
    pub do_frames: Vec<FrameSection>,
    /// [`frame_sections`] of [`DRAW_FRAME`].
    pub draw_frames: Vec<FrameSection>,
}

impl FrameSections {
    /// The frame sections of `app`.
    pub fn of(app: &AppSections) -> Self {
        FrameSections {
            do_frames: frame_sections(app, DO_FRAME),
            draw_frames: frame_sections(app, DRAW_FRAME),
        }
    }
}

/// Indices of `slices` by (pid, token).
pub(super) fn by_pid_token(slices: &[Slice]) -> FxHashMap<(i32, i64), Vec<usize>> {
    let mut map: FxHashMap<(i32, i64), Vec<usize>> = FxHashMap::default();
    for (i, s) in slices.iter().enumerate() {
        map.entry((s.pid, s.token)).or_default().push(i);
    }
    map
}

impl AppFrameTables {
    /// Builds `android_frames_layers` and `android_frames` from the timeline's app sections.
    pub fn new(timeline: &Timeline) -> Self {
        let app = &timeline.app;
        let FrameSections {
            do_frames,
            draw_frames,
        } = FrameSections::of(app);
        // Both joined on (frame_id, upid); a thread without a process joins nothing.
        let mut draw_by_key: FxHashMap<(i64, i32), Vec<usize>> = FxHashMap::default();
        for (i, d) in draw_frames.iter().enumerate() {
            if let Some(pid) = d.pid {
                draw_by_key.entry((d.frame_id, pid)).or_default().push(i);
            }
        }
        // Without any actual slice the stdlib switches to its SDK ≤ 28 tables, which ftl does not rebuild: no pair.
        let with_timeline = !timeline.actual.is_empty();
        let pairs: Vec<(usize, usize, i32)> = do_frames
            .iter()
            .filter(|_| with_timeline)
            .enumerate()
            .filter_map(|(i, d)| Some((i, d, d.pid?)))
            .flat_map(|(i, d, pid)| {
                draw_by_key
                    .get(&(d.frame_id, pid))
                    .into_iter()
                    .flatten()
                    .map(move |&j| (i, j, pid))
            })
            .collect();
        // `fallback`, joined back on frame_id only (so every pair of that id contributes its span).
        let mut fallback: FxHashMap<i64, Vec<(i64, i64)>> = FxHashMap::default();
        for &(i, j, _) in &pairs {
            let (d, r) = (&do_frames[i], &draw_frames[j]);
            let span = (d.ts, r.end() - d.ts);
            let spans = fallback.entry(d.frame_id).or_default();
            if !spans.contains(&span) {
                spans.push(span);
            }
        }
        let actual = by_pid_token(&timeline.actual);
        let expected = by_pid_token(&timeline.expected);
        let mut seen = FxHashSet::default();
        let mut layers = Vec::new();
        for &(i, j, pid) in &pairs {
            let frame_id = do_frames[i].frame_id;
            let acts: Vec<Option<usize>> = match actual.get(&(pid, frame_id)) {
                Some(v) => v.iter().copied().map(Some).collect(),
                None => vec![None],
            };
            let exps: Vec<Option<usize>> = match expected.get(&(pid, frame_id)) {
                Some(v) => v.iter().copied().map(Some).collect(),
                None => vec![None],
            };
            for &a in &acts {
                for &e in &exps {
                    for &(fb_ts, fb_dur) in &fallback[&frame_id] {
                        let (ts, dur) = match a {
                            Some(a) => (timeline.actual[a].ts_ns, timeline.actual[a].dur_ns),
                            None => (fb_ts, fb_dur),
                        };
                        let row = FrameLayer {
                            frame_id,
                            ts,
                            dur,
                            do_frame: i,
                            draw_frame: j,
                            actual: a,
                            expected: e,
                            pid: e.map(|e| timeline.expected[e].pid),
                            app_pid: pid,
                        };
                        // UNION: identical rows once.
                        if seen.insert(row.clone()) {
                            layers.push(row);
                        }
                    }
                }
            }
        }
        let frames = group_frames(&layers);
        AppFrameTables {
            do_frames,
            draw_frames,
            layers,
            frames,
        }
    }

    /// `android_frames_ui_time`: (frame id, doFrame duration), one row per doFrame section.
    pub fn ui_times(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.do_frames.iter().map(|d| (d.frame_id, d.dur))
    }

    /// `distinct_frames` of the per-frame metrics: `android_frames GROUP BY frame_id`, the bare columns taken
    /// from the group's last row in (frame id, pid) order, as SQLite's aggregate does.
    pub fn distinct_frames(&self) -> BTreeMap<i64, &AppFrame> {
        self.frames.iter().map(|f| (f.frame_id, f)).collect()
    }

    /// `android_app_vsync_delay_per_frame`: (frame id, `actual.ts − expected.ts`), ordered by frame id.
    pub fn app_vsync_delays(&self, timeline: &Timeline) -> Vec<(i64, i64)> {
        self.distinct_frames()
            .into_iter()
            .filter_map(|(id, f)| {
                let (a, e) = (f.actual?, f.expected?);
                Some((id, timeline.actual[a].ts_ns - timeline.expected[e].ts_ns))
            })
            .collect()
    }

    /// `android_cpu_time_per_frame` rows, ordered by frame id.
    pub fn cpu_times(&self, timeline: &Timeline) -> Vec<CpuTime> {
        let mut draw_sum: BTreeMap<i64, i64> = BTreeMap::new();
        for d in &self.draw_frames {
            *draw_sum.entry(d.frame_id).or_default() += d.dur;
        }
        let distinct = self.distinct_frames();
        self.app_vsync_delays(timeline)
            .into_iter()
            .filter_map(|(frame_id, app_vsync_delay)| {
                let draw_frame_dur = *draw_sum.get(&frame_id)?;
                let do_frame_dur = self.do_frames[distinct.get(&frame_id)?.do_frame].dur;
                Some(CpuTime {
                    frame_id,
                    app_vsync_delay,
                    do_frame_dur,
                    draw_frame_dur,
                    cpu_time: app_vsync_delay + do_frame_dur + draw_frame_dur,
                })
            })
            .collect()
    }

    /// `android_frame_stats` rows, ordered by frame id (then overrun).
    pub fn frame_stats(&self, timeline: &Timeline) -> Vec<FrameStats> {
        let cpu: FxHashMap<i64, i64> = self
            .cpu_times(timeline)
            .into_iter()
            .map(|c| (c.frame_id, c.cpu_time))
            .collect();
        let mut ui: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
        for (id, dur) in self.ui_times() {
            ui.entry(id).or_default().push(dur);
        }
        let flag = |b: bool| b.then_some(1);
        let mut rows = Vec::new();
        for (frame_id, overrun) in overruns(timeline) {
            let Some(ui_times) = ui.get(&frame_id) else {
                continue;
            };
            // overrun ⨝ ui_time ⨝ estimated cpu time (one estimate per ui_time row).
            for &ui_time in ui_times {
                for &estimate_ui in ui_times {
                    let cpu_time = cpu
                        .get(&frame_id)
                        .copied()
                        .unwrap_or(estimate_ui + FALLBACK_CPU_NS);
                    rows.push(FrameStats {
                        frame_id,
                        overrun,
                        cpu_time,
                        ui_time,
                        was_jank: flag(overrun > 0),
                        was_slow_frame: flag(cpu_time > 20_000_000),
                        was_big_jank: flag(cpu_time > 50_000_000),
                        was_huge_jank: flag(cpu_time > 200_000_000),
                    });
                }
            }
        }
        rows
    }
}

/// A row of `android_cpu_time_per_frame` (ns); serialises as the table's columns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CpuTime {
    /// Frame id.
    pub frame_id: i64,
    /// `actual.ts − expected.ts`.
    pub app_vsync_delay: i64,
    /// The doFrame's duration.
    pub do_frame_dur: i64,
    /// Σ duration of every DrawFrame with this id.
    pub draw_frame_dur: i64,
    /// `app_vsync_delay + do_frame_dur + draw_frame_dur`.
    pub cpu_time: i64,
}

/// A row of `android_frame_stats` (ns; the flags are 1 or `None`, never 0, as Perfetto's); serialises as the
/// table's columns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FrameStats {
    /// Frame id.
    pub frame_id: i64,
    /// From `android_frames_overrun`.
    pub overrun: i64,
    /// `android_cpu_time_per_frame.cpu_time`, else UI time + 5 ms.
    pub cpu_time: i64,
    /// doFrame duration.
    pub ui_time: i64,
    /// 1 if `overrun > 0`.
    pub was_jank: Option<i64>,
    /// 1 if `cpu_time > 20 ms`.
    pub was_slow_frame: Option<i64>,
    /// 1 if `cpu_time > 50 ms`.
    pub was_big_jank: Option<i64>,
    /// 1 if `cpu_time > 200 ms`.
    pub was_huge_jank: Option<i64>,
}

/// `android_frames_overrun`: per token present in both timelines (every process, DisplayFrames included),
/// `(act.ts + act.dur) − (exp.ts + exp.dur)` with `act` the first actual slice of the token and `exp` its first
/// expected slice. Ordered by (frame id, overrun). Needs FrameTimeline only.
pub fn overruns(timeline: &Timeline) -> Vec<(i64, i64)> {
    let first = |slices: &[Slice]| {
        let mut m: BTreeMap<i64, usize> = BTreeMap::new();
        for (i, s) in slices.iter().enumerate() {
            m.entry(s.token).or_insert(i);
        }
        m
    };
    let (act, exp) = (first(&timeline.actual), first(&timeline.expected));
    act.into_iter()
        .filter_map(|(token, a)| {
            let (a, e) = (&timeline.actual[a], &timeline.expected[*exp.get(&token)?]);
            Some((token, (a.ts_ns + a.dur_ns) - (e.ts_ns + e.dur_ns)))
        })
        .collect()
}

fn group_frames(layers: &[FrameLayer]) -> Vec<AppFrame> {
    let mut groups: BTreeMap<(i64, Option<i32>), Vec<&FrameLayer>> = BTreeMap::new();
    for l in layers {
        groups.entry((l.frame_id, l.pid)).or_default().push(l);
    }
    groups
        .into_iter()
        .map(|((frame_id, pid), rows)| {
            let distinct = |f: fn(&FrameLayer) -> Option<usize>| {
                rows.iter()
                    .filter_map(|r| f(r))
                    .collect::<FxHashSet<_>>()
                    .len() as i64
            };
            let first = rows[0];
            AppFrame {
                frame_id,
                ts: rows.iter().map(|r| r.ts).min().unwrap_or(first.ts),
                dur: rows.iter().map(|r| r.dur).max().unwrap_or(first.dur),
                do_frame: rows
                    .iter()
                    .map(|r| r.do_frame)
                    .min()
                    .unwrap_or(first.do_frame),
                draw_frame: rows
                    .iter()
                    .map(|r| r.draw_frame)
                    .min()
                    .unwrap_or(first.draw_frame),
                actual: rows.iter().filter_map(|r| r.actual).min(),
                expected: first.expected,
                actual_frame_timeline_count: distinct(|r| r.actual),
                draw_frame_count: distinct(|r| Some(r.draw_frame)),
                pid,
                app_pid: first.app_pid,
            }
        })
        .collect()
}

/// The layer name of an actual slice, if any.
pub fn layer_name(timeline: &Timeline, actual: Option<usize>) -> Option<&str> {
    let layer = timeline.actual[actual?].layer?;
    Some(timeline.layer_names[layer_index(layer)].as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_ids_follow_sqlite_casts() {
        assert_eq!(frame_id_of("Choreographer#doFrame 191058"), Some(191058));
        assert_eq!(frame_id_of("DrawFrames 7"), Some(7));
        assert_eq!(frame_id_of("Choreographer#doFrame"), None);
        assert_eq!(
            frame_id_of("Choreographer#doFrame - resynced to 12 in 3ns"),
            None
        );
        assert_eq!(frame_id_of("DrawFrame -1"), None);
        assert_eq!(frame_id_of("DrawFrame 12abc"), Some(12));
        assert_eq!(sqlite_cast_int("  -42x"), -42);
        assert_eq!(sqlite_cast_int("99999999999999999999"), i64::MAX);
    }
}
