//! Unit tests of the capture picture's model: marked intervals, rows shown, window, nothing to draw.

use super::*;
use crate::analysis::capture::{logcat, sf_latency, CaptureFacts};
use crate::analysis::pacing::pacing;
use crate::model::{FrameSeries, SeriesFrame};
use crate::output::chart::{rasterize, register_font};
use crate::sources::logcat::{ChoreographerLog, LogFormat, SkipEvent, SkippedFrames};
use crate::sources::sf_latency::SfLatencyCapture;

const MS: i64 = 1_000_000;
const PERIOD: i64 = 16_666_667;
const START: i64 = 5_000 * NS_PER_S;

/// A `--latency` series with a present at `START` and then one after each step, ms.
fn series(name: &str, steps_ms: &[i64]) -> FrameSeries {
    let mut t = START;
    let mut presents = vec![t];
    for s in steps_ms {
        t += s * MS;
        presents.push(t);
    }
    let frame = |p| SeriesFrame {
        desired_present_ns: Some(p),
        present_ns: Some(p),
        ..SeriesFrame::default()
    };
    FrameSeries {
        source: Source::SfLatency,
        layer_name: name.into(),
        period_ns: Some(PERIOD),
        period_from: "test",
        presents_from: "present fence",
        frames: presents.into_iter().map(frame).collect(),
        ..FrameSeries::default()
    }
}

/// The report of one `--latency` series, as `ftl analyze` makes it.
fn latency(s: FrameSeries) -> CaptureReport {
    let capture = SfLatencyCapture {
        series: s,
        ..SfLatencyCapture::default()
    };
    sf_latency(capture, "/captures/cap.txt", 1, &Default::default())
}

/// A report of several series (a gfxinfo capture has one per window).
fn several(series: Vec<FrameSeries>) -> CaptureReport {
    let layer = |s: &FrameSeries| CaptureLayer {
        layer_name: Some(s.layer_name.clone()),
        pacing: pacing(s),
        ..CaptureLayer::default()
    };
    let presents: Vec<i64> = series.iter().flat_map(|s| s.presents()).collect();
    CaptureReport {
        source: Source::Gfxinfo,
        capture: CaptureFacts {
            path: "gfx.txt".into(),
            first_ts_ns: presents.iter().copied().min(),
            last_ts_ns: presents.iter().copied().max(),
            ..CaptureFacts::default()
        },
        layers: series.iter().map(layer).collect(),
        series,
        ..CaptureReport::default()
    }
}

fn options(height: u32, window: WindowSpec) -> ChartOptions {
    ChartOptions {
        height,
        window,
        ..ChartOptions::default()
    }
}

fn rows(chart: &CaptureChart) -> &[Row] {
    match &chart.body {
        Body::Layers(rows) | Body::Pids(rows) => rows,
        Body::Nothing(why) => panic!("nothing drawn: {why:?}"),
    }
}

#[test]
fn idle_gaps_are_marked_idle_and_not_counted_as_jank() {
    // Two bursts of 16 ms frames (each asked for one vsync before its present) 5 s apart; the first frame of the
    // second burst is asked for long after the last present: an idle gap, not a 5 s frame.
    let mut steps = vec![16; 8];
    steps.push(5_000);
    steps.extend([16; 8]);
    let mut s = series("app", &steps);
    s.source = Source::Gfxinfo;
    s.frames = s
        .frames
        .iter()
        .map(|f| SeriesFrame {
            expected_start_ns: f.present_ns.map(|p| p - PERIOD),
            ..f
        })
        .collect();
    let report = several(vec![s]);
    let chart = CaptureChart::build(&report, &ChartOptions::default());
    let row = &rows(&chart)[0];
    let marks: Vec<Mark> = row.intervals.iter().map(|i| i.mark).collect();
    let mut want = vec![Mark::Normal; steps.len()];
    want[8] = Mark::Idle;
    assert_eq!(marks, want);
    let p = &report.layers[0].pacing;
    // The peers' numbers count the gap (PerfDog: one BigJank); the idle-aware ones do not.
    assert_eq!((p.perfdog_jank, p.perfdog_big_jank), (Some(1), Some(1)));
    assert_eq!(
        (
            p.activity.idle_gaps,
            p.activity.perfdog_jank_active,
            p.activity.perfdog_big_jank_active
        ),
        (Some(1), Some(0), Some(0))
    );
    assert!(p
        .activity
        .active_s
        .is_some_and(|s| (s - 16.0 * 0.016).abs() < 1e-9));
    assert!(row
        .numbers
        .contains(&("idle gaps", "1 (0.26 s active)".into())));
    // The picture draws without error.
    register_font().unwrap();
    assert!(rasterize(&chart).is_ok());
}

#[test]
fn the_intervals_perfdog_counts_are_the_ones_marked() {
    // 16 ms frames, then 90 ms (Jank), 130 ms (BigJank), and 80 ms (too short for PerfDog).
    let mut steps = vec![16; 10];
    steps.extend([90, 16, 16, 16, 130, 16, 16, 16, 80, 16, 16]);
    let report = latency(series("app", &steps));
    let chart = CaptureChart::build(&report, &ChartOptions::default());
    let row = &rows(&chart)[0];
    assert_eq!(row.intervals.len(), steps.len());
    let marked: Vec<(usize, Mark)> = (0..)
        .zip(&row.intervals)
        .filter(|(_, i)| i.mark != Mark::Normal)
        .map(|(k, i)| (k, i.mark))
        .collect();
    assert_eq!(marked, vec![(10, Mark::Jank), (14, Mark::BigJank)]);
    let p = &report.layers[0].pacing;
    assert_eq!((p.perfdog_jank, p.perfdog_big_jank), (Some(2), Some(1)));
    assert!((row.intervals[14].ms - 130.0).abs() < 1e-9);
    assert!((row.intervals[0].t_s - 0.016).abs() < 1e-9);
    assert_eq!(row.period_ms, Some(PERIOD as f64 / 1e6));
    assert!(row
        .numbers
        .contains(&("PerfDog Jank / Big", "2 / 1".into())));
    assert!(chart
        .title
        .starts_with("cap.txt  ·  dumpsys SurfaceFlinger --latency  ·  whole span"));
}

