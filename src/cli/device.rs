//! `ftl record` and `ftl watch`: their arguments, and the verdict printed after a recording.

use crate::device::adb::Adb;
use crate::device::poll::TextSource;
use crate::device::record::{self, RecordOptions, Source};
use crate::device::watch::{self, WatchOptions};
use crate::device::{parse_duration, probe, Interrupts};
use crate::error::{Error, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Options naming the adb and the device.
#[derive(Debug, Args)]
pub struct DeviceArgs {
    /// The device's serial, as `adb devices` lists it (default: $ANDROID_SERIAL, else the only device attached).
    #[arg(short = 's', long = "serial", value_name = "SERIAL")]
    serial: Option<String>,
    /// The adb executable (default: $ADB, else `adb` on PATH).
    #[arg(long, value_name = "PATH")]
    adb: Option<PathBuf>,
}

impl DeviceArgs {
    fn adb(&self) -> Result<Adb> {
        Adb::locate(self.adb.as_deref(), self.serial.clone())
    }
}

/// What `ftl record` captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecordSource {
    /// A Perfetto trace: FrameTimeline (Android 12+), the app's atrace sections and the scheduler.
    Trace,
    /// `dumpsys SurfaceFlinger --latency LAYER`, polled (any release; games on a SurfaceView too).
    Latency,
    /// `dumpsys gfxinfo PKG framestats`, polled (HWUI apps; JankTracker).
    Gfxinfo,
    /// `logcat` with Choreographer's skipped frames and HWUI's Davey! lines.
    Logcat,
}

/// What `ftl watch` polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WatchSource {
    /// `dumpsys SurfaceFlinger --latency LAYER`.
    Latency,
    /// `dumpsys gfxinfo PKG framestats`.
    Gfxinfo,
}

const RECORD_HELP: &str = "What each source needs and gives:
  trace    Android 12+ for FrameTimeline (9-11 record the rest); perfetto in the background for --duration,
           stopped with SIGTERM on Ctrl-C, pulled (adb pull; `adb exec-out cat` before Android 10) and deleted
           on the device. ftl's config: FrameTimeline, process names, packages, system info, the app's atrace
           (gfx view dalvik bionic aidl binder_driver) and the scheduler events the causes need.
  latency  polled every 0.4 s (FrameTracker keeps 127 frames: 0.88 s at 144 Hz); the layer comes from
           `dumpsys SurfaceFlinger --list` in every release's format and is found again when Android 13+
           recreates it with a new #N. Each poll keeps its own refresh period line.
  gfxinfo  `dumpsys gfxinfo PKG reset`, then `framestats` every 0.4 s (120 frames kept per window).
  logcat   `logcat -c`, then `logcat -d` every second; every line is kept.
The file starts with `# ftl record` lines (device, build, release, refresh rate) that ftl skips when reading.
Ctrl-C once stops and keeps what was captured; twice aborts (the device's perfetto is killed, its file deleted).
Exit status: 0, or 2 with a one-line message (no device, unauthorized, not installed, disconnected, ...).";

/// `ftl record`.
#[derive(Debug, Args)]
#[command(after_help = RECORD_HELP)]
pub struct RecordArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// The app to record (its atrace sections; its layer or process for the text sources).
    #[arg(long, value_name = "PKG")]
    app: Option<String>,
    /// The SurfaceFlinger layer to poll (latency), exactly as `dumpsys SurfaceFlinger --list` prints it, e.g.
    /// 'SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#1234'.
    #[arg(long, value_name = "NAME")]
    layer: Option<String>,
    /// How long: 10s, 1500ms, 2m, or a number of seconds.
    #[arg(long, value_name = "TIME", default_value = "10s", value_parser = parse_duration)]
    duration: std::time::Duration,
    /// What to record.
    #[arg(long, value_enum, default_value_t = RecordSource::Trace)]
    source: RecordSource,
    /// Where to write the capture (default: `ftl-<source>-<unix time>.pftrace` / `.txt`).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// A Perfetto trace config (text or binary) instead of ftl's; it runs as long as its duration_ms says
    /// (--duration then only sizes the progress line), or until Ctrl-C.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Only record; do not print `ftl analyze`'s report afterwards.
    #[arg(long)]
    no_analyze: bool,
}

const WATCH_HELP: &str = "The live view shows FPS over the last second, PerfDog Jank / BigJank and the device's JankTracker
janky % (gfxinfo) so far, a frame-time sparkline and the worst recent frames. Keys: q quit, l next layer of the
app, s start/stop saving the polled frames (to -o FILE, else ftl-watch-<unix time>.txt).
--plain prints, once per second of the layer's frames: t=3s fps=60.0 jank=0 big_jank=0 layer=NAME
(t: seconds since the first frame watched, at the end of the second; fps: presents in it; jank / big_jank:
PerfDog intervals ending in it). `ftl analyze` of the -o file gives the same fps_per_second.";

