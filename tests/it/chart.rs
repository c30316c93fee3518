//! `ftl report` and `ftl analyze --png`: the chart model on real traces, the SVG golden of the synthetic trace, and
//! PNG files (signature, size, content) rendered without system fonts; the UI thread / RenderThread lanes of app
//! layers and the sub-row stacking of overlapping slices.

use crate::common::{shared, REAL_TRACES};
use ftl::analysis::app::blame::LateStage;
use ftl::output::chart::app_lanes::{stage_rgb, ON_TIME_RGB};
use ftl::output::chart::data::{Bar, JankClass, WindowChoice, WindowSpec, NS_PER_S};
use ftl::output::chart::{Chart, ChartOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn synthetic() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/synthetic_60hz.pftrace")
}

fn real(file: &str) -> PathBuf {
    shared().join("traces").join(file)
}

/// Runs ftl with fontconfig pointed nowhere and no font directories: the embedded font must be enough.
fn ftl_without_fonts(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ftl"))
        .args(args)
        .env("FONTCONFIG_FILE", "/nonexistent/fonts.conf")
        .env("FONTCONFIG_PATH", "/nonexistent")
        .env("XDG_DATA_HOME", "/nonexistent")
        .output()
        .expect("run ftl")
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "ftl failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// PNG signature and IHDR size.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

fn report(path: &Path) -> ftl::analysis::Report {
    crate::common::trace_report(path, &Default::default())
}

#[test]
fn report_svg_of_the_synthetic_trace_matches_the_golden_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.svg");
    ok(&ftl_without_fonts(&[
        "report",
        synthetic().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]));
    let svg = std::fs::read_to_string(&out).unwrap();
    let golden =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/golden/synthetic_60hz.report.svg");
    if std::env::var_os("FTL_BLESS").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &svg).unwrap();
    }
    let expected = std::fs::read_to_string(&golden)
        .unwrap_or_else(|e| panic!("{}: {e} (FTL_BLESS=1 writes it)", golden.display()));
    assert!(
        svg == expected,
        "the SVG report drifted from {}; rerun with FTL_BLESS=1 and look at it",
        golden.display()
    );
    assert!(svg.starts_with("<svg") && svg.contains("synthetic_60hz.pftrace"));
    // The three late frames of the simulated app are drawn in Perfetto's Self Jank red.
    assert!(svg.contains("#FF5722"), "no red frame");
}

#[test]
fn report_png_of_each_real_trace_renders_without_system_fonts() {
    let dir = tempfile::tempdir().unwrap();
    for (name, file) in REAL_TRACES {
        let out = dir.path().join(format!("{name}.png"));
        ok(&ftl_without_fonts(&[
            "report",
            real(file).to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]));
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(png_size(&bytes), (1600, 900), "{name}");
        assert!(bytes.len() > 30_000, "{name}: only {} bytes", bytes.len());
    }
}

#[test]
fn png_size_options_and_names_without_extension() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    ok(&ftl_without_fonts(&[
        "report",
        synthetic().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--width",
        "1000",
        "--height",
        "700",
        "--window",
        "500ms..1.5s",
    ]));
    assert_eq!(png_size(&std::fs::read(&out).unwrap()), (1000, 700));
}

#[test]
fn analyze_png_draws_the_default_report_next_to_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.png");
    let run = ftl_without_fonts(&[
        "analyze",
        synthetic().to_str().unwrap(),
        "--png",
        out.to_str().unwrap(),
    ]);
    ok(&run);
    assert!(!run.stdout.is_empty(), "the text report is still printed");
    assert_eq!(png_size(&std::fs::read(&out).unwrap()), (1600, 900));
}

