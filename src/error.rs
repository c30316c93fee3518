//! `ftl::Error`: every failure ftl reports, each naming the file and the cause in one line.

use std::path::PathBuf;

/// What went wrong, with the file it happened to. `Display` is the one-line message the CLI prints.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The path is a directory where a trace file was expected.
    #[error("{path}: is a directory, not a trace file (use `ftl batch` for directories)")]
    IsDirectory {
        /// The directory.
        path: PathBuf,
    },
    /// The file is empty.
    #[error("{path}: empty file, not a Perfetto trace")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The bytes are not a Perfetto trace, or the packet framing is broken.
    #[error("{path}: {kind} at byte {offset} (packet #{packet})")]
    Decode {
        /// The file.
        path: PathBuf,
        /// Byte offset in the (decompressed) stream where decoding failed.
        offset: u64,
        /// Index of the TracePacket being read (0-based).
        packet: u64,
        /// What was wrong.
        kind: String,
    },
    /// A readable trace without any SurfaceFlinger FrameTimeline event.
    #[error(
        "{path}: no FrameTimeline events in this trace ({packets} packets read{}). Record it on Android 12+ with \
         the data source \"android.surfaceflinger.frametimeline\" enabled in the trace config",
        truncated_at.map_or_else(String::new, |at| format!("; the file is truncated: it ends inside the packet at \
         byte {at}"))
    )]
    NoFrameTimeline {
        /// The file.
        path: PathBuf,
        /// Number of TracePackets read.
        packets: u64,
        /// Byte offset where the file ends inside a packet, if it does.
        truncated_at: Option<u64>,
    },
    /// A text capture (`dumpsys`, logcat) that cannot be used: the line (1-based; 0 when the problem is the file as
    /// a whole) and the cause.
    #[error("{path}: {}{cause}", if *line > 0 { format!("line {line}: ") } else { String::new() })]
    Capture {
        /// The file.
        path: PathBuf,
        /// 1-based line number, 0 for the whole file.
        line: u64,
        /// What was wrong, and what was expected.
        cause: String,
    },
    /// Writing an output file failed.
    #[error("{path}: cannot write output: {cause}")]
    Output {
        /// The output file or directory.
        path: PathBuf,
        /// Why.
        cause: String,
    },
    /// A command-line value that ftl cannot use.
    #[error("{0}")]
    Usage(String),
    /// adb or the device failed (`ftl record`, `ftl watch`): the message says what happened and what to do.
    #[error("{0}")]
    Device(String),
    /// The device went away in the middle of a capture (adb exits 255, or 0 before 2024, and stops listing it).
    #[error("{0}")]
    Disconnected(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// True if the error is a write to a closed pipe (e.g. `ftl slices ... | head`), which is not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Error::Io { source, .. } => source.kind() == std::io::ErrorKind::BrokenPipe,
            Error::Output { cause, .. } => cause.contains("Broken pipe"),
            _ => false,
        }
    }
}
