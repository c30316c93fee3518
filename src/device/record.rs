//! `ftl record`: one capture off a device — a Perfetto trace run the way the device's release needs
//! (`shared/docs/recording.md` §1), or a text source polled into one capture file — stopped cleanly on the first
//! Ctrl-C and aborted, with the device cleaned up, on the second.

use super::adb::{last_line, quote, Adb};
use super::poll::{Poller, TextSource};
use super::probe::DeviceInfo;
use super::Interrupts;
use crate::decode::proto::{
    ftrace_config::CompactSchedConfig, trace_config, DataSourceConfig, FtraceConfig,
    ProcessStatsConfig, TraceConfig,
};
use crate::error::{Error, Result};
use prost::Message as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What to record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A Perfetto trace with FrameTimeline, the app's atrace sections and the scheduler.
    Trace,
    /// A polled text source.
    Text(TextSource),
}

/// `ftl record`'s options, resolved.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    /// What to record.
    pub source: Source,
    /// The app (atrace apps, layer discovery, gfxinfo's process).
    pub package: Option<String>,
    /// The layer to poll (`--latency`), instead of discovering the package's.
    pub layer: Option<String>,
    /// How long.
    pub duration: Duration,
    /// Where to write the capture.
    pub output: PathBuf,
    /// A Perfetto config file to use instead of ftl's (text or binary).
    pub config: Option<PathBuf>,
}

/// ftrace events of the root-cause work (README "Why the UI thread was late").
const FTRACE_EVENTS: [&str; 10] = [
    "sched/sched_switch",
    "sched/sched_waking",
    "sched/sched_wakeup_new",
    "sched/sched_blocked_reason",
    "task/task_newtask",
    "task/task_rename",
    "power/cpu_frequency",
    "power/suspend_resume",
    "binder/binder_transaction",
    "binder/binder_transaction_received",
];

/// atrace categories: frames (gfx, view), locks and GC (dalvik), mutexes (bionic), AIDL names (aidl), binder.
const ATRACE_CATEGORIES: [&str; 6] = ["gfx", "view", "dalvik", "bionic", "aidl", "binder_driver"];

/// The trace config ftl records with: FrameTimeline, process names, the app's atrace sections and the
/// scheduling data that `ftl frames`' causes need, for `duration`.
pub fn trace_config(package: Option<&str>, duration: Duration) -> TraceConfig {
    let source = |name: &str| DataSourceConfig {
        name: Some(name.to_string()),
        ..DataSourceConfig::default()
    };
    let ftrace = DataSourceConfig {
        ftrace_config: Some(FtraceConfig {
            ftrace_events: FTRACE_EVENTS.iter().map(|e| e.to_string()).collect(),
            atrace_categories: ATRACE_CATEGORIES.iter().map(|c| c.to_string()).collect(),
            atrace_apps: package.map(str::to_string).into_iter().collect(),
            buffer_size_kb: Some(16384),
            compact_sched: Some(CompactSchedConfig {
                enabled: Some(true),
            }),
        }),
        ..source("linux.ftrace")
    };
    let process_stats = DataSourceConfig {
        process_stats_config: Some(ProcessStatsConfig {
            scan_all_processes_on_start: Some(true),
        }),
        ..source("linux.process_stats")
    };
    let sources = [
        source("android.surfaceflinger.frametimeline"),
        process_stats,
        source("android.packages_list"),
        source("linux.system_info"),
        ftrace,
    ];
    TraceConfig {
        buffers: vec![trace_config::BufferConfig {
            size_kb: Some(131_072),
            fill_policy: Some(trace_config::buffer_config::FillPolicy::RingBuffer as i32),
        }],
        data_sources: sources
            .into_iter()
            .map(|config| trace_config::DataSource {
                config: Some(config),
            })
            .collect(),
        duration_ms: Some(u32::try_from(duration.as_millis()).unwrap_or(u32::MAX)),
    }
}

/// Where perfetto writes on the device: the one directory its SELinux rules let it write and the shell read.
const DEVICE_TRACE_DIR: &str = "/data/misc/perfetto-traces";

/// How long a stopped session may take to write its file.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(30);

/// How a capture ended.
#[derive(Debug)]
pub struct Recorded {
    /// The capture file.
    pub path: PathBuf,
    /// Frames polled (text sources).
    pub frames: u64,
    /// Why it ended early and what was kept, if it did (Ctrl-C, a disconnect).
    pub stopped_early: Option<String>,
    /// An error that ended the capture after something was kept (a disconnect): reported after the analysis.
    pub error: Option<Error>,
}

/// Records per `options` on the device `info` describes. Errors: adb's and the device's, each saying what to
/// do; a second Ctrl-C (the device's session killed and its file deleted first).
pub fn record(
    adb: &Adb,
    info: &DeviceInfo,
    options: &RecordOptions,
    interrupts: &Interrupts,
) -> Result<Recorded> {
    match options.source {
        Source::Trace => record_trace(adb, info, options, interrupts),
        Source::Text(source) => record_text(adb, info, source, options, interrupts),
    }
}

