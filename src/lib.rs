//! ftl — did it jank, where, and whose fault was it? FrameTimeline analysis of Android Perfetto traces.
//!
//! The pipeline is the module tree; a module uses only modules listed before it:
//!
//! ```text
//! input  →  decode  →  model     →  analysis  →  output        (batch and cli drive it)
//! bytes     Events     Timeline     Report       tables / text / PNG
//! ```
//!
//! - [`input`]: path → buffered byte stream or UTF-8 text; what a file holds is told by its content.
//! - [`decode`]: streaming protobuf → [`decode::Event`]s (FrameTimeline, processes, system info), clocks converted.
//! - [`sources`]: text captures (`dumpsys SurfaceFlinger --latency`, `dumpsys gfxinfo`, Choreographer logcat) →
//!   [`model::FrameSeries`] and their own records.
//! - [`model`]: [`model::Timeline`] — Perfetto's expected/actual slices, processes, SurfaceFrame → DisplayFrame
//!   links; [`model::FrameSeries`] — per layer or window, frames with whatever times a source records.
//! - [`analysis`]: [`analysis::Report`] — Perfetto's per-process metric, per-layer summaries; the pacing metrics
//!   of every frame series ([`analysis::pacing`]); [`analysis::capture::CaptureReport`] for text captures.
//! - [`output`]: polars tables (CSV / JSON / Parquet) and terminal text.
//! - [`batch`]: many traces in parallel (rayon) into a ranked triage table, per-file failure isolation.
//! - [`diff`]: BASE vs NEW (traces, sets of runs, batch outputs) into matched rows with tests and verdicts.
//! - [`device`]: `ftl record` / `ftl watch` — captures off an Android device through the `adb` executable.
//! - [`synth`]: builds trace bytes from events (test fixtures, benchmarks).
//! - [`cli`]: the `ftl` command line.
#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod analysis;
pub mod batch;
pub mod cli;
pub mod decode;
pub mod device;
pub mod diff;
pub mod error;
pub mod input;
mod memory;
pub mod model;
pub mod output;
pub mod sources;
pub mod synth;

pub use error::{Error, Result};

use decode::DecodeSummary;
use input::Compression;
use model::{Timeline, TimelineBuilder};
use std::path::Path;

/// What a scoped thread returned; its panic resumed on the joining thread.
pub(crate) fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// A trace read into the model, with what the decoder saw.
#[derive(Debug, Clone)]
pub struct LoadedTrace {
    /// The FrameTimeline model.
    pub timeline: Timeline,
    /// Decoder facts (packets, clock, truncation).
    pub decode: DecodeSummary,
    /// Size of the file on disk, bytes.
    pub file_bytes: u64,
    /// How the file was compressed.
    pub compression: Compression,
    /// The analysis windows the timeline was restricted to (empty: the whole trace).
    pub windows: Vec<model::window::Span>,
}

/// Reads and analyses one input, whatever it holds: [`open_input`] then [`analyze_input`].
///
/// Errors: those of [`load_path`] for traces; for captures [`Error::Capture`] naming the line and the cause;
/// [`Error::Capture`] with line 0 for a file of unknown content, saying what ftl reads.
pub fn analyze_path(path: &Path, config: &analysis::Config) -> Result<analysis::Analysis> {
    analyze_input(open_input(path, config)?, path, config)
}

/// An input as far as it is read before its analysis: a loaded Perfetto trace, or a text capture of a kind,
/// not read yet (read whole by [`analyze_input`]).
pub enum Input {
    /// A Perfetto trace, loaded ([`load_path_in`] with the analysis windows).
    Trace(Box<LoadedTrace>),
    /// `dumpsys SurfaceFlinger --latency` output.
    SfLatency,
    /// `dumpsys gfxinfo` output.
    Gfxinfo,
    /// Choreographer logcat.
    Logcat,
}

/// Tells what `path` holds ([`input::detect`]) and loads it if it is a Perfetto trace: the step before the
/// analysis, after which a command may open its output (`ftl frames` then writes rows as
/// [`analysis::analyze_each`] makes them). Errors: those of [`analyze_path`] before the analysis.
pub fn open_input(path: &Path, config: &analysis::Config) -> Result<Input> {
    Ok(match source_of(path, config)? {
        model::Source::Perfetto => {
            Input::Trace(Box::new(load_trace(path, &config.windows, false)?))
        }
        model::Source::SfLatency => Input::SfLatency,
        model::Source::Gfxinfo => Input::Gfxinfo,
        model::Source::Logcat => Input::Logcat,
    })
}

/// Analyses an [`open_input`]: a trace with [`analysis::analyze`] (the model freed before returning), a capture
/// with its reader in [`sources`] then [`analysis::capture`]. Errors: for captures, [`Error::Capture`] naming
/// the line and the cause.
pub fn analyze_input(
    opened: Input,
    path: &Path,
    config: &analysis::Config,
) -> Result<analysis::Analysis> {
    use analysis::{capture, Analysis};
    let shown = path.display().to_string();
    let file_bytes = || std::fs::metadata(path).map_or(0, |m| m.len());
    Ok(match opened {
        Input::Trace(trace) => Analysis::Trace(Box::new(analysis::analyze(*trace, &shown, config))),
        Input::SfLatency => {
            let read = sources::sf_latency::read(
                input::open_text(path)?,
                path,
                config.layer_name.as_deref(),
            )?;
            Analysis::Capture(Box::new(capture::sf_latency(
                read,
                &shown,
                file_bytes(),
                config,
            )))
        }
        Input::Gfxinfo => {
            let options = sources::gfxinfo::Options {
                drop_flagged_rows: config.gfxinfo_drop_flagged_rows,
            };
            let read = sources::gfxinfo::read(input::open_text(path)?, path, &options)?;
            Analysis::Capture(Box::new(capture::gfxinfo(
                read,
                &shown,
                file_bytes(),
                config,
            )))
        }
        Input::Logcat => {
            let read = sources::logcat::read(input::open_text(path)?, path)?;
            Analysis::Capture(Box::new(capture::logcat(
                read,
                &shown,
                file_bytes(),
                config,
            )))
        }
    })
}

