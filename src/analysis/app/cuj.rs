//! CUJs (critical user journeys): the `J<NAME>` interactions that SysUI, Launcher and other Google apps mark
//! with `InteractionJankMonitor`, summarised as Perfetto's stdlib `android_jank_cuj_slice_summary` does — state
//! from the `FT#begin` / `FT#end` / `FT#cancel` markers, the CUJ's layer, its frames counted from the actual
//! FrameTimeline slices of its vsync range, and its start/end from the UI thread's frames. Source:
//! `src/trace_processor/perfetto_sql/stdlib/android/cujs/base.sql`, `boundaries.sql` and `frames.sql`
//! (google/perfetto @ ec5d16b1). SysUI's FrameTracker counters (`J<…>#totalFrames`, …) are not used.

use super::stdlib::{by_pid_token, layer_name, sqlite_cast_int, AppFrameTables};
use crate::model::jank::bits;
use crate::model::Timeline;
use rustc_hash::FxHashMap;

/// A CUJ with its summary: a row of `android_jank_cuj_slice_summary` (ns); serialises as the table's columns.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cuj {
    /// The CUJ slice's name, `J<NAME>`.
    pub name: String,
    /// Its process (not a column: the summary names the process).
    #[serde(skip)]
    pub pid: i32,
    /// The process's name.
    pub process_name: Option<String>,
    /// `completed` (an `FT#end…` marker), `canceled` (`FT#cancel…`), or `None`.
    pub state: Option<&'static str>,
    /// Vsyncs of its range with an actual slice (of its layer, when known); `None` outside `android_jank_cuj`.
    pub total_frames: Option<i64>,
    /// Of those, vsyncs with `App Deadline Missed` / `App Resynced Jitter`.
    pub missed_app_frames: Option<i64>,
    /// Of those, vsyncs with a SurfaceFlinger / display jank type.
    pub missed_sf_frames: Option<i64>,
    /// The CUJ's layer (`FT#layerId#N`, else the only layer of its frames).
    pub layer_name: Option<String>,
    /// Start: the UI thread's first frame boundary, else the CUJ slice's start.
    pub ts: i64,
    /// Duration: to the end of its last doFrame, else the CUJ slice's duration.
    pub dur: i64,
}

/// What the markers of one CUJ say.
#[derive(Debug, Default)]
struct Markers {
    canceled: bool,
    ended: bool,
    layer_id: Option<i64>,
    begin_vsync: Option<i64>,
    end_vsync: Option<i64>,
    ui_thread: Option<i32>,
}

/// SQLite `CAST(str_split(text, sep, 1) AS INTEGER)`: the integer after the first `sep`; `None` without `sep`.
fn after(text: &str, sep: &str) -> Option<i64> {
    let rest = text.split(sep).nth(1)?;
    Some(sqlite_cast_int(rest))
}

fn is_cuj_process(name: &str) -> bool {
    name.starts_with("com.google.android") || name.starts_with("com.android.")
}

/// `android_jank_cuj_slice_summary`: one row per CUJ slice, in (name, ts) order.
pub fn cujs(timeline: &Timeline, tables: &AppFrameTables) -> Vec<Cuj> {
    let app = &timeline.app;
    let mut cuj_slices: Vec<_> = app
        .async_sections
        .iter()
        .filter(|s| {
            let name = app.name(s.name);
            s.dur > 0
                && name.starts_with("J<")
                && name.ends_with('>')
                && timeline
                    .process_names
                    .get(&s.pid)
                    .is_some_and(|n| is_cuj_process(n))
        })
        .collect();
    cuj_slices.sort_by_key(|s| s.ts);
    let slices = SlicesByToken {
        expected: by_pid_token(&timeline.expected),
        actual: by_pid_token(&timeline.actual),
    };
    let mut out: Vec<Cuj> = cuj_slices
        .iter()
        .map(|c| {
            let name = app.name(c.name);
            let end = c.ts + c.dur;
            let markers = markers(timeline, name, c.ts, end);
            let state = if markers.canceled {
                Some("canceled")
            } else if markers.ended {
                Some("completed")
            } else {
                None
            };
            // android_jank_cuj keeps completed CUJs, and unmarked ones longer than 4 ms.
            let in_jank_cuj = state == Some("completed") || (state.is_none() && c.dur > 4_000_000);
            let do_frames: Vec<usize> = tables
                .do_frames
                .iter()
                .enumerate()
                .filter(|(_, d)| {
                    d.pid == Some(c.pid)
                        && markers.ui_thread.map_or(d.tid == c.pid, |t| d.tid == t)
                        && d.end() >= c.ts
                        && d.ts <= end
                        && d.frame_id > 0
                        && markers.begin_vsync.is_none_or(|b| d.frame_id >= b)
                        && markers.end_vsync.is_none_or(|e| d.frame_id <= e)
                })
                .map(|(i, _)| i)
                .collect();
            let layer = cuj_layer(timeline, tables, &markers, c.ts, end);
            let vsyncs = (in_jank_cuj && !do_frames.is_empty()).then(|| {
                let ids = do_frames.iter().map(|&i| tables.do_frames[i].frame_id);
                (
                    markers
                        .begin_vsync
                        .unwrap_or_else(|| ids.clone().min().unwrap_or(0)),
                    markers.end_vsync.unwrap_or_else(|| ids.max().unwrap_or(0)),
                )
            });
            let counts = vsyncs.and_then(|range| frame_counts(timeline, range, layer.as_deref()));
            let boundary = vsyncs
                .and_then(|range| boundary(timeline, &slices, tables, &do_frames, c.pid, range));
            let (ts, dur) = boundary.unwrap_or((c.ts, c.dur));
            Cuj {
                name: name.to_string(),
                pid: c.pid,
                process_name: timeline.process_names.get(&c.pid).cloned(),
                state,
                total_frames: counts.map(|c| c.0),
                missed_app_frames: counts.map(|c| c.1),
                missed_sf_frames: counts.map(|c| c.2),
                layer_name: layer,
                ts,
                dur,
            }
        })
        .collect();
    out.sort_by(|a, b| (&a.name, a.ts).cmp(&(&b.name, b.ts)));
    out
}