#[test]
fn bad_windows_and_sizes_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.png");
    let (trace, out) = (synthetic(), out.to_str().unwrap().to_string());
    let run = |extra: &[&str]| {
        let mut args = vec!["report", trace.to_str().unwrap(), "-o", &out];
        args.extend_from_slice(extra);
        ftl_without_fonts(&args)
    };
    let reversed = run(&["--window", "4s..1s"]);
    assert_eq!(reversed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&reversed.stderr).contains("--window"));
    assert_eq!(run(&["--window", "1..2", "--all"]).status.code(), Some(2));
    assert_eq!(run(&["--window-secs", "0"]).status.code(), Some(2));
    let tiny = run(&["--width", "10"]);
    assert_eq!(tiny.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&tiny.stderr).contains("r.png"));
    // Sizes that would overflow the layout or allocate gigabytes are refused, not attempted.
    for (w, h) in [("400", "3000000000"), ("100000", "100000")] {
        let huge = run(&["--width", w, "--height", h]);
        assert_eq!(huge.status.code(), Some(2), "{w}×{h}");
        assert!(String::from_utf8_lossy(&huge.stderr).contains("out of range"));
    }
    // A window far past the trace is drawn (empty), not an overflow.
    let far = run(&["--window", "0..99999999999"]);
    assert_eq!(
        far.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&far.stderr)
    );
    let unwritable = dir.path().join("no/such/dir/r.svg");
    let failed = ftl_without_fonts(&[
        "report",
        trace.to_str().unwrap(),
        "-o",
        unwritable.to_str().unwrap(),
    ]);
    assert_eq!(failed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&failed.stderr).contains("no/such/dir/r.svg"));
}

#[test]
fn pixel7pro_launch_is_shown_whole_with_its_janky_frames_in_red_and_on_top() {
    let r = report(&real(
        "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
    ));
    let chart = Chart::build(&r, &ChartOptions::default());
    let t = &chart.timeline;
    assert_eq!(t.window.choice, WindowChoice::WholeSpan);
    assert!(chart.title.contains("120 Hz") && chart.title.contains("cheetah"));
    let main = t
        .groups
        .iter()
        .find(|g| g.label == "com.google...demo / MainActivity#50010")
        .expect("MainActivity lanes");
    let self_jank = r
        .frames
        .iter()
        .filter(|f| f.layer_name.ends_with("MainActivity#50010"))
        .filter(|f| f.labels.jank_tag == ftl::model::JankTag::SelfJank)
        .count();
    assert_eq!(self_jank, 16);
    let red: Vec<_> = main
        .actual
        .iter()
        .filter(|b| {
            b.rgb == JankClass::SelfJank.rgb("Full") || b.rgb == JankClass::SelfJank.rgb("Partial")
        })
        .collect();
    assert_eq!(red.len(), self_jank);
    // Janky frames come last, so nothing good is drawn over them.
    let first_janky = main.actual.iter().position(|b| b.janky).unwrap();
    assert!(main.actual[first_janky..].iter().all(|b| b.janky));
    assert_eq!(main.actual.len() - first_janky, main.janky);
    // Buffer stuffing is light green, never red.
    let stuffed = main
        .actual
        .iter()
        .filter(|b| b.rgb == JankClass::HighLatency.rgb("None"))
        .count();
    assert!(stuffed > 0);
    assert_eq!(
        t.groups.last().unwrap().label,
        "SurfaceFlinger / DisplayFrames"
    );
    assert!(
        t.vsync_ns.is_empty(),
        "8.3 ms vsyncs are < 3 px apart over 10 s"
    );
}

#[test]
fn long_emulator_trace_shows_its_jankiest_window_unless_asked_otherwise() {
    let r = report(&real("emulator_a12_cpu_sampling_60hz.pftrace"));
    let chart = Chart::build(&r, &ChartOptions::default());
    let w = chart.timeline.window;
    let WindowChoice::MostJanky { janky } = w.choice else {
        panic!("{w:?}")
    };
    assert_eq!(w.len_ns(), 5 * NS_PER_S);
    let in_window = r
        .frames
        .iter()
        .filter(|f| {
            f.labels.jank_tag.is_janky()
                && f.actual_start_ns >= w.start_ns
                && f.actual_start_ns < w.end_ns
        })
        .count();
    assert_eq!(janky, in_window);
    // No other 5 s window starting at a janky frame holds more.
    for f in r.frames.iter().filter(|f| f.labels.jank_tag.is_janky()) {
        let n = r
            .frames
            .iter()
            .filter(|g| g.labels.jank_tag.is_janky())
            .filter(|g| {
                g.actual_start_ns >= f.actual_start_ns
                    && g.actual_start_ns < f.actual_start_ns + 5 * NS_PER_S
            })
            .count();
        assert!(n <= janky, "{n} > {janky}");
    }
    assert!(chart.title.contains("most janky"));
    assert!(chart.timeline.groups.iter().any(|g| g
        .actual
        .iter()
        .any(|b| b.rgb == JankClass::OtherJank.rgb("Full"))));
    let all = ChartOptions {
        window: WindowSpec::All,
        ..ChartOptions::default()
    };
    let whole = Chart::build(&r, &all).timeline.window;
    assert_eq!(
        (whole.start_ns, whole.end_ns),
        (r.trace.first_ts_ns, r.trace.last_ts_ns)
    );
}

