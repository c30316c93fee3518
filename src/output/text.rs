//! The terminal report of `ftl analyze`: verdict first, then per-process (Perfetto's metric), per-layer and
//! diagnostics tables, aligned with comfy-table.

use super::label;
use crate::analysis::classify::Reason;
use crate::analysis::metrics::LayerSummary;
use crate::analysis::Report;
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use std::fmt::Write;

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
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
    out.push_str(&diagnostics_section(report));
    out
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
    let num = |v: Option<i64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
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
    let pct = |r: Option<f64>| r.map_or_else(|| "-".to_string(), |r| format!("{:.1}%", r * 100.0));
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
fn verdict(report: &Report) -> String {
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
        let _ = writeln!(
            out,
            "           {} janky in {} ({}); jank types seen: {}",
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
        "layer",
        "frames",
        "janky",
        "janky %",
        "app",
        "SF",
        "dropped",
        "stuffed",
        "fps",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "jank_count",
        "max delay",
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
            l.fps.map_or_else(|| "-".into(), |f| format!("{f:.1}")),
            ms(l.frame_dur_ms_p50),
            ms(l.frame_dur_ms_p90),
            ms(l.frame_dur_ms_p99),
            l.jank_count.map_or_else(|| "-".into(), |j| j.to_string()),
            l.max_frame_delay
                .map_or_else(|| "-".into(), |d| format!("{d} vsync")),
        ]);
    }
    format!("Per layer (app SurfaceFrames; fps and delays from present fences)\n{t}\n\n")
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
    if out.lines().count() == 1 {
        out.push_str("  none\n");
    }
    out
}