/// `ftl watch`.
#[derive(Debug, Args)]
#[command(after_help = WATCH_HELP)]
pub struct WatchArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// The app to watch.
    #[arg(long, value_name = "PKG", required_unless_present = "layer")]
    app: Option<String>,
    /// The SurfaceFlinger layer to watch, as `dumpsys SurfaceFlinger --list` prints it.
    #[arg(long, value_name = "NAME")]
    layer: Option<String>,
    /// What to poll.
    #[arg(long, value_enum, default_value_t = WatchSource::Latency)]
    source: WatchSource,
    /// Save the polled frames to FILE from the start (a capture `ftl analyze` reads).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// One line per second on stdout instead of the live view (logs, CI).
    #[arg(long)]
    plain: bool,
    /// Stop after this long (default: until q or Ctrl-C).
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    duration: Option<std::time::Duration>,
}

/// Runs `ftl record`: records, then prints the verdict of `ftl analyze` (unless `--no-analyze`).
pub fn run_record(a: &RecordArgs) -> Result<ExitCode> {
    let source = match a.source {
        RecordSource::Trace => Source::Trace,
        RecordSource::Latency => Source::Text(TextSource::Latency),
        RecordSource::Gfxinfo => Source::Text(TextSource::Gfxinfo),
        RecordSource::Logcat => Source::Text(TextSource::Logcat),
    };
    if a.config.is_some() && source != Source::Trace {
        return Err(Error::Usage("--config is for --source trace".into()));
    }
    let adb = a.device.adb()?;
    let info = probe::device_info(&adb)?;
    if let (Some(pkg), Source::Trace) = (&a.app, source) {
        if probe::package_pid(&adb, pkg)?.is_none() {
            eprintln!("ftl: note: {pkg} is not running yet; its frames count from when it starts");
        }
    }
    let output = a.output.clone().unwrap_or_else(|| {
        let stamp = crate::device::unix_seconds();
        let name = match a.source {
            RecordSource::Trace => format!("ftl-trace-{stamp}.pftrace"),
            other => format!(
                "ftl-{}-{stamp}.txt",
                other
                    .to_possible_value()
                    .map_or("capture".into(), |v| v.get_name().to_string())
            ),
        };
        PathBuf::from(name)
    });
    let options = RecordOptions {
        source,
        package: a.app.clone(),
        layer: a.layer.clone(),
        duration: a.duration,
        output,
        config: a.config.clone(),
    };
    let interrupts = Interrupts::install()?;
    eprintln!(
        "ftl: recording {} on {} ({}) for {:.1} s into {}",
        match a.source {
            RecordSource::Trace => "a Perfetto trace",
            RecordSource::Latency => "dumpsys SurfaceFlinger --latency",
            RecordSource::Gfxinfo => "dumpsys gfxinfo framestats",
            RecordSource::Logcat => "logcat",
        },
        info.model,
        info.android(),
        a.duration.as_secs_f64(),
        options.output.display()
    );
    let recorded = record::record(&adb, &info, &options, &interrupts)?;
    if let Some(why) = &recorded.stopped_early {
        eprintln!("ftl: {why}");
    }
    eprintln!("ftl: wrote {}", recorded.path.display());
    if !a.no_analyze {
        let config = crate::analysis::Config {
            layer_name: a.layer.clone(),
            frame_rows: false,
            display_frame_rows: false,
            vsync_period_ns: None,
            ..crate::analysis::Config::default()
        };
        let analysis = crate::analyze_path(&recorded.path, &config).map_err(|e| match e {
            Error::NoFrameTimeline { .. } if info.sdk < 31 => Error::Device(format!(
                "{e} — {} has none: `ftl record --source latency` measures frames on any release",
                info.android()
            )),
            e => e,
        })?;
        super::write_report(&analysis, super::ReportFormat::Text, None)?;
    }
    match recorded.error {
        Some(e) => Err(e),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// Runs `ftl watch` until q, Ctrl-C or the duration.
pub fn run_watch(a: &WatchArgs) -> Result<ExitCode> {
    let adb = a.device.adb()?;
    let info = probe::device_info(&adb)?;
    let options = WatchOptions {
        source: match a.source {
            WatchSource::Latency => TextSource::Latency,
            WatchSource::Gfxinfo => TextSource::Gfxinfo,
        },
        package: a.app.clone(),
        layer: a.layer.clone(),
        output: a.output.clone(),
        plain: a.plain,
        duration: a.duration,
    };
    let interrupts = Interrupts::install()?;
    watch::watch(&adb, &info, &options, &interrupts)?;
    Ok(ExitCode::SUCCESS)
}
