//! The terminal report of `ftl analyze`: for a trace, verdict first, then per-process (Perfetto's metric),
//! per-layer, frame pacing and diagnostics tables; for a text capture, frame pacing, JankTracker or GT's SM, and
//! the skipped lines. Aligned with comfy-table.

use super::label;
use crate::analysis::capture::CaptureReport;
use crate::analysis::classify::Reason;
use crate::analysis::janktracker::JankTrackerNumbers;
use crate::analysis::metrics::LayerSummary;
use crate::analysis::pacing::Pacing;
use crate::analysis::Report;
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use std::fmt::Write;

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| label::ABSENT.into(), |v| format!("{v:.2}"))
}

fn ns_ms(v: Option<i64>) -> String {
    ms(v.map(|v| v as f64 / 1e6))
}

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY)
        .set_header(header.iter().map(Cell::new));
    for i in 1..header.len() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// A layer name for a terminal column: [`label::layer_label`] elided to 72 characters.
fn short_layer(name: &str) -> String {
    label::elide(&label::layer_label(name), 72)
}

/// Renders the whole report as text.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let t = &report.trace;
    let _ = writeln!(out, "Trace      {}", t.path);
    if let Some(fp) = &t.device_fingerprint {
        let _ = writeln!(out, "Device     {fp}");
    }
    if let Some(sdk) = t.android_sdk_version {
        let _ = writeln!(out, "SDK        {sdk}");
    }
    let _ = writeln!(
        out,
        "Span       {:.3} s of FrameTimeline ({} DisplayFrames, {} SurfaceFrames), clock {} → {}",
        t.span_ms / 1e3,
        t.display_frames,
        t.surface_frames,
        t.frame_timeline_clock,
        t.trace_clock
    );
    out.push('\n');
    out.push_str(&verdict(report));
    out.push_str(&vsync_section(report));
    out.push_str(&agreement_section(report));
    out.push('\n');
    out.push_str(&processes_section(report));
    out.push_str(&layers_section(&report.layers));
    let pacing: Vec<(String, &Pacing)> = report
        .layers
        .iter()
        .map(|l| (l.layer_name.clone(), &l.pacing))
        .collect();
    out.push_str(&pacing_section(&pacing));
    out.push_str(&diagnostics_section(report));
    out
}

/// Renders a text capture's report: what the file is, the frame pacing per layer / window, JankTracker
/// (gfxinfo), GT's SM (logcat), and the skipped lines.
pub fn render_capture(report: &CaptureReport) -> String {
    let mut out = String::new();
    let c = &report.capture;
    let _ = writeln!(out, "Capture    {}", c.path);
    let what = match (c.dumps, &c.log_format) {
        (Some(d), _) => format!("{}: {d} dump(s), {} frame rows", c.captured_with, c.rows),
        (None, Some(f)) => format!("{} (-v {f}): {} lines", c.captured_with, c.rows),
        (None, None) => format!("{}: {} PROFILEDATA rows", c.captured_with, c.rows),
    };
    let _ = writeln!(out, "Source     {what}");
    if let Some(span) = c.span_ms {
        let _ = writeln!(out, "Span       {:.3} s", span / 1e3);
    }
    out.push('\n');
    out.push_str(&capture_verdict(report));
    let framed: Vec<(String, &Pacing)> = report
        .layers
        .iter()
        .filter(|l| l.layer_name.is_some() && l.frames > 0)
        .map(|l| (l.layer_name.clone().unwrap_or_default(), &l.pacing))
        .collect();
    if !framed.is_empty() {
        out.push_str(&pacing_section(&framed));
    }
    out.push_str(&jank_tracker_section(report));
    out.push_str(&gt_section(report));
    out.push_str("Diagnostics\n");
    if report.diagnostics.counts.is_empty() {
        out.push_str("  none\n");
    }
    for (what, n) in &report.diagnostics.counts {
        let lines: Vec<String> = n.lines.iter().map(u64::to_string).collect();
        let more = if n.count > n.lines.len() as u64 {
            ", …"
        } else {
            ""
        };
        let at = if lines.is_empty() {
            String::new()
        } else {
            format!(" (line {}{more})", lines.join(", "))
        };
        let _ = writeln!(out, "  {} {what}{at}", n.count);
    }
    out
}

