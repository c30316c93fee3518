//! The picture of a text capture: frame times, FPS and headline numbers per layer; GT SM per logcat pid.

mod panels;
#[cfg(test)]
mod tests;

use super::data::{Rgb, Window, WindowChoice, WindowSpec, NS_PER_MS, NS_PER_S};
use super::{ChartOptions, DrawResult, Picture};
use crate::analysis::capture::{CaptureLayer, CaptureReport};
use crate::analysis::idle::{active_presents, idle_intervals};
use crate::analysis::pacing::perfdog_janks;
use crate::model::Source;
use crate::output::label::{layer_label, ABSENT};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use std::cmp::Reverse;

/// Most layers (or pids) drawn, one row each.
pub const MAX_ROWS: usize = 4;
/// Smallest row height, px: short images get fewer rows.
const MIN_ROW_PX: i32 = 180;
/// Height of the title band, px.
const HEADER_PX: i32 = 56;

/// How an interval is marked: PerfDog's classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Not a Jank.
    Normal,
    /// A Jank that is not a BigJank.
    Jank,
    /// A BigJank.
    BigJank,
    /// An idle gap (nothing asked to draw, [`crate::analysis::idle`]): not a frame, the line breaks there.
    Idle,
}

impl Mark {
    /// Its colour in the pictures and the HTML report.
    pub fn rgb(self) -> Rgb {
        let c = match self {
            Mark::Normal => panels::SMOOTH,
            Mark::Jank => panels::JANK,
            Mark::BigJank => panels::BIG_JANK,
            Mark::Idle => panels::IDLE,
        };
        Rgb(c.0, c.1, c.2)
    }

    /// Its name in the HTML report's jank-type column.
    pub fn name(self) -> &'static str {
        match self {
            Mark::Normal => "None",
            Mark::Jank => "PerfDog Jank",
            Mark::BigJank => "PerfDog BigJank",
            Mark::Idle => "idle gap (left out)",
        }
    }
}

/// One present-to-present interval, drawn at its ending present.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The ending present, s from the capture's first present.
    pub t_s: f64,
    /// Length, ms.
    pub ms: f64,
    /// PerfDog's class.
    pub mark: Mark,
}

/// One row of the picture: a layer's frame times and FPS, or a pid's GT SM and skipped-frame events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    /// Layer, window or pid, readable.
    pub label: String,
    /// The frame-time panel's intervals in the window; empty for a logcat pid.
    pub intervals: Vec<Interval>,
    /// Each frame's own duration where the source measures one (gfxinfo: JankTracker's
    /// `IntendedVsync → FrameCompleted`), as (s from the origin at the frame's end, ms), in the window.
    pub durations: Vec<(f64, f64)>,
    /// The vsync guides' period, ms.
    pub period_ms: Option<f64>,
    /// Start of the first per-second value, s from the capture's first present (or log line).
    pub offset_s: f64,
    /// FPS per second (layers) or GT SM per second (pids).
    pub per_second: Vec<f64>,
    /// Mean of `per_second`.
    pub mean: Option<f64>,
    /// `sm_per_second` (layers), drawn over the FPS bars.
    pub sm: Vec<f64>,
    /// logcat: the `Skipped N frames!` lines as (s from the first log line, N).
    pub skips: Vec<(f64, u64)>,
    /// The headline numbers, (name, value); an empty name makes a note.
    pub numbers: Vec<(&'static str, String)>,
}

/// What the picture shows below the title.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Frame times and FPS per layer.
    Layers(Vec<Row>),
    /// GT SM per logcat pid.
    Pids(Vec<Row>),
    /// Nothing to draw: why, and the totals there are, in lines.
    Nothing(Vec<String>),
}

/// The picture of a capture for an image of the given size.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureChart {
    /// Title line: file, kind of capture, window.
    pub title: String,
    /// Second line: the axes and colours, and what is left out.
    pub subtitle: String,
    /// The time range shown, s from the first present (or log line).
    pub x_s: (f64, f64),
    /// The rows, or why there are none.
    pub body: Body,
    /// Image size, px.
    pub size: (u32, u32),
}

/// `Some(x)` formatted, or `-`.
fn opt<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or_else(|| ABSENT.to_string(), f)
}

/// The window of `spec` over `first..last` (ns): the whole capture unless a range is given.
fn window(spec: WindowSpec, first: i64, last: i64) -> Window {
    match spec {
        WindowSpec::Auto { .. } => Window {
            origin_ns: first,
            start_ns: first,
            end_ns: last.max(first + 1),
            choice: WindowChoice::WholeSpan,
        },
        spec => Window::choose(spec, &[], first, last),
    }
}

