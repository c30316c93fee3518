//! ftl — did it jank, where, and whose fault was it? FrameTimeline analysis of Android Perfetto traces.
//!
//! The pipeline is the module tree; a module uses only modules listed before it:
//!
//! ```text
//! input  →  decode  →  model     →  analysis  →  output        (batch and cli drive it)
//! bytes     Events     Timeline     Report       tables / text / PNG
//! ```
//!
//! - [`input`]: path → buffered byte stream, gzip sniffed by magic bytes.
//! - [`decode`]: streaming protobuf → [`decode::Event`]s (FrameTimeline, processes, system info), clocks converted.
//! - [`model`]: [`model::Timeline`] — Perfetto's expected/actual slices, processes, SurfaceFrame → DisplayFrame links.
//! - [`analysis`]: [`analysis::Report`] — Perfetto's per-process metric, per-layer summaries, present-based FPS.
//! - [`output`]: polars tables (CSV / JSON / Parquet) and terminal text.
//! - [`batch`]: many traces in parallel (rayon) into a ranked triage table, per-file failure isolation.
//! - [`synth`]: builds trace bytes from events (test fixtures, benchmarks).
//! - [`cli`]: the `ftl` command line.
#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod analysis;
pub mod batch;
pub mod cli;
pub mod decode;
pub mod error;
pub mod input;
pub mod model;
pub mod output;
pub mod sources;
pub mod synth;

pub use error::{Error, Result};

use decode::DecodeSummary;
use input::Compression;
use model::{Timeline, TimelineBuilder};
use std::path::Path;

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
}

/// Loads and analyses one trace: [`load_path`] then [`analysis::analyze`], the trace's model freed before
/// returning (only the [`analysis::Report`] stays). Errors: those of [`load_path`].
pub fn analyze_path(path: &Path, config: &analysis::Config) -> Result<analysis::Report> {
    let trace = load_path(path)?;
    Ok(analysis::analyze(
        &trace,
        &path.display().to_string(),
        config,
    ))
}

/// Reads `path` (plain or gzip, with or without `compressed_packets`) into a [`LoadedTrace`].
///
/// Errors: unreadable file, directory, empty file, bytes that are not a trace or broken framing
/// ([`Error::Decode`]), and a trace without any FrameTimeline event ([`Error::NoFrameTimeline`]).
/// A trace truncated mid-packet loads what was read; `decode.truncated_at` says where it ended.
pub fn load_path(path: &Path) -> Result<LoadedTrace> {
    let opened = input::open(path)?;
    let mut builder = TimelineBuilder::new();
    let decode =
        decode::decode(opened.reader, &mut |e| builder.push(e)).map_err(|e| Error::Decode {
            path: path.to_path_buf(),
            offset: e.offset,
            packet: e.packet,
            kind: e.kind,
        })?;
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
    Ok(LoadedTrace {
        timeline: builder.build(),
        decode,
        file_bytes: opened.file_bytes,
        compression: opened.compression,
    })
}