/// The answer first: for each layer / window with presents (most presents first, at most 5), its FPS, PerfDog
/// jank and stutter, and the recomputed JankTracker janky share; for each logcat pid, GT's SM and the frames it
/// skipped.
pub(crate) fn capture_verdict(report: &CaptureReport) -> String {
    let mut layers: Vec<_> = report.layers.iter().collect();
    layers.sort_by_key(|l| std::cmp::Reverse((l.pacing.presented_frames, l.skipped_frames)));
    let mut lines = Vec::new();
    for l in layers.iter().take(5) {
        let p = &l.pacing;
        let name = match (&l.layer_name, l.pid) {
            (Some(name), _) => label::elide(&label::layer_label(name), 60),
            (None, Some(pid)) => match &l.process_name {
                Some(process) => format!("{process} (pid {pid})"),
                None => format!("pid {pid}"),
            },
            (None, None) => "unknown pid".into(),
        };
        let mut words = Vec::new();
        // Where the source says when frames were asked for, idle gaps are left out (`ftl explain idle`).
        let idle = p
            .activity
            .idle_gaps
            .filter(|g| *g > 0)
            .zip(p.activity.active_s);
        match (idle, p.activity.active_fps) {
            (Some((gaps, active_s)), Some(fps)) => {
                let span_s = p
                    .first_present_ns
                    .zip(p.last_present_ns)
                    .map_or(0.0, |(a, b)| (b as f64 - a as f64) / 1e9);
                words.push(format!(
                    "{fps:.1} fps while drawing ({active_s:.1} of {span_s:.1} s; {gaps} idle gap(s) left out)"
                ));
            }
            _ => {
                if let (Some(fps), Some(low)) = (p.avg_surface_fps, p.fps_1pct_low) {
                    words.push(format!("{fps} fps (1% low {low:.1})"));
                }
            }
        }
        let perfdog = match idle {
            Some(_) => (
                p.activity.perfdog_jank_active,
                p.activity.perfdog_big_jank_active,
                p.activity.perfdog_stutter_pct_active,
            ),
            None => (p.perfdog_jank, p.perfdog_big_jank, p.perfdog_stutter_pct),
        };
        if let (Some(jank), Some(big), Some(stutter)) = perfdog {
            words.push(format!(
                "PerfDog {jank} jank, {big} big, stutter {stutter:.1} %"
            ));
        }
        if let Some(j) = l.jank_tracker.iter().find(|j| j.numbers == "recomputed") {
            if let (Some(janky), Some(total), Some(pct)) =
                (j.janky_frames, j.total_frames, j.janky_pct)
            {
                words.push(format!(
                    "JankTracker {janky} of {total} frames janky ({pct:.1} %)"
                ));
            }
        }
        if let Some(skipped) = l.skipped_frames {
            let sm = p
                .gt_sm
                .map_or_else(String::new, |sm| format!("GT SM {sm:.1}, "));
            words.push(format!("{sm}{skipped} frames skipped"));
        }
        if let Some(davey) = l.davey_frames.filter(|d| *d > 0) {
            let longest = l
                .davey_max_ms
                .map_or_else(String::new, |ms| format!(", longest {ms} ms"));
            words.push(format!(
                "{davey} Davey frame(s) (HWUI logs only frames ≥ 700 ms{longest})"
            ));
        }
        if !words.is_empty() {
            lines.push(format!("{name}: {}", words.join("; ")));
        }
    }
    if lines.is_empty() {
        let empty = report
            .diagnostics
            .count(crate::sources::gfxinfo::EMPTY_BLOCK);
        return if empty > 0 {
            "Verdict    nothing drawn: the window(s) drew no frame since their stats were last reset (empty \
             PROFILEDATA); use the app, then dump again\n\n"
                .into()
        } else {
            "Verdict    nothing to measure: no frames with present times, no Choreographer skips\n\n".into()
        };
    }
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let head = if i == 0 { "Verdict    " } else { "           " };
        let _ = writeln!(out, "{head}{line}");
    }
    out.push('\n');
    out
}