/// The present-to-present intervals of `presents` (ns, ascending, distinct) ending in `start..=end` (ns), times
/// from `origin`: the idle ones (`idle`, one flag per interval, [`idle_intervals`]) marked idle, the others by
/// PerfDog's rule over the presents with the idle intervals cut out ([`active_presents`]).
pub fn intervals(
    presents: &[i64],
    idle: &[bool],
    origin: i64,
    start: i64,
    end: i64,
) -> Vec<Interval> {
    let marks = marks(presents, idle);
    let interval = |(w, mark): (&[i64], Mark)| Interval {
        t_s: (w[1] as f64 - origin as f64) / NS_PER_S as f64,
        ms: (w[1] as f64 - w[0] as f64) / NS_PER_MS as f64,
        mark,
    };
    let all = presents.windows(2).zip(marks);
    all.filter(|(w, _)| (start..=end).contains(&w[1]))
        .map(interval)
        .collect()
}

/// A series' distinct presents (ns, ascending) and which of their intervals are idle ([`idle_intervals`]; none
/// when the source does not say when frames were asked for).
pub fn presents_and_idle(series: &crate::model::FrameSeries) -> (Vec<i64>, Vec<bool>) {
    let presents = series.presents();
    let idle = idle_intervals(
        series.frames.requested_and_present(),
        &presents,
        series.period_ns.unwrap_or(0),
    )
    .unwrap_or_default();
    (presents, idle)
}

/// The mark of each present-to-present interval of `presents` (ns, ascending, distinct): the idle ones (`idle`,
/// one flag per interval, [`idle_intervals`]) idle, the others by PerfDog's rule over the presents with the idle
/// intervals cut out ([`active_presents`]).
pub fn marks(presents: &[i64], idle: &[bool]) -> Vec<Mark> {
    let mut marks: Vec<Mark> = (0..presents.len().saturating_sub(1))
        .map(|i| match idle.get(i) {
            Some(true) => Mark::Idle,
            _ => Mark::Normal,
        })
        .collect();
    let (active, original) = active_presents(presents, idle);
    for j in perfdog_janks(&active) {
        if let Some(m) = original.get(j.index).and_then(|&i| marks.get_mut(i)) {
            *m = if j.big { Mark::BigJank } else { Mark::Jank };
        }
    }
    marks
}

/// The headline numbers of a layer, as `ftl analyze` prints them.
fn layer_numbers(layer: &CaptureLayer) -> Vec<(&'static str, String)> {
    let p = &layer.pacing;
    let (f1, int) = (|v: f64| format!("{v:.1}"), |v: u64| v.to_string());
    let pair = |a: String, b: String| format!("{a} / {b}");
    let mut n = vec![
        ("avg_surface_fps", opt(p.avg_surface_fps, |v| v.to_string())),
        (
            "FPS mean / min",
            pair(opt(p.fps_mean, f1), opt(p.fps_min, f1)),
        ),
        ("1% low FPS", opt(p.fps_1pct_low, f1)),
        ("jank_count", opt(p.jank_count, int)),
        (
            "max_frame_delay",
            opt(p.max_frame_delay, |v| format!("{v} vsync")),
        ),
        (
            "PerfDog Jank / Big",
            pair(opt(p.perfdog_jank, int), opt(p.perfdog_big_jank, int)),
        ),
        (
            "PerfDog Stutter",
            opt(p.perfdog_stutter_pct, |v| format!("{v:.2} %")),
        ),
        (
            "sm mean / min",
            pair(opt(p.sm, f1), opt(p.sm_min, |v| v.to_string())),
        ),
    ];
    if let Some(gaps) = p.activity.idle_gaps {
        n.push((
            "idle gaps",
            format!(
                "{gaps} ({} s active)",
                opt(p.activity.active_s, |v| format!("{v:.2}"))
            ),
        ));
        n.push(("FPS while drawing", opt(p.activity.active_fps, f1)));
        n.push((
            "PerfDog active",
            pair(
                opt(p.activity.perfdog_jank_active, int),
                opt(p.activity.perfdog_big_jank_active, int),
            ) + &opt(p.activity.perfdog_stutter_pct_active, |v| {
                format!(", {v:.2} %")
            }),
        ));
    }
    if let Some(j) = layer
        .jank_tracker
        .iter()
        .find(|j| j.numbers == "recomputed")
    {
        let janky = format!(
            "{} ({}/{})",
            opt(j.janky_pct, |v| format!("{v:.2} %")),
            opt(j.janky_frames, int),
            opt(j.total_frames, int)
        );
        n.push(("JankTracker janky", janky));
        let (p50, p90, p99) = (
            j.frame_time_ms_p50,
            j.frame_time_ms_p90,
            j.frame_time_ms_p99,
        );
        let (p50, p90, p99) = (opt(p50, int), opt(p90, int), opt(p99, int));
        n.push(("p50 / p90 / p99", format!("{p50}/{p90}/{p99} ms")));
    }
    n
}