#[test]
fn the_layers_with_the_most_presents_are_shown_first() {
    let layer = |name: &str, n: usize| series(name, &vec![16; n]);
    let report = several(vec![
        layer("ten", 10),
        layer("fifty", 50),
        series("one present", &[]),
        layer("thirty", 30),
        layer("forty", 40),
        layer("twenty", 20),
    ]);
    let labels = |chart: &CaptureChart| -> Vec<String> {
        rows(chart).iter().map(|r| r.label.clone()).collect()
    };
    let chart = CaptureChart::build(&report, &ChartOptions::default());
    assert_eq!(labels(&chart), ["fifty", "forty", "thirty", "twenty"]);
    assert!(
        chart.subtitle.contains("1 more layers not shown"),
        "{}",
        chart.subtitle
    );
    // A short image has room for fewer rows.
    let short = CaptureChart::build(&report, &options(400, WindowSpec::All));
    assert_eq!(labels(&short), ["fifty"]);
    assert!(short.subtitle.contains("4 more layers not shown"));
}

#[test]
fn the_window_is_counted_from_the_first_present() {
    let report = latency(series("app", &[20; 150])); // 3 s
    let whole = CaptureChart::build(&report, &ChartOptions::default());
    assert_eq!(whole.x_s, (0.0, 3.0));
    assert_eq!(rows(&whole)[0].intervals.len(), 150);
    let given = WindowSpec::parse_range("1s..2s").unwrap();
    let chart = CaptureChart::build(&report, &options(900, given));
    assert_eq!(chart.x_s, (1.0, 2.0));
    let shown = &rows(&chart)[0].intervals;
    assert_eq!(shown.len(), 51, "presents at 1.00, 1.02, …, 2.00 s");
    assert!(shown.iter().all(|i| (1.0..=2.0).contains(&i.t_s)));
    assert!(
        chart.title.ends_with("window 1.00–2.00 s of 3.00 s"),
        "{}",
        chart.title
    );
    // FPS per second is of the whole capture, drawn cut to the window.
    assert_eq!(rows(&chart)[0].per_second, vec![50.0; 3]);
}

fn log(pids: Vec<SkippedFrames>, timed: bool) -> CaptureReport {
    let log = ChoreographerLog {
        format: if timed {
            LogFormat::ThreadTime
        } else {
            LogFormat::Brief
        },
        first_ts_ns: timed.then_some(0),
        last_ts_ns: timed.then_some(10 * NS_PER_S - 1),
        pids,
        lines: 40,
        ..ChoreographerLog::default()
    };
    logcat(log, "main.log", 1, &Default::default())
}

#[test]
fn logcat_pids_show_gt_sm_and_their_skips() {
    let event = |s: i64, n| SkipEvent {
        ts_ns: Some(s * NS_PER_S + 500 * MS),
        skipped: n,
        line: 1,
    };
    let pid = |pid, events| SkippedFrames { pid, events };
    let report = log(
        vec![
            pid(7, vec![event(2, 31)]),
            pid(9, vec![event(1, 40), event(4, 45)]),
        ],
        true,
    );
    let chart = CaptureChart::build(&report, &ChartOptions::default());
    let Body::Pids(rows) = &chart.body else {
        panic!("{:?}", chart.body)
    };
    assert_eq!(rows[0].label, "pid 9", "most skipped frames first");
    assert_eq!(rows[0].skips, vec![(1.5, 40), (4.5, 45)]);
    assert_eq!(rows[0].per_second.len(), 10);
    assert_eq!((rows[0].per_second[1], rows[0].per_second[0]), (20.0, 60.0));
    assert!(rows[1]
        .numbers
        .iter()
        .any(|(k, v)| k.is_empty() && v.contains("skipwarning")));
}

#[test]
fn captures_with_nothing_to_draw_get_a_picture_saying_so() {
    register_font().unwrap();
    let none = log(Vec::new(), true);
    let brief = log(
        vec![SkippedFrames {
            pid: 7,
            events: vec![SkipEvent {
                ts_ns: None,
                skipped: 31,
                line: 3,
            }],
        }],
        false,
    );
    let one_present = latency(series("app", &[]));
    let cases = [
        (none, "No Choreographer"),
        (brief, "no timestamps"),
        (one_present, "two presents"),
    ];
    for (report, why) in cases {
        let chart = CaptureChart::build(&report, &options(300, WindowSpec::All));
        let Body::Nothing(lines) = &chart.body else {
            panic!("{:?}", chart.body)
        };
        assert!(lines[0].contains(why), "{lines:?}");
        let rgb = rasterize(&chart).unwrap();
        assert_eq!(rgb.len(), 1600 * 300 * 3);
        let ink = rgb.chunks_exact(3).filter(|p| p[0] < 128).count();
        assert!(ink > 500, "{why}: {ink} dark pixels");
    }
    let brief = log(
        vec![SkippedFrames {
            pid: 7,
            events: Vec::new(),
        }],
        false,
    );
    let chart = CaptureChart::build(&brief, &ChartOptions::default());
    assert!(matches!(chart.body, Body::Nothing(_)));
}