/// gfxinfo: JankTracker per window (recomputed and as dumped, on separate rows, with whether the recomputation
/// equals the printed numbers) and per process (as dumped). A line the dump lacks shows `–`.
fn jank_tracker_section(report: &CaptureReport) -> String {
    let mut t = table(&[
        "window / process",
        "numbers",
        "frames",
        "janky",
        "janky %",
        "missed vsync",
        "slow UI",
        "slow bitmap",
        "slow draw",
        "deadline missed",
        "p50/p90/p95/p99 ms",
        "= printed",
    ]);
    let mut rows = 0;
    let mut add = |name: &str, n: &JankTrackerNumbers, equal: String| {
        rows += 1;
        t.add_row(vec![
            label::elide(name, 48),
            n.numbers.to_string(),
            opt(n.total_frames),
            opt(n.janky_frames),
            ms(n.janky_pct),
            opt(n.missed_vsync_count),
            opt(n.slow_ui_thread_count),
            opt(n.slow_bitmap_upload_count),
            opt(n.slow_draw_count),
            opt(n.missed_deadline_count),
            format!(
                "{}/{}/{}/{}",
                opt(n.frame_time_ms_p50),
                opt(n.frame_time_ms_p90),
                opt(n.frame_time_ms_p95),
                opt(n.frame_time_ms_p99)
            ),
            equal,
        ]);
    };
    for l in &report.layers {
        for n in &l.jank_tracker {
            let equal = match (n.numbers, l.recomputed_equals_printed) {
                ("recomputed", Some(true)) => "yes".to_string(),
                ("recomputed", Some(false)) => "NO".to_string(),
                ("recomputed", None) => "n/a".to_string(),
                _ => String::new(),
            };
            add(l.layer_name.as_deref().unwrap_or(label::ABSENT), n, equal);
        }
    }
    for p in &report.processes {
        if let Some(n) = &p.jank_tracker {
            let name = match (&p.process_name, p.pid) {
                (Some(name), Some(pid)) => format!("{name} (pid {pid}, process)"),
                (Some(name), None) => format!("{name} (process)"),
                (None, _) => "(process)".to_string(),
            };
            add(&name, n, String::new());
        }
    }
    let empty = report
        .diagnostics
        .count(crate::sources::gfxinfo::EMPTY_BLOCK);
    let note = if empty > 0 {
        format!(
            "Nothing drawn: {empty} PROFILEDATA block(s) without rows — the window drew no frame since its stats \
             were last reset (`framestats reset`, or the window is new); use the app, then dump again.\n"
        )
    } else {
        String::new()
    };
    if rows == 0 {
        return note;
    }
    format!(
        "{note}JankTracker (gfxinfo; recomputed = from the PROFILEDATA rows, ≤ 120 frames; as_dumped = what the device \
         printed since its last reset — never mixed; = printed: the recomputation equals the window's printed \
         numbers, n/a when it printed more frames than its rows hold; – = line not in the dump)\n{t}\n\n"
    )
}

/// logcat: GT's SM per pid from Choreographer's skipped-frame lines.
fn gt_section(report: &CaptureReport) -> String {
    if report.source != crate::model::Source::Logcat {
        return String::new();
    }
    if report.layers.is_empty() {
        return "GT SM: no Choreographer \"Skipped N frames!\" nor HWUI \"Davey!\" line in this log (smooth, or \
                the log does not hold Choreographer's lines: capture with `adb logcat -v time`)\n\n"
            .into();
    }
    let mut t = table(&[
        "pid",
        "process",
        "skipped frames",
        "lines",
        "smallest N",
        "seconds",
        "gt_sm mean/min",
        "Davey frames (≥ 700 ms)",
        "longest Davey ms",
    ]);
    let mut threshold = None;
    for l in &report.layers {
        threshold = threshold.max(l.min_skipped_frames);
        t.add_row(vec![
            opt(l.pid),
            l.process_name
                .clone()
                .unwrap_or_else(|| label::ABSENT.into()),
            opt(l.skipped_frames),
            opt(l.skip_events),
            opt(l.min_skipped_frames),
            l.pacing
                .gt_sm_per_second
                .as_ref()
                .map_or_else(|| label::ABSENT.into(), |s| s.len().to_string()),
            match (l.pacing.gt_sm, l.pacing.gt_sm_min) {
                (Some(m), Some(min)) => format!("{m:.1} / {min}"),
                _ if l.pacing.gt_sm_per_second.is_none()
                    && report.capture.first_ts_ns.is_some() =>
                {
                    "– (span too long)".into()
                }
                _ => "– (no timestamps)".into(),
            },
            opt(l.davey_frames),
            opt(l.davey_max_ms),
        ]);
    }
    let mut note = String::new();
    if report.layers.iter().any(|l| l.pid.is_none()) {
        let _ = writeln!(
            note,
            "  pid -: lines without a pid (the log's format prints none): they cannot be assigned to a process"
        );
    }
    if report
        .layers
        .iter()
        .any(|l| l.davey_frames.unwrap_or(0) > 0)
    {
        let _ = writeln!(
            note,
            "  Davey: HWUI logs a \"Davey!\" line only for a frame of 700 ms or more (JankTracker.cpp): not a \
             count of janky frames; `ftl frames` lists their FrameInfo times"
        );
    }
    if crate::analysis::gt::default_threshold(threshold) {
        let _ = writeln!(note, "  {}", crate::analysis::gt::SKIP_WARNING_NOTE);
    }
    format!("GT SM (Tencent GT's rule: 60 − skipped frames per second, with its > 60 correction)\n{t}\n{note}\n")
}