/// What `path` holds ([`input::detect`]); an unreadable file reads as a Perfetto trace, whose loader reports the
/// operating system's error. Errors: a file of unknown content ([`Error::Capture`], line 0, saying what ftl
/// reads); `--window` / `--marker` on a text capture ([`Error::Usage`]).
fn source_of(path: &Path, config: &analysis::Config) -> Result<model::Source> {
    let source = match input::detect(path) {
        Ok(Ok(source)) => source,
        Ok(Err(why)) => {
            return Err(Error::Capture {
                path: path.to_path_buf(),
                line: 0,
                cause: why,
            })
        }
        Err(_) => model::Source::Perfetto,
    };
    if source != model::Source::Perfetto && !config.windows.is_empty() {
        return Err(Error::Usage(format!(
            "{}: --window / --marker need a Perfetto trace (a `{}` capture has no trace clock or atrace \
             sections)",
            path.display(),
            source.command()
        )));
    }
    Ok(source)
}

/// Reads `path` (plain or gzip, with or without `compressed_packets`) into a [`LoadedTrace`].
///
/// Errors: unreadable file, directory, empty file, bytes that are not a trace or broken framing
/// ([`Error::Decode`]), a text capture ([`Error::Capture`]: it has no FrameTimeline), and a trace without any
/// FrameTimeline event ([`Error::NoFrameTimeline`]).
/// A trace truncated mid-packet loads what was read; `decode.truncated_at` says where it ended.
pub fn load_path(path: &Path) -> Result<LoadedTrace> {
    load_path_in(path, &model::window::WindowSpec::default())
}

/// [`load_path`] restricted to the frames inside the analysis windows of `windows` ([`model::window`]); the
/// windows found are in [`LoadedTrace::windows`]. Errors: those of [`load_path`], and [`Error::Usage`] for a
/// `--marker` that names no section of the trace.
pub fn load_path_in(path: &Path, windows: &model::window::WindowSpec) -> Result<LoadedTrace> {
    load_checked(path, windows, false)
}

/// [`load_path_in`] keeping the scheduling states of every thread in [`model::sched::Sched::thread_states`]
/// (Perfetto's whole `thread_state` table), where a load keeps only those of the threads that draw frames
/// (`Choreographer#doFrame*`, `DrawFrame*`). Memory: one 48-byte row per state change of the trace.
pub fn load_path_all_thread_states(
    path: &Path,
    windows: &model::window::WindowSpec,
) -> Result<LoadedTrace> {
    load_checked(path, windows, true)
}

/// [`load_trace`] after checking that `path` is not a text capture.
fn load_checked(
    path: &Path,
    windows: &model::window::WindowSpec,
    all_thread_states: bool,
) -> Result<LoadedTrace> {
    if let Ok(Ok(source)) = input::detect(path) {
        if source != model::Source::Perfetto {
            return Err(Error::Capture {
                path: path.to_path_buf(),
                line: 0,
                cause: format!(
                    "a `{}` capture has no FrameTimeline slices (use `ftl analyze` or `ftl frames` on it)",
                    source.command()
                ),
            });
        }
    }
    load_trace(path, windows, all_thread_states)
}

/// [`load_path_in`] for a file already known to be (or to be meant as) a Perfetto trace.
fn load_trace(
    path: &Path,
    windows: &model::window::WindowSpec,
    all_thread_states: bool,
) -> Result<LoadedTrace> {
    let filter = model::SectionFilter {
        markers: windows.markers.clone(),
    };
    let decode_into = |mut builder: TimelineBuilder| -> Result<_> {
        let opened = input::open(path)?;
        let keep = |name: &[u8]| filter.keeps_bytes(name);
        let decode = decode::decode_beside(opened.reader, &keep, &mut |e| builder.push(e))
            .map_err(|e| Error::Decode {
                path: path.to_path_buf(),
                offset: e.offset,
                packet: e.packet,
                kind: e.kind,
            })?;
        Ok((builder, decode, opened.file_bytes, opened.compression))
    };
    let new_builder = || {
        let b = TimelineBuilder::with_sections(filter.clone());
        if all_thread_states {
            b.all_thread_states()
        } else {
            b
        }
    };
    let early = new_builder();
    let (mut builder, mut decode, file_bytes, compression) = decode_into(early)?;
    if builder.paired_out_of_order() {
        // Events far behind the others: read again, pairing once all are known.
        let whole = new_builder().pairing_at_end();
        (builder, decode, _, _) = decode_into(whole)?;
    }
    if builder.frame_timeline_events() == 0 {
        if decode.packets == 0 {
            return Err(Error::Decode {
                path: path.to_path_buf(),
                offset: 0,
                packet: 0,
                kind: "not a Perfetto trace: no complete TracePacket".into(),
            });
        }
        return Err(Error::NoFrameTimeline {
            path: path.to_path_buf(),
            packets: decode.packets,
            truncated_at: decode.truncated_at,
        });
    }
    let mut timeline = builder.build();
    let mut spans = Vec::new();
    if !windows.is_empty() {
        spans = model::window::spans(windows, &timeline)
            .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
        timeline = model::window::restrict(timeline, &spans);
    }
    Ok(LoadedTrace {
        timeline,
        decode,
        file_bytes,
        compression,
        windows: spans,
    })
}