/// `_cuj_state_markers` and `_cuj_instant_events` of the CUJ `name` over `[ts, end)`: slices and instants whose
/// name is `<name>#FT#…` or `<name>#UIThread`, or `FT#…` on the CUJ's own track.
fn markers(timeline: &Timeline, name: &str, ts: i64, end: i64) -> Markers {
    let app = &timeline.app;
    let legacy = format!("{name}#FT#");
    let ui = format!("{name}#UIThread");
    let thread_markers = app
        .sections
        .iter()
        .map(|s| (s.ts, app.name(s.name), None, Some(s.tid)));
    let track_markers = app
        .async_sections
        .iter()
        .map(|s| (s.ts, app.name(s.name), Some(app.name(s.track)), None));
    let mut m = Markers::default();
    for (at, marker, track, tid) in thread_markers.chain(track_markers) {
        let on_track = track == Some(name) && marker.starts_with("FT#");
        if !(ts <= at && at < end && (marker.starts_with(&legacy) || on_track || marker == ui)) {
            continue;
        }
        let max = |slot: &mut Option<i64>, v: Option<i64>| {
            if let Some(v) = v {
                *slot = Some(slot.map_or(v, |s| s.max(v)));
            }
        };
        // The first matching kind wins, as in the stdlib's CASE (begin and deferMonitoring say nothing here).
        let kind = [
            "FT#begin",
            "FT#deferMonitoring",
            "FT#end",
            "FT#cancel",
            "FT#layerId",
        ]
        .into_iter()
        .find(|k| marker.contains(k));
        match kind {
            Some("FT#end") => m.ended = true,
            Some("FT#cancel") => m.canceled = true,
            // Perfetto keeps MAX(utid), the thread it met last; ftl the largest tid (they differ only for a CUJ
            // with `#UIThread` markers from two threads).
            None if marker.ends_with("#UIThread") => {
                if let Some(tid) = tid {
                    m.ui_thread = Some(m.ui_thread.map_or(tid, |t| t.max(tid)));
                }
            }
            _ => {}
        }
        max(
            &mut m.layer_id,
            marker
                .contains("layerId#")
                .then(|| after(marker, "layerId#"))
                .flatten(),
        );
        max(
            &mut m.begin_vsync,
            marker
                .contains("beginVsync#")
                .then(|| after(marker, "beginVsync#"))
                .flatten(),
        );
        max(
            &mut m.end_vsync,
            marker
                .contains("endVsync#")
                .then(|| after(marker, "endVsync#"))
                .flatten(),
        );
    }
    m
}

/// `android_jank_cuj_layer_name`: among the frames drawn by the CUJ's UI thread in its vsync range and time,
/// the layer named by `FT#layerId#N`, else the only layer of every frame.
fn cuj_layer(
    timeline: &Timeline,
    tables: &AppFrameTables,
    m: &Markers,
    ts: i64,
    end: i64,
) -> Option<String> {
    let (ui, begin, last) = (m.ui_thread?, m.begin_vsync?, m.end_vsync?);
    let frames: Vec<(i64, &str, i64)> = tables
        .layers
        .iter()
        .filter(|l| {
            let f_end = l.ts + l.dur;
            tables.do_frames[l.do_frame].tid == ui
                && (begin..=last).contains(&l.frame_id)
                && ((ts..=end).contains(&l.ts) || (ts..=end).contains(&f_end))
        })
        .filter_map(|l| {
            let name = layer_name(timeline, l.actual)?;
            let id = sqlite_cast_int(name.split('#').nth(1)?);
            Some((l.frame_id, name, id))
        })
        .collect();
    match m.layer_id {
        Some(want) => frames
            .iter()
            .filter(|f| f.2 == want)
            .map(|f| f.1)
            .max()
            .map(str::to_string),
        None => {
            let mut per_frame: std::collections::BTreeMap<i64, std::collections::BTreeSet<&str>> =
                Default::default();
            for (id, name, _) in &frames {
                per_frame.entry(*id).or_default().insert(name);
            }
            (per_frame.values().all(|names| names.len() == 1))
                .then(|| per_frame.values().flatten().max().map(|s| s.to_string()))
                .flatten()
        }
    }
}