/// The vsync model in the style of `dumpsys SurfaceFlinger`'s VsyncConfiguration: rate, period, phase offsets and
/// work durations per display-mode window (`analysis::vsync`).
fn vsync_section(report: &Report) -> String {
    let v = &report.vsync;
    let (Some(period), Some(hz)) = (v.period_ns, v.refresh_rate_hz()) else {
        return "Vsync      period unknown (too few DisplayFrames; give --vsync-period or --refresh-rate)\n".into();
    };
    let source = if v.period_overridden {
        "given on the command line"
    } else {
        "inferred"
    };
    let mut out = format!(
        "Vsync      {hz:.2} Hz, period {:.3} ms ({source})\n",
        period as f64 / 1e6
    );
    let num = |v: Option<i64>| v.map_or_else(|| label::ABSENT.to_string(), |v| v.to_string());
    for w in &v.windows {
        if v.windows.len() > 1 {
            let _ = writeln!(
                out,
                "           window {:.3}..{:.3} s: {:.2} Hz",
                (w.start_ns - report.trace.first_ts_ns) as f64 / 1e9,
                (w.end_ns - report.trace.first_ts_ns) as f64 / 1e9,
                w.refresh_rate_hz
            );
        }
        let _ = writeln!(
            out,
            "           measured period: {} ns over {} DisplayFrames",
            w.measured_period_ns, w.display_frames
        );
        let offsets = w.offsets.map(|o| (o.app_offset_ns, o.sf_offset_ns));
        let _ = writeln!(
            out,
            "           app phase: {:>10} ns        SF phase: {:>10} ns",
            num(offsets.map(|o| o.0)),
            num(offsets.map(|o| o.1))
        );
        let _ = writeln!(
            out,
            "           app duration: {:>10} ns     SF duration: {:>10} ns   (app ready duration = SF duration)",
            num(w.app_work_duration_ns),
            num(w.sf_work_duration_ns)
        );
        if w.early_duration_frames > 0 {
            let others: Vec<String> = w
                .sf_work_durations_ns
                .iter()
                .filter(|d| Some(**d) != w.sf_work_duration_ns)
                .map(|d| format!("{:.3} ms", *d as f64 / 1e6))
                .collect();
            let _ = writeln!(
                out,
                "           {} DisplayFrames scheduled with early / early-GPU SF durations ({})",
                w.early_duration_frames,
                others.join(", ")
            );
        }
    }
    out
}

/// How often ftl's re-derived labels agree with SurfaceFlinger's, per frame kind, with the disagreement reasons.
fn agreement_section(report: &Report) -> String {
    let a = &report.agreement;
    let mut out = format!(
        "Classifier SurfaceFlinger {} rules ({}), present threshold {:.1} ms: agreement with the trace's labels\n",
        format!("{:?}", a.rules).to_lowercase(),
        a.rules_source,
        a.present_threshold_ns as f64 / 1e6
    );
    let pct = |r: Option<f64>| {
        r.map_or_else(
            || label::ABSENT.to_string(),
            |r| format!("{:.1}%", r * 100.0),
        )
    };
    for (kind, k) in [
        ("DisplayFrames", &a.display_frames),
        ("SurfaceFrames", &a.surface_frames),
    ] {
        let _ = writeln!(
            out,
            "           {kind}: jank type {} ({}/{}), present type {}, severity {}",
            pct(k.jank_type_rate),
            k.jank_type_agreed,
            k.compared,
            pct(k.present_type_rate),
            pct(k.severity_rate)
        );
        let reasons = [
            ("disagrees", &k.disagreement_reasons),
            ("not compared", &k.not_compared_reasons),
        ];
        for (what, map) in reasons {
            for (code, n) in map.iter() {
                let sentence = Reason::from_code(code).map_or("", Reason::sentence);
                let _ = writeln!(out, "             {n} {what}: {code}: {sentence}");
            }
        }
    }
    out
}