/// The headline numbers `ftl analyze --format json` gives for the first layer of a text capture, as the picture
/// prints them.
fn headline_numbers(capture: &Path) -> Vec<String> {
    let out = ftl_without_fonts(&["analyze", capture.to_str().unwrap(), "--format", "json"]);
    ok(&out);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let l = &report["layers"][0];
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    let mut numbers = vec![
        l["avg_surface_fps"].to_string(),
        format!("{:.1} / {:.1}", f(&l["fps_mean"]), f(&l["fps_min"])),
        format!("{:.1}", f(&l["fps_1pct_low"])),
        l["jank_count"].to_string(),
        format!("{} vsync", l["max_frame_delay"]),
        format!("{} / {}", l["perfdog_jank"], l["perfdog_big_jank"]),
        format!("{:.2} %", f(&l["perfdog_stutter_pct"])),
    ];
    if !l["sm"].is_null() {
        numbers.push(format!("{:.1} / {}", f(&l["sm"]), l["sm_min"]));
    }
    let trackers = l["jank_tracker"].as_array().unwrap();
    if let Some(j) = trackers.iter().find(|j| j["numbers"] == "recomputed") {
        let janky = (f(&j["janky_pct"]), &j["janky_frames"], &j["total_frames"]);
        numbers.push(format!("{:.2} % ({}/{})", janky.0, janky.1, janky.2));
        let p = ["p50", "p90", "p99"].map(|p| j[format!("frame_time_ms_{p}")].to_string());
        numbers.push(format!("{} ms", p.join("/")));
    }
    numbers
}

