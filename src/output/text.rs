//! The terminal report of `ftl analyze`: verdict first, then per-process (Perfetto's metric), per-layer and
//! diagnostics tables, aligned with comfy-table.

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

/// Shortens a layer name for a terminal column: drops the `TX - ` prefix and the activity package repeat.
pub fn short_layer(name: &str) -> String {
    let n = name.strip_prefix("TX - ").unwrap_or(name);
    match n.split_once('/') {
        Some((pkg, rest)) => format!("{pkg}/{}", rest.strip_prefix(pkg).unwrap_or(rest)),
        None => n.to_string(),
    }
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
    out.push_str(&vsync_section(report));
    out.push('\n');
    out.push_str(&verdict(report));
    out.push_str(&processes_section(report));
    out.push_str(&layers_section(&report.layers));
    out.push_str(&diagnostics_section(report));
    out
}

/// The vsync lines (period and rate).
fn vsync_section(report: &Report) -> String {
    match (report.vsync.period_ns, report.vsync.refresh_rate_hz()) {
        (Some(p), Some(hz)) => format!("Vsync      period {:.3} ms ({hz:.1} Hz)\n", p as f64 / 1e6),
        _ => "Vsync      period unknown (too few DisplayFrames)\n".into(),
    }
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
            "           {} janky in {} ({}): {}",
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
    let items = [
        ("parser errors", d.import.parser_errors),
        ("unpaired FrameEnd events", d.import.unpaired_ends),
        (
            "slices that never ended (dur = -1)",
            d.import.unterminated_slices,
        ),
        ("malformed packets skipped", d.malformed_packets),
        (
            "events outside the trace clock",
            d.events_outside_trace_clock,
        ),
        ("events without timestamp", d.events_without_timestamp),
        (
            "SurfaceFrames without their DisplayFrame",
            d.surface_frames_without_display_frame,
        ),
        (
            "SurfaceFrames without expected slice (expired prediction)",
            d.surface_frames_without_expected,
        ),
    ];
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

#[cfg(test)]
mod tests {
    use super::short_layer;

    #[test]
    fn layer_names_are_shortened_for_terminals() {
        assert_eq!(short_layer("TX - com.a/com.a.Main#3"), "com.a/.Main#3");
        assert_eq!(short_layer("TX - StatusBar#0"), "StatusBar#0");
        assert_eq!(short_layer("Layer1"), "Layer1");
    }
}