/// One line per layer with visible jank, worst first: the answer to "did it jank, where, whose fault".
pub(crate) fn verdict(report: &Report) -> String {
    let frames: u64 = report.layers.iter().map(|l| l.frames).sum();
    let janky: u64 = report.layers.iter().map(|l| l.janky_frames).sum();
    let app: u64 = report.layers.iter().map(|l| l.app_janky_frames).sum();
    let sf: u64 = report.layers.iter().map(|l| l.sf_janky_frames).sum();
    let dropped: u64 = report.layers.iter().map(|l| l.dropped_frames).sum();
    let pct = if frames == 0 {
        0.0
    } else {
        janky as f64 * 100.0 / frames as f64
    };
    let mut out = format!(
        "Verdict    {janky} of {frames} app frames janky ({pct:.1}%): {app} app's fault (Self Jank), {sf} \
         SurfaceFlinger's (Other Jank), {dropped} dropped\n"
    );
    let mut worst: Vec<&LayerSummary> = report
        .layers
        .iter()
        .filter(|l| l.janky_frames > 0)
        .collect();
    worst.sort_by(|a, b| {
        b.janky_frames
            .cmp(&a.janky_frames)
            .then(a.layer_name.cmp(&b.layer_name))
    });
    for l in worst.iter().take(5) {
        let kinds: Vec<String> = l
            .top_jank_types
            .iter()
            .map(|(k, n)| format!("{k} ×{n}"))
            .collect();
        // Stuffed frames carry jank types (Buffer Stuffing) without counting as janky: said, so that the types'
        // counts add up.
        let stuffed = match l.stuffed_frames {
            0 => String::new(),
            n => format!(", {n} more late behind earlier frames (stuffing, not janky)"),
        };
        let _ = writeln!(
            out,
            "           {} janky in {} ({}){stuffed}; jank types in its frames: {}",
            l.janky_frames,
            short_layer(&l.layer_name),
            l.process_name,
            kinds.join(", ")
        );
    }
    out.push('\n');
    out
}

fn processes_section(report: &Report) -> String {
    let mut t = table(&[
        "process (pid)",
        "total_frames",
        "missed",
        "missed_app",
        "missed_sf",
        "dropped",
        "dur p50 ms",
        "dur p90 ms",
        "dur p99 ms",
        "dur max ms",
    ]);
    for p in &report.processes {
        t.add_row(vec![
            format!("{} ({})", p.name, p.pid),
            p.total_frames.to_string(),
            p.missed_frames.to_string(),
            p.missed_app_frames.to_string(),
            p.missed_sf_frames.to_string(),
            p.dropped_frames.to_string(),
            ms(p.frame_dur_ms_p50),
            ms(p.frame_dur_ms_p90),
            ms(p.frame_dur_ms_p99),
            ns_ms(p.frame_dur_max),
        ]);
    }
    format!("Per process (Perfetto android_frame_timeline_metric)\n{t}\n\n")
}

fn layers_section(layers: &[LayerSummary]) -> String {
    let mut t = table(&[
        "layer", "frames", "janky", "janky %", "app", "SF", "dropped", "stuffed", "fps", "p50 ms",
        "p90 ms", "p99 ms",
    ]);
    for l in layers {
        t.add_row(vec![
            short_layer(&l.layer_name),
            l.frames.to_string(),
            l.janky_frames.to_string(),
            format!("{:.1}", l.janky_pct),
            l.app_janky_frames.to_string(),
            l.sf_janky_frames.to_string(),
            l.dropped_frames.to_string(),
            l.stuffed_frames.to_string(),
            opt1(l.pacing.fps),
            ms(l.frame_dur_ms_p50),
            ms(l.frame_dur_ms_p90),
            ms(l.frame_dur_ms_p99),
        ]);
    }
    format!(
        "Per layer (app SurfaceFrames; fps from present fences)\n{t}\n\n{}",
        late_stages_section(layers)
    )
}

/// Late frames per layer by the stage that made them late (`ftl explain stages`); empty when none was late.
fn late_stages_section(layers: &[LayerSummary]) -> String {
    use crate::analysis::app::blame::LateStage;
    let late: Vec<&LayerSummary> = layers
        .iter()
        .filter(|l| !l.late_stages.is_empty())
        .collect();
    if late.is_empty() {
        return String::new();
    }
    let mut header = vec!["layer"];
    header.extend(LateStage::ALL.iter().map(|s| s.name()));
    header.push("top causes");
    let mut t = table(&header);
    for l in late {
        let mut row = vec![short_layer(&l.layer_name)];
        row.extend(LateStage::ALL.iter().map(|s| {
            l.late_stages
                .get(s.name())
                .copied()
                .unwrap_or(0)
                .to_string()
        }));
        row.push(top_causes(&l.late_causes));
        t.add_row(row);
    }
    format!(
        "Why late (frames per stage, `ftl explain stages`; per cause, `ftl explain causes`)\n{t}\n\n"
    )
}

