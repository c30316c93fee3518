//! The data block of a text capture's HTML report: per layer (or window) each present as a frame spanning the
//! interval from the previous present, marked by PerfDog's rule as the capture picture marks it (idle gaps left
//! out); per logcat pid each `Skipped N frames!` line as a frame of N vsync periods ending at the line.

use super::data::{file_name, summary, Facts, Frame, PageData, JANKY};
use super::{verdict_lines, Strings};
use crate::analysis::capture::{CaptureLayer, CaptureReport};
use crate::model::Source;
use crate::output::chart::capture::{marks, presents_and_idle, Mark};
use crate::output::text;

/// The vsync period assumed for a logcat pid's skipped frames when none is known, ns (60 Hz).
const LOGCAT_PERIOD_NS: i64 = 16_666_667;

/// The page of `report`.
pub fn capture(report: &CaptureReport) -> PageData<'static> {
    let c = &report.capture;
    let origin = c.first_ts_ns.unwrap_or(0);
    let period = report.series.iter().find_map(|s| s.period_ns);
    let facts = Facts {
        path: c.path.clone(),
        refresh_rate_hz: period.map(|p| 1e9 / p as f64),
        vsync_period_ns: period,
        span_ms: c.span_ms,
        captured_with: Some(c.captured_with),
        ..Facts::default()
    };
    let title = format!("ftl report — {}", file_name(&c.path));
    let mut page = PageData::new("capture", title, facts, origin);
    let mut strings = Strings::default();
    let mut layers = Vec::new();
    for (i, layer) in report.layers.iter().enumerate() {
        let index = layers.len() as u32;
        let janky = if report.source == Source::Logcat {
            skips(&mut page, layer, index, origin, &mut strings)
        } else {
            presents(&mut page, report, i, index, origin, &mut strings)
        };
        let mut value = summary(layer);
        if let Some(map) = value.as_object_mut() {
            map.insert("layer_name".into(), name(layer).into());
            map.insert("janky_frames".into(), janky.into());
        }
        layers.push(value);
    }
    let verdict = verdict_lines(&text::capture_verdict(report));
    let vsync = period.map(|p| vec![[0, 0, p]]).unwrap_or_default();
    let legend: Vec<(&str, _)> = [Mark::Normal, Mark::Jank, Mark::BigJank, Mark::Idle]
        .iter()
        .map(|m| (m.name(), m.rgb()))
        .collect();
    page.finish(&legend, verdict, layers, strings, vsync);
    page
}

/// A layer's name on the page: its layer or window as `ftl analyze` names it, else its pid.
fn name(layer: &CaptureLayer) -> String {
    match (&layer.layer_name, layer.pid) {
        (Some(name), _) => name.clone(),
        (None, Some(pid)) => format!("pid {pid}"),
        (None, None) => "unknown pid".into(),
    }
}

/// The presents of layer `i` as frames of page layer `index`; the PerfDog Janks among them.
fn presents(
    page: &mut PageData<'_>,
    report: &CaptureReport,
    i: usize,
    index: u32,
    origin: i64,
    strings: &mut Strings,
) -> u64 {
    let Some(series) = report.series.get(i) else {
        return 0;
    };
    let (presents, idle) = presents_and_idle(series);
    let marks = marks(&presents, &idle);
    let mut janky = 0;
    for (k, &present) in presents.iter().enumerate() {
        let previous = k.checked_sub(1).map(|j| presents[j]);
        // The first present has no interval: it is drawn at its time, unmarked.
        let mark = k.checked_sub(1).and_then(|j| marks.get(j)).copied();
        let is_jank = matches!(mark, Some(Mark::Jank | Mark::BigJank));
        janky += u64::from(is_jank);
        let mark = mark.unwrap_or(Mark::Normal);
        let frame = Frame {
            layer: index,
            actual_start: previous.unwrap_or(present) - origin,
            dur: previous.map_or(0, |p| present - p),
            present: Some(present - origin),
            present_interval: previous.map(|p| present - p),
            jank_type: strings.of(mark.name()),
            flags: if is_jank { JANKY } else { 0 },
            ..Frame::default()
        };
        page.push_frame(frame, mark.rgb());
    }
    janky
}

/// A logcat pid's `Skipped N frames!` lines as frames of page layer `index`, each janky.
fn skips(
    page: &mut PageData<'_>,
    layer: &CaptureLayer,
    index: u32,
    origin: i64,
    strings: &mut Strings,
) -> u64 {
    let period = layer
        .pacing
        .refresh_period_ms
        .map_or(LOGCAT_PERIOD_NS, |ms| (ms * 1e6).round() as i64);
    let mut n = 0;
    for s in &layer.skips {
        let Some(ts) = s.ts_ns else { continue };
        let dur = s.skipped as i64 * period;
        let frame = Frame {
            layer: index,
            actual_start: ts - dur - origin,
            dur,
            jank_type: strings.of(&format!("Skipped {} frames", s.skipped)),
            flags: JANKY,
            ..Frame::default()
        };
        page.push_frame(frame, Mark::BigJank.rgb());
        n += 1;
    }
    n
}