/// The row of layer `i` (with at least one interval), times from `origin`.
fn series_row(report: &CaptureReport, i: usize, origin: i64, w: &Window) -> Option<Row> {
    let (s, layer) = (report.series.get(i)?, report.layers.get(i)?);
    let (presents, idle) = presents_and_idle(s);
    let p = &layer.pacing;
    let pid = s
        .pid
        .map_or_else(String::new, |pid| format!(" (pid {pid})"));
    let in_window = |(end, _): &&(i64, i64)| (w.start_ns..=w.end_ns).contains(end);
    Some(Row {
        label: layer_label(&s.layer_name) + &pid,
        intervals: intervals(&presents, &idle, origin, w.start_ns, w.end_ns),
        durations: layer
            .frame_durations_ns
            .iter()
            .filter(in_window)
            .map(|(end, dur)| {
                (
                    (*end as f64 - origin as f64) / NS_PER_S as f64,
                    *dur as f64 / NS_PER_MS as f64,
                )
            })
            .collect(),
        period_ms: s.period_ns.map(|n| n as f64 / NS_PER_MS as f64),
        offset_s: (*presents.first()? as f64 - origin as f64) / NS_PER_S as f64,
        per_second: p.fps_per_second.iter().map(|&v| v as f64).collect(),
        mean: p.fps_mean,
        sm: p
            .sm_per_second
            .iter()
            .flatten()
            .map(|&v| v as f64)
            .collect(),
        numbers: layer_numbers(layer),
        ..Row::default()
    })
    .filter(|_| presents.len() >= 2)
}

/// The row of logcat pid `i` (with GT SM per second), times from the first log line `origin`.
fn pid_row(report: &CaptureReport, i: usize, origin: i64) -> Option<Row> {
    let layer = report.layers.get(i)?;
    let p = &layer.pacing;
    let s = |ns: i64| (ns as f64 - origin as f64) / NS_PER_S as f64;
    // GT's ticks start at the earliest of the first log line and the events.
    let t0 = layer
        .skips
        .iter()
        .filter_map(|e| e.ts_ns)
        .fold(origin, i64::min);
    let int = |v: u64| v.to_string();
    let mut numbers = vec![
        (
            "GT SM mean / min",
            opt(p.gt_sm, |v| format!("{v:.1}")) + " / " + &opt(p.gt_sm_min, |v| v.to_string()),
        ),
        ("skip events", opt(layer.skip_events, int)),
        ("skipped frames", opt(layer.skipped_frames, int)),
        (
            "smallest skip",
            opt(layer.min_skipped_frames, |v| format!("{v} frames")),
        ),
    ];
    if crate::analysis::gt::default_threshold(layer.min_skipped_frames) {
        numbers.push(("", crate::analysis::gt::SKIP_WARNING_NOTE.to_string()));
    }
    Some(Row {
        label: format!("pid {}", layer.pid?),
        offset_s: s(t0),
        per_second: p
            .gt_sm_per_second
            .as_ref()?
            .iter()
            .map(|&v| v as f64)
            .collect(),
        mean: p.gt_sm,
        skips: layer
            .skips
            .iter()
            .filter_map(|e| Some((s(e.ts_ns?), e.skipped)))
            .collect(),
        numbers,
        ..Row::default()
    })
}

/// Indexes of `report.layers` in drawing order: the layers by presents, the logcat pids by skipped frames, most
/// first (ties in capture order).
pub fn order(report: &CaptureReport) -> Vec<usize> {
    let mut order: Vec<usize> = (0..report.layers.len()).collect();
    let l = &report.layers;
    match report.source {
        Source::Logcat => order.sort_by_key(|&i| Reverse(l[i].skipped_frames)),
        _ => order.sort_by_key(|&i| Reverse(l[i].pacing.presented_frames)),
    }
    order
}