/// The config bytes and whether they are text (`--txt`): the user's file as it is, or ftl's, binary.
fn config_bytes(options: &RecordOptions, info: &DeviceInfo) -> Result<(Vec<u8>, bool)> {
    let Some(path) = &options.config else {
        return Ok((
            trace_config(options.package.as_deref(), options.duration).encode_to_vec(),
            false,
        ));
    };
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.clone(),
        source,
    })?;
    // A text config is UTF-8 without NULs; a binary one practically always holds a NUL or a non-UTF-8 byte.
    let text = std::str::from_utf8(&bytes).is_ok_and(|t| !t.contains('\0'));
    if text && info.sdk < 29 {
        return Err(Error::Usage(format!(
            "{}: a text config, but perfetto on Android 9 reads only binary configs (--txt came with Android \
             10): leave out --config to use ftl's, or encode it with `protoc --encode=perfetto.protos.TraceConfig`",
            path.display()
        )));
    }
    Ok((bytes, text))
}

/// Runs perfetto in the background, waits for it (or for Ctrl-C), pulls the trace and deletes it on the device.
fn record_trace(
    adb: &Adb,
    info: &DeviceInfo,
    options: &RecordOptions,
    interrupts: &Interrupts,
) -> Result<Recorded> {
    if info.sdk < 28 {
        return Err(Error::Device(format!(
            "perfetto is on devices from Android 9; this one runs {}: record a text capture instead (--source \
             latency, gfxinfo or logcat)",
            info.android()
        )));
    }
    let (config, text) = config_bytes(options, info)?;
    if info.sdk < 31 {
        eprintln!(
            "ftl: note: {} has no FrameTimeline (it came with Android 12): the trace will hold the scheduler and \
             atrace only, which `ftl analyze` cannot judge; `--source latency` measures any release",
            info.android()
        );
    }
    if info.sdk < 30 && !info.traced_enabled {
        // Android 9–10 start the tracing service only when asked (non-Pixel phones).
        adb.shell("setprop persist.traced.enable 1")?;
        std::thread::sleep(Duration::from_millis(500));
    }
    let stamp = super::unix_seconds();
    let device_file = format!("{DEVICE_TRACE_DIR}/ftl-{stamp}.pftrace");
    let command = format!(
        "perfetto{} -c - -o {} --background",
        if text { " --txt" } else { "" },
        quote(&device_file)
    );
    let out = adb.shell_status(&command, Some(&config))?;
    let said = format!("{}\n{}", out.stderr, out.text());
    // The pid is the first line that is only digits (a linker warning may come first).
    let pid = out
        .text()
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_string);
    let pid = match (out.status, pid) {
        (0, Some(pid)) => pid,
        (status, _) => return Err(perfetto_error(status, &said, info)),
    };
    let progress = super::progress(options.duration, "recording a trace");
    let started = Instant::now();
    let alive = |adb: &Adb| -> Result<bool> {
        Ok(adb
            .shell_status(&format!("[ -d /proc/{pid} ]"), None)?
            .status
            == 0)
    };
    let (mut stopped_early, mut polls) = (None, 0u32);
    loop {
        if interrupts.count() >= 1 {
            stopped_early = Some(format!(
                "stopped by Ctrl-C after {:.1} s",
                started.elapsed().as_secs_f64()
            ));
            break;
        }
        let elapsed = started.elapsed();
        progress.set_position(elapsed.as_millis() as u64);
        // adb clients before 2024 exit 0 when the device drops: ask adb itself now and then.
        polls += 1;
        let checked = if polls % 8 == 0 && !adb.attached() {
            Err(adb.disconnected(&format!("[ -d /proc/{pid} ]")))
        } else {
            alive(adb)
        };
        let running = match checked {
            Ok(r) => r,
            Err(Error::Disconnected(why)) => {
                progress.finish_and_clear();
                return Err(Error::Disconnected(format!(
                    "{why}: perfetto goes on recording on the device into {device_file}; reconnect and run `adb \
                     pull {device_file}` when it is done (after {} s)",
                    options.duration.as_secs()
                )));
            }
            Err(e) => return Err(e),
        };
        if !running {
            break;
        }
        // ftl's config stops itself after --duration; a user's config runs as long as it says.
        if options.config.is_none() && elapsed > options.duration + FLUSH_TIMEOUT {
            let _ = adb.shell(&format!("kill -TERM {pid}"));
            stopped_early =
                Some("perfetto did not stop at the end of its duration: stopped".into());
            break;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    progress.finish_and_clear();
    if stopped_early.is_some() {
        eprintln!(
            "ftl: stopping perfetto on the device (Ctrl-C again aborts and deletes the trace)"
        );
        adb.shell(&format!("kill -TERM {pid}"))?;
        let waited = Instant::now();
        // A second press before the file is pulled aborts, however fast the device was.
        while interrupts.count() >= 2 || alive(adb)? {
            if interrupts.count() >= 2 || waited.elapsed() > FLUSH_TIMEOUT {
                let _ = adb.shell(&format!("kill -KILL {pid}; rm -f {}", quote(&device_file)));
                return Err(Error::Device(format!(
                    "aborted: perfetto (pid {pid}) was killed on the device and {device_file} deleted; nothing \
                     was kept"
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    adb.pull(
        &device_file,
        &options.output,
        info.sdk,
        Duration::from_secs(300),
    )?;
    adb.shell(&format!("rm -f {}", quote(&device_file)))?;
    let bytes = std::fs::metadata(&options.output).map_or(0, |m| m.len());
    if bytes == 0 {
        return Err(Error::Device(format!(
            "the device wrote an empty trace into {device_file}: is /data full? (`adb shell df /data`)"
        )));
    }
    Ok(Recorded {
        path: options.output.clone(),
        frames: 0,
        stopped_early,
        error: None,
    })
}

/// What perfetto's failure to start means, from what it printed.
fn perfetto_error(status: i32, said: &str, info: &DeviceInfo) -> Error {
    let quoted = last_line(said).unwrap_or_else(|| format!("exit {status}"));
    let advice = if said.contains("No space left") {
        "the device is out of space: free some on /data (`adb shell df /data`)".to_string()
    } else if status == 127 || said.contains("not found") {
        format!(
            "this device has no perfetto ({}; perfetto ships from Android 9): record a text capture instead \
             (--source latency)",
            info.android()
        )
    } else if said.contains("traced") {
        "the tracing service is not running: `adb shell setprop persist.traced.enable 1` (Android 9–10), then \
         try again"
            .to_string()
    } else if said.contains("textual config") || said.contains("invalid") {
        "perfetto rejected the config: check it with the Perfetto UI's record page, or leave out --config"
            .to_string()
    } else {
        "perfetto did not start".to_string()
    };
    Error::Device(format!("{advice} (perfetto said: {quoted})"))
}

/// Polls a text source into the capture file until the duration ends, Ctrl-C, or a disconnect (what was polled
/// is kept).
fn record_text(
    adb: &Adb,
    info: &DeviceInfo,
    source: TextSource,
    options: &RecordOptions,
    interrupts: &Interrupts,
) -> Result<Recorded> {
    let mut poller = Poller::start(
        adb,
        info.sdk,
        source,
        options.package.as_deref(),
        options.layer.as_deref(),
    )?;
    let mut file = super::CaptureFile::create(&options.output, &info.header(&poller.describe()))?;
    let progress = super::progress(options.duration, "recording");
    let started = Instant::now();
    let (mut frames, mut stopped_early, mut error) = (0u64, None, None);
    loop {
        let last = started.elapsed() >= options.duration || interrupts.count() >= 1;
        let polled = Instant::now();
        match poller.poll() {
            Ok(poll) => {
                file.append(&poll.text)?;
                frames += poll.presents_ns.len() as u64;
                for note in poll.notes {
                    progress.suspend(|| eprintln!("ftl: {note}"));
                }
            }
            // A host-side write failure loses the capture; anything on the device side ends it, kept.
            Err(e @ Error::Output { .. }) => return Err(e),
            Err(e) => {
                stopped_early = Some(format!(
                    "{} after {:.1} s; {} keeps what was polled until then",
                    if matches!(e, Error::Disconnected(_)) {
                        "the device disconnected"
                    } else {
                        "polling failed"
                    },
                    started.elapsed().as_secs_f64(),
                    options.output.display()
                ));
                error = Some(e);
                break;
            }
        }
        progress.set_position(started.elapsed().as_millis() as u64);
        progress.set_message(format!("{frames} frames"));
        if last {
            if interrupts.count() >= 1 {
                stopped_early = Some(format!(
                    "stopped by Ctrl-C after {:.1} s",
                    started.elapsed().as_secs_f64()
                ));
            }
            break;
        }
        // Sleep to the next poll, waking for Ctrl-C.
        while polled.elapsed() < poller.interval() && interrupts.count() == 0 {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    progress.finish_and_clear();
    file.finish()?;
    Ok(Recorded {
        path: options.output.clone(),
        frames,
        stopped_early,
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_holds_what_ftl_reads_and_decodes_as_perfetto_reads_it() {
        let bytes = trace_config(Some("com.ex.app"), Duration::from_millis(2500)).encode_to_vec();
        let config = TraceConfig::decode(bytes.as_slice()).unwrap();
        assert_eq!(config.duration_ms, Some(2500));
        let names: Vec<&str> = config
            .data_sources
            .iter()
            .filter_map(|d| d.config.as_ref()?.name.as_deref())
            .collect();
        assert_eq!(
            names,
            [
                "android.surfaceflinger.frametimeline",
                "linux.process_stats",
                "android.packages_list",
                "linux.system_info",
                "linux.ftrace"
            ]
        );
        let ftrace = config.data_sources[4]
            .config
            .as_ref()
            .unwrap()
            .ftrace_config
            .as_ref()
            .unwrap();
        assert_eq!(ftrace.atrace_apps, ["com.ex.app"]);
        assert!(ftrace
            .ftrace_events
            .iter()
            .any(|e| e == "sched/sched_waking"));
        // Field numbers as Perfetto's: DataSourceConfig.ftrace_config = 100 is tag (100 << 3 | 2) = 0xa2 0x06.
        assert!(bytes.windows(2).any(|w| w == [0xa2, 0x06]));
    }
}
