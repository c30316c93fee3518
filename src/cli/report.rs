//! `ftl report`: the PNG / SVG picture of a trace (the timeline report) or of a text capture (frame times and FPS
//! per layer, or GT SM per pid of a Choreographer log), or the explorable single-file HTML report.

use super::{AnalysisArgs, TraceArgs};
use crate::error::{Error, Result};
use crate::output::chart::data::{WindowSpec, NS_PER_S};
use crate::output::chart::{self, ChartOptions, DEFAULT_WINDOW_SECS};
use clap::Args;
use std::path::PathBuf;

/// `ftl report` arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  ftl report trace.perfetto-trace -o report.png               # whole span if ≤ 12 s, else the jankiest 5 s
  ftl report trace.pftrace -o report.svg --window 1500ms..4s  # 1.5 s to 4 s after the first frame
  ftl report trace.pftrace -o r.png --window 1.5..4 --width 2400 --height 1200
  ftl report trace.pftrace -o r.png --all --layer '*MainActivity*'
  ftl report gfxinfo.txt -o gfxinfo.png                       # text capture: frame times, FPS, headline numbers
  ftl report latency.txt -o latency.svg --window 10..20       # 10 s to 20 s after the first present
  ftl report trace.pftrace -o report.html                     # one offline page: zoom, hover, filter
  ftl report trace.pftrace -o report.html.gz --trace-url https://example.com/trace.pftrace

A Perfetto trace gets the timeline report: expected/actual lanes per layer (and UI thread / RenderThread lanes
coloured by the late stage when the app's atrace sections are recorded), vsync grid, jank colours, then the
frame-time histogram, jank and FPS over time and the per-layer breakdown. A text capture (`dumpsys SurfaceFlinger
--latency`, `dumpsys gfxinfo`) gets, per layer or window (the 4 with the most presents), its present-to-present
frame times with vsync guides and PerfDog Jank / BigJank marked, FPS (and sm) per second, and the headline numbers
of `ftl analyze`; a Choreographer logcat gets GT SM per second per pid with its `Skipped N frames!` lines. A capture
with nothing to draw still gets a picture saying why.

An HTML report (-o FILE.html, FILE.html.gz, or --format html) is one file that needs no network: its script,
style and data are inside it and a Content-Security-Policy stops it from fetching anything. It holds every
frame of the trace (not only the window): wheel zooms at the cursor, drag pans, W/A/S/D zoom and pan, a
double-click resets, the strip above the timeline selects a range; hovering a frame shows Perfetto's labels and
ftl's late stage and cause, a click pins them with copy buttons (ts/dur in trace-clock ns, a SQL line for
`actual_frame_timeline_slice`, a Perfetto UI link with --trace-url). Filters by process, layer, jank type and
janky-only drive every panel, and the view is kept in the URL fragment, so a pasted link reopens it. It contains
the process, layer and section names of the trace (--redact replaces them): know that before you share it.")]
pub struct ReportArgs {
    #[command(flatten)]
    trace: TraceArgs,
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// Output: PNG, SVG when the name ends in .svg, HTML when it ends in .html / .htm (.html.gz: gzipped).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Output format; default: from the output's extension.
    #[arg(long, value_enum)]
    format: Option<ReportFormat>,
    /// HTML: the URL Perfetto UI can open the trace from; each frame's details then link to it in Perfetto UI.
    #[arg(long, value_name = "URL")]
    trace_url: Option<String>,
    /// HTML: replace process, layer and section names (and the file name) with placeholders such as `process 1`,
    /// `layer 2`, `binder:name 3`, for a report shared outside the team. Jank types, stages and numbers stay.
    #[arg(long)]
    redact: bool,
    /// Time range shown, START..END after the first FrameTimeline slice (text captures: after the first present,
    /// or the first log line); each bound in ms (1500ms), s (4s) or a bare number of seconds (1.5..4). On a trace
    /// it is also the analysis window of every panel (which frames are inside: `ftl analyze --help`). Default:
    /// the whole span if it is at most 12 s, else the --window-secs window with the most janky frames (the title
    /// says which); a text capture is shown whole.
    #[arg(long, value_name = "START..END", conflicts_with_all = ["all", "window_secs"])]
    window: Option<String>,
    /// Length of the automatic window on traces longer than 12 s, in seconds (Perfetto traces only).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_WINDOW_SECS, conflicts_with = "all")]
    window_secs: f64,
    /// Show the whole FrameTimeline span (or text capture), however long.
    #[arg(long)]
    all: bool,
    /// Image width, px.
    #[arg(long, value_name = "PX", default_value_t = 1600)]
    width: u32,
    /// Image height, px.
    #[arg(long, value_name = "PX", default_value_t = 900)]
    height: u32,
}

/// What `ftl report` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// A picture: PNG, or SVG when the output's name ends in .svg.
    Image,
    /// The explorable single-file HTML page.
    Html,
}

impl ReportFormat {
    /// The format `--format` names, else the one of `path`'s extension (an image unless it is .html / .htm).
    pub fn of(format: Option<ReportFormat>, path: &std::path::Path) -> ReportFormat {
        let name = path.to_string_lossy().to_ascii_lowercase();
        match format {
            Some(f) => f,
            None if [".html", ".htm", ".html.gz", ".htm.gz"]
                .iter()
                .any(|e| name.ends_with(e)) =>
            {
                ReportFormat::Html
            }
            None => ReportFormat::Image,
        }
    }
}

impl ReportArgs {
    /// The chart options the arguments ask for.
    fn chart_options(&self) -> Result<ChartOptions> {
        let window = match (&self.window, self.all) {
            (Some(range), _) => WindowSpec::parse_range(range)
                .map_err(|e| Error::Usage(format!("--window: {e}")))?,
            (None, true) => WindowSpec::All,
            (None, false) if self.window_secs.is_finite() && self.window_secs > 0.0 => {
                WindowSpec::Auto {
                    len_ns: (self.window_secs * NS_PER_S as f64).round() as i64,
                }
            }
            (None, false) => {
                return Err(Error::Usage(format!(
                    "--window-secs must be a positive number, got {}",
                    self.window_secs
                )))
            }
        };
        Ok(ChartOptions {
            width: self.width,
            height: self.height,
            window,
        })
    }
}

/// Runs `ftl report`.
pub fn run(args: &ReportArgs) -> Result<()> {
    let options = args.chart_options()?;
    let format = ReportFormat::of(args.format, &args.output);
    let mut config = args.analysis.config()?;
    config.display_frame_rows = true;
    let is_trace = matches!(
        crate::input::detect(&args.trace.trace),
        Ok(Ok(crate::model::Source::Perfetto))
    );
    if let (Some(range), true) = (&args.window, is_trace) {
        config.windows.ranges = vec![crate::model::window::parse_range(range)
            .map_err(|e| Error::Usage(format!("--window: {e}")))?];
    }
    let analysis = crate::analyze_path(&args.trace.trace, &config)?;
    match format {
        ReportFormat::Html => {
            let html = crate::output::html::HtmlOptions {
                trace_url: args.trace_url.clone(),
                redact: args.redact,
            };
            crate::output::html::write(&analysis, &args.output, &html)
        }
        ReportFormat::Image => chart::render(&analysis, &args.output, &options),
    }
}