/// Why a capture has nothing to draw, with the totals it has.
fn nothing(report: &CaptureReport) -> Vec<String> {
    let c = &report.capture;
    let mut lines = vec![match (report.source, report.layers.is_empty(), c.first_ts_ns) {
        (Source::Logcat, true, _) => format!(
            "No Choreographer \"Skipped N frames!\" line in {} log lines (smooth, or the log does not hold \
             Choreographer's lines): nothing to draw.",
            c.rows
        ),
        (Source::Logcat, false, None) => "This log has no timestamps (-v brief): no GT SM per second. Totals:".into(),
        (Source::Logcat, false, Some(_)) => "No GT SM per second for this log's span. Totals:".into(),
        _ => "No layer or window with two presents or more: no frame times to draw.".into(),
    }];
    for l in &report.layers {
        let name = l
            .layer_name
            .as_deref()
            .map_or_else(String::new, layer_label);
        lines.push(match (l.pid, l.skip_events, l.skipped_frames) {
            (Some(pid), Some(e), Some(f)) => {
                format!("pid {pid}: {e} skip events, {f} skipped frames")
            }
            _ => format!("{name}: {} presents", l.pacing.presented_frames),
        });
        for j in l.jank_tracker.iter().filter(|j| j.numbers == "as_dumped") {
            let frames = opt(j.total_frames, |v| v.to_string());
            let pct = opt(j.janky_pct, |v| format!("{v:.2}"));
            lines.push(format!(
                "    JankTracker as dumped: {frames} frames, janky {pct} %"
            ));
        }
    }
    if report
        .layers
        .iter()
        .any(|l| crate::analysis::gt::default_threshold(l.min_skipped_frames))
    {
        lines.push(crate::analysis::gt::SKIP_WARNING_NOTE.into());
    }
    let diagnostics = report.diagnostics.counts.iter();
    lines.extend(diagnostics.map(|(what, n)| format!("{} × {what}", n.count)));
    lines
}

impl CaptureChart {
    /// The picture of `report` for `options`: `--window` in time from the first present (or log line), the
    /// whole capture by default; at most [`MAX_ROWS`] rows, fewer on short images.
    pub fn build(report: &CaptureReport, options: &ChartOptions) -> CaptureChart {
        let c = &report.capture;
        let logcat = report.source == Source::Logcat;
        let path = std::path::Path::new(&c.path);
        let name = path
            .file_name()
            .map_or_else(|| c.path.clone(), |n| n.to_string_lossy().into_owned());
        let mut title = vec![name, c.captured_with.to_string()];
        let (mut rows, mut x_s) = (Vec::new(), (0.0, 1.0));
        if let Some((first, last)) = c.first_ts_ns.zip(c.last_ts_ns) {
            let w = window(options.window, first, last);
            let s = |ns: i64| (ns as f64 - first as f64) / NS_PER_S as f64;
            x_s = (s(w.start_ns), s(w.end_ns).max(s(w.start_ns) + 1e-3));
            title.push(match w.choice {
                WindowChoice::Given => format!("{} of {:.2} s", w.describe(), s(last)),
                _ => w.describe(),
            });
            let row = |i| {
                if logcat {
                    pid_row(report, i, first)
                } else {
                    series_row(report, i, first, &w)
                }
            };
            rows = order(report).into_iter().filter_map(row).collect();
        }
        let height = i32::try_from(options.height).unwrap_or(i32::MAX);
        let fit = ((height - HEADER_PX) / MIN_ROW_PX).clamp(1, MAX_ROWS as i32) as usize;
        let mut subtitle = vec![format!(
            "x: s from the first {}",
            if logcat { "log line" } else { "present" }
        )];
        subtitle.extend(
            if logcat {
                [
                    "green: GT SM per second (0–60)",
                    "red: Skipped N frames! lines (N on the right)",
                    "dashed: mean",
                ]
            } else {
                [
                    "frame time: present-to-present interval (grey bands: idle gaps, left out), purple crosses: \
                     each frame's own duration where the source has it",
                    "red: PerfDog Jank, dark red: BigJank (idle gaps removed)",
                    "bars: FPS, green: sm, dashed: mean",
                ]
            }
            .map(String::from),
        );
        if rows.len() > fit {
            let (what, most) = if logcat {
                ("pids", "skipped frames")
            } else {
                ("layers", "presents")
            };
            subtitle.push(format!(
                "{} more {what} not shown (most {most} first)",
                rows.len() - fit
            ));
            rows.truncate(fit);
        }
        let body = match (rows.is_empty(), logcat) {
            (true, _) => Body::Nothing(nothing(report)),
            (false, true) => Body::Pids(rows),
            (false, false) => Body::Layers(rows),
        };
        CaptureChart {
            title: title.join("  ·  "),
            subtitle: if matches!(body, Body::Nothing(_)) {
                String::new()
            } else {
                subtitle.join("  ·  ")
            },
            x_s,
            body,
            size: (options.width, options.height),
        }
    }
}

impl Picture for CaptureChart {
    fn size(&self) -> (u32, u32) {
        self.size
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        panels::draw(root, self)
    }
}