/// A 60 Hz `--latency` capture of about 12 s: a frame two vsyncs late every 97, a 300 ms hitch and a 1 s pause.
fn synthetic_latency(path: &Path) {
    let p = 16_666_666i64;
    let mut text = format!("{p}\n");
    let mut t = 9_000_000_000_000i64;
    for i in 0..700 {
        let actual = t + if i % 97 == 13 { 2 * p } else { 0 };
        text += &format!("{t}\t{actual}\t{}\n", actual - p / 2);
        t = actual
            + p * [(180, 18), (420, 60)]
                .iter()
                .find(|g| g.0 == i)
                .map_or(1, |g| g.1);
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn text_captures_render_to_png_and_svg_with_their_headline_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let latency = dir.path().join("latency.txt");
    synthetic_latency(&latency);
    let gfxinfo = shared().join("text/linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt");
    for (name, capture) in [("gfxinfo", gfxinfo), ("latency", latency)] {
        let numbers = headline_numbers(&capture);
        assert!(numbers.len() >= 8, "{name}: {numbers:?}");
        let png = dir.path().join(format!("{name}.png"));
        let svg = dir.path().join(format!("{name}.svg"));
        for (out, size) in [(&png, ["1200", "700"]), (&svg, ["1600", "900"])] {
            let mut args = vec![
                "report",
                capture.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ];
            args.extend(["--width", size[0], "--height", size[1]]);
            ok(&ftl_without_fonts(&args));
        }
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(png_size(&bytes), (1200, 700), "{name}");
        assert!(bytes.len() > 30_000, "{name}: only {} bytes", bytes.len());
        let svg = std::fs::read_to_string(&svg).unwrap();
        assert!(
            svg.starts_with(r#"<svg width="1600" height="900""#),
            "{name}"
        );
        // Text elements hold one line each.
        for n in &numbers {
            assert!(
                svg.contains(&format!("\n{n}\n")),
                "{name}: {n} is not in the SVG"
            );
        }
        assert!(svg.contains("frame time"), "{name}");
    }
    // A logcat without Choreographer lines still gets a picture saying so.
    let log = dir.path().join("quiet.log");
    let line = "11-23 11:20:03.123  1234  1250 I ActivityManager: Start proc";
    std::fs::write(&log, format!("{line}\n{line}\n")).unwrap();
    let out = dir.path().join("quiet.png");
    ok(&ftl_without_fonts(&[
        "report",
        log.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]));
    assert_eq!(png_size(&std::fs::read(&out).unwrap()), (1600, 900));
}

/// Renders `trace` to an SVG (default size) and returns its text.
fn report_svg(trace: &Path, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.svg");
    let mut args = vec![
        "report",
        trace.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ok(&ftl_without_fonts(&args));
    std::fs::read_to_string(&out).unwrap()
}

/// True if `svg` has a text element reading exactly `text` (each holds one line).
fn has_text(svg: &str, text: &str) -> bool {
    svg.contains(&format!(">\n{text}\n</text>"))
}

#[test]
fn pixel6a_app_layers_get_ui_thread_and_renderthread_lanes_coloured_by_late_stage() {
    let trace = real("pixel6a_a13_startup_warm_60hz.perfetto-trace");
    let r = report(&trace);
    let chart = Chart::build(&r, &ChartOptions::default());
    let groups = &chart.timeline.groups;
    // Every app layer of this trace has app sections; SurfaceFlinger's DisplayFrames never get the pair.
    assert_eq!(groups.len(), 5);
    let (sf, apps) = groups.split_last().unwrap();
    assert!(sf.app.is_none() && sf.lanes() == 2);
    assert!(apps.iter().all(|g| g.app.is_some() && g.lanes() == 4));
    // The janky frame 191058 on the splash screen: late because of its UI thread; both its bars say so.
    let janky = r
        .frames
        .iter()
        .find(|f| f.surface_frame_token == 191058)
        .unwrap();
    assert_eq!(janky.late_stage, Some(LateStage::UiThread));
    let splash = groups
        .iter()
        .find(|g| g.label.starts_with("Splash Screen"))
        .unwrap();
    let app = splash.app.as_ref().unwrap();
    let purple = stage_rgb(LateStage::UiThread);
    let work = janky.app_work.get();
    let ui_start = work.ui_start_ns.unwrap();
    assert_eq!(
        app.ui,
        vec![Bar {
            start_ns: ui_start,
            end_ns: ui_start + work.ui_dur_ns.unwrap(),
            rgb: purple,
            janky: true,
            row: 0,
        }]
    );
    assert_eq!(
        app.render
            .iter()
            .map(|b| (b.start_ns, b.end_ns, b.rgb))
            .collect::<Vec<_>>(),
        vec![(work.rt_start_ns.unwrap(), work.rt_end_ns.unwrap(), purple)]
    );
    assert_eq!(app.late, vec![(LateStage::UiThread, 1)]);
    // The other layers' frames were on time.
    for g in apps.iter().filter(|g| g.label != splash.label) {
        let a = g.app.as_ref().unwrap();
        assert!(
            a.ui.iter().chain(&a.render).all(|b| b.rgb == ON_TIME_RGB),
            "{}",
            g.label
        );
        assert!(a.late.is_empty());
    }
    // The picture: lane labels, the legend row of stage colours (only the stage shown), the purple bars.
    let svg = report_svg(&trace, &[]);
    for text in [
        "UI thread",
        "RenderThread",
        "on time",
        "late: UI thread",
        "late: UI thread 1",
    ] {
        assert!(has_text(&svg, text), "{text} is not in the SVG");
    }
    assert!(!has_text(&svg, "late: GPU"));
    assert!(svg.contains("#8E24AA"), "no purple bar");
}

#[test]
fn each_injected_cause_colours_its_frame_and_has_a_legend_entry() {
    let (_dir, trace) = crate::common::write_pipeline(&crate::common::injected_causes());
    let r = report(&trace);
    let chart = Chart::build(&r, &ChartOptions::default());
    let app = chart.timeline.groups[0].app.as_ref().expect("app lanes");
    let stages = [
        LateStage::UiThread,
        LateStage::RenderThread,
        LateStage::Gpu,
        LateStage::SurfaceFlinger,
    ];
    assert_eq!(app.late, stages.map(|s| (s, 1)).to_vec());
    for lane in [&app.ui, &app.render] {
        // One bar per app frame; the four late ones last, one per stage colour, in time order.
        assert_eq!(lane.len(), r.frames.len());
        let late: Vec<_> = lane.iter().filter(|b| b.janky).map(|b| b.rgb).collect();
        assert_eq!(late, stages.map(stage_rgb).to_vec());
        assert!(lane[..lane.len() - 4]
            .iter()
            .all(|b| b.rgb == ON_TIME_RGB && !b.janky));
    }
    let svg = report_svg(&trace, &[]);
    for text in [
        "late: UI thread",
        "late: RenderThread",
        "late: GPU",
        "late: SurfaceFlinger",
    ] {
        assert!(has_text(&svg, text), "{text} is not in the SVG");
    }
    assert!(!has_text(&svg, "late: buffer stuffing"));
}

#[test]
fn traces_without_app_sections_keep_two_lanes_per_layer() {
    for file in [
        "emulator_a12_cpu_sampling_60hz.pftrace",
        "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
    ] {
        let r = report(&real(file));
        let chart = Chart::build(&r, &ChartOptions::default());
        assert!(
            chart
                .timeline
                .groups
                .iter()
                .all(|g| g.app.is_none() && g.lanes() == 2),
            "{file}"
        );
        assert_eq!(
            chart.layout.header_bottom, 84,
            "{file}: no extra legend row"
        );
    }
    let svg = report_svg(&synthetic(), &[]);
    assert!(!has_text(&svg, "UI thread") && !has_text(&svg, "RenderThread"));
}

/// True if no two bars in the same sub-row of `bars` overlap (half-open), unless one of them is in the last
/// row a lane has (where deeper bars share it).
fn rows_are_disjoint(bars: &[Bar]) -> bool {
    let mut sorted: Vec<&Bar> = bars.iter().collect();
    sorted.sort_by_key(|b| (b.row, b.start_ns));
    sorted
        .windows(2)
        .all(|w| w[0].row != w[1].row || w[0].end_ns <= w[1].start_ns || w[1].row == 3)
}

#[test]
fn overlapping_120hz_slices_are_stacked_in_sub_rows() {
    let r = report(&real(
        "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
    ));
    let chart = Chart::build(&r, &ChartOptions::default());
    let main = chart
        .timeline
        .groups
        .iter()
        .find(|g| g.label == "com.google...demo / MainActivity#50010")
        .unwrap();
    // Expected SurfaceFrames longer than the 8.3 ms vsync overlap: they take more than one sub-row.
    let rows = |bars: &[Bar]| bars.iter().map(|b| b.row).max().unwrap_or(0) + 1;
    assert!(rows(&main.expected) >= 2, "{}", rows(&main.expected));
    for g in &chart.timeline.groups {
        for lane in [&g.expected, &g.actual] {
            assert!(rows(lane) <= 4, "{}", g.label);
            assert!(rows_are_disjoint(lane), "{}", g.label);
        }
    }
    // At 60 Hz the synthetic trace's slices do not overlap: one row each (its golden SVG is unchanged).
    let r = report(&synthetic());
    let chart = Chart::build(&r, &ChartOptions::default());
    for g in &chart.timeline.groups {
        assert!(
            g.expected.iter().chain(&g.actual).all(|b| b.row == 0),
            "{}",
            g.label
        );
    }
}

#[test]
fn a_given_window_is_counted_from_the_first_frametimeline_slice() {
    // The Pixel 6a's frames are 480–680 ms into the FrameTimeline span; --window also makes the analysis keep only
    // the frames inside it, so the report's first frame is not the origin.
    let trace = real("pixel6a_a13_startup_warm_60hz.perfetto-trace");
    let whole = report(&trace);
    let config = ftl::analysis::Config {
        windows: ftl::model::window::WindowSpec {
            ranges: vec![(480_000_000, 580_000_000)],
            ..Default::default()
        },
        ..Default::default()
    };
    let ftl::analysis::Analysis::Trace(r) = ftl::analyze_path(&trace, &config).unwrap() else {
        panic!("a trace")
    };
    let options = ChartOptions {
        window: WindowSpec::parse_range("480ms..580ms").unwrap(),
        ..ChartOptions::default()
    };
    let chart = Chart::build(&r, &options);
    let w = chart.timeline.window;
    assert_eq!(w.start_ns - w.origin_ns, 480_000_000);
    assert_eq!(w.len_ns(), 100_000_000);
    assert_eq!(w.origin_ns, whole.trace.first_ts_ns);
    assert!(w.origin_ns < r.trace.first_ts_ns);
    let splash = chart
        .timeline
        .groups
        .iter()
        .find(|g| g.label.starts_with("Splash Screen"))
        .expect("the janky splash frame is in the window");
    assert_eq!(splash.janky, 1);
    assert!(
        chart.title.contains("window 0.48–0.58 s"),
        "{}",
        chart.title
    );
}