/// `_android_jank_cuj_frame_timeline` summed: (vsyncs, app-missed vsyncs, SF-missed vsyncs) over the actual
/// slices (every process, `dur > 0`) whose token is in `range` and whose layer is `layer` when known; `None` when
/// no vsync has one.
fn frame_counts(
    timeline: &Timeline,
    range: (i64, i64),
    layer: Option<&str>,
) -> Option<(i64, i64, i64)> {
    const APP: i32 = bits::APP_DEADLINE_MISSED | bits::APP_RESYNCED_JITTER;
    const SF: i32 = bits::SF_SCHEDULING
        | bits::PREDICTION_ERROR
        | bits::DISPLAY_HAL
        | bits::SF_CPU_DEADLINE_MISSED
        | bits::SF_GPU_DEADLINE_MISSED;
    let mut per_vsync: std::collections::BTreeMap<i64, (bool, bool)> = Default::default();
    for s in &timeline.actual {
        if s.dur_ns <= 0 || !(range.0..=range.1).contains(&s.token) {
            continue;
        }
        if layer.is_some_and(|l| Some(l) != s.layer.map(|id| timeline.layer_name(Some(id)))) {
            continue;
        }
        let v = per_vsync.entry(s.token).or_default();
        v.0 |= s.jank_bits() & APP != 0;
        v.1 |= s.jank_bits() & SF != 0;
    }
    (!per_vsync.is_empty()).then(|| {
        let n = |f: fn(&(bool, bool)) -> bool| per_vsync.values().filter(|v| f(v)).count() as i64;
        (per_vsync.len() as i64, n(|v| v.0), n(|v| v.1))
    })
}

/// `_android_jank_cuj_main_thread_cuj_boundary`: from the first frame's start — its expected start, or the end
/// of the previous doFrame if later, when its actual slices bracket the doFrame; else the doFrame's start — to
/// the end of the last doFrame. (ts, dur), ns.
/// The FrameTimeline slices' indices by (pid, token), built once for all CUJs.
struct SlicesByToken {
    expected: FxHashMap<(i32, i64), Vec<usize>>,
    actual: FxHashMap<(i32, i64), Vec<usize>>,
}

fn boundary(
    timeline: &Timeline,
    slices: &SlicesByToken,
    tables: &AppFrameTables,
    do_frames: &[usize],
    pid: i32,
    range: (i64, i64),
) -> Option<(i64, i64)> {
    let mut ordered: Vec<_> = do_frames.iter().map(|&i| &tables.do_frames[i]).collect();
    ordered.sort_by_key(|d| d.frame_id);
    let mut starts = Vec::new();
    let mut prev_end = -1;
    for d in &ordered {
        // The expected slices (dur > 0) of this vsync with the bounds of the actual slices of the same token.
        let key = (pid, d.frame_id);
        let acts = slices
            .actual
            .get(&key)
            .into_iter()
            .flatten()
            .map(|&a| &timeline.actual[a]);
        let bounds = acts
            .clone()
            .map(|a| a.ts_ns)
            .min()
            .zip(acts.map(|a| a.ts_ns + a.dur_ns).max());
        let brackets = bounds.is_some_and(|(min_ts, max_end)| {
            (range.0..=range.1).contains(&d.frame_id)
                && d.ts >= min_ts - 1_000_000
                && d.ts <= max_end
        });
        let expected_starts: Vec<i64> = slices
            .expected
            .get(&key)
            .into_iter()
            .flatten()
            .map(|&e| &timeline.expected[e])
            .filter(|e| brackets && e.dur_ns > 0)
            .map(|e| e.ts_ns)
            .collect();
        if expected_starts.is_empty() {
            starts.push(d.ts);
        } else {
            starts.extend(expected_starts.iter().map(|&e| prev_end.max(e)));
        }
        prev_end = d.end();
    }
    let ts = *starts.iter().min()?;
    let ts_end = ordered.iter().map(|d| d.end()).max()?;
    Some((ts, ts_end - ts))
}