/// The three commonest causes as `cause frames` pairs, or [`label::ABSENT`] when no late frame has one.
fn top_causes(causes: &std::collections::BTreeMap<String, u64>) -> String {
    let ranked = crate::analysis::metrics::ranked_causes(causes);
    if ranked.is_empty() {
        return label::ABSENT.into();
    }
    let shown: Vec<String> = ranked
        .iter()
        .take(3)
        .map(|(c, n)| format!("{c} {n}"))
        .collect();
    shown.join(", ")
}

/// A value, or [`label::ABSENT`] when the input does not hold it (absent, not 0).
fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| label::ABSENT.into(), |v| v.to_string())
}

fn opt1(v: Option<f64>) -> String {
    v.map_or_else(|| label::ABSENT.into(), |v| format!("{v:.1}"))
}

/// The "Frame pacing" table: per layer / window, the pacing metrics of its presents under their owners' names
/// (`analysis::pacing`), then why some are absent.
fn pacing_section(layers: &[(String, &Pacing)]) -> String {
    let mut t = table(&[
        "layer",
        "presents",
        "avg_surface_fps",
        "fps mean/min",
        "fps var",
        "1% low",
        "jank_count",
        "max_frame_delay",
        "PerfDog jank/big",
        "stutter %",
        "sm mean/min",
        "idle gaps",
        "active fps",
        "PerfDog active",
    ]);
    let mut notes = String::new();
    for (name, p) in layers {
        let pair = |a: String, b: String| {
            if a == label::ABSENT {
                a
            } else {
                format!("{a} / {b}")
            }
        };
        t.add_row(vec![
            label::elide(&label::layer_label(name), 48),
            p.presented_frames.to_string(),
            opt(p.avg_surface_fps),
            pair(opt1(p.fps_mean), opt1(p.fps_min)),
            opt1(p.fps_variance),
            opt1(p.fps_1pct_low),
            opt(p.jank_count),
            p.max_frame_delay
                .map_or_else(|| label::ABSENT.into(), |d| format!("{d} vsync")),
            pair(opt(p.perfdog_jank), opt(p.perfdog_big_jank)),
            ms(p.perfdog_stutter_pct),
            pair(opt1(p.sm), opt(p.sm_min)),
            opt(p.activity.idle_gaps),
            opt1(p.activity.active_fps),
            match (
                p.activity.perfdog_jank_active,
                p.activity.perfdog_big_jank_active,
                p.activity.perfdog_stutter_pct_active,
            ) {
                (Some(j), Some(b), Some(s)) => format!("{j} / {b}, {s:.2} %"),
                _ => opt::<u64>(None),
            },
        ]);
        for why in &p.pacing_diagnostics {
            let _ = writeln!(
                notes,
                "  {}: {why}",
                label::elide(&label::layer_label(name), 48)
            );
        }
    }
    let (period_from, presents_from) = layers
        .first()
        .map_or(("", ""), |(_, p)| (p.period_from, p.presents_from));
    format!(
        "Frame pacing (from {presents_from}; vsyncs of the period from {period_from}; avg_surface_fps, \
         jank_count, max_frame_delay: Chromium surface_stats_collector; jank/big/stutter: PerfDog; idle gaps, active: \
         `ftl explain idle`)\n{t}\n{notes}\n"
    )
}

fn diagnostics_section(report: &Report) -> String {
    let d = &report.diagnostics;
    let items = d.counts();
    let mut out = String::from("Diagnostics\n");
    if let Some(at) = d.truncated_at_byte {
        let _ = writeln!(
            out,
            "  trace truncated: the file ends inside the packet at byte {at}"
        );
    }
    for (what, n) in items.iter().filter(|(_, n)| *n > 0) {
        let _ = writeln!(out, "  {n} {what}");
    }
    if !d.cause_data_missing.is_empty() {
        let _ = writeln!(
            out,
            "  to say why frames were late, also record: {} (README: Why the UI thread was late)",
            d.cause_data_missing.join(", ")
        );
    }
    if out.lines().count() == 1 {
        out.push_str("  none\n");
    }
    out
}
