//! Reader of `adb shell dumpsys gfxinfo <package> [framestats]` captures into per-process, per-window summaries and
//! PROFILEDATA rows (format: `shared/docs/frame-sources.md` §2; AOSP `libs/hwui/JankTracker.cpp`, `ProfileData.cpp`).

mod parser;
mod row;
mod series;
mod summary;
#[cfg(test)]
mod tests;

pub use parser::{read, EMPTY_BLOCK};
pub use row::{
    FrameInfoRow, Unfinished, IMPLAUSIBLE_FROM_NS, KNOWN_COLUMNS, MAX_FROM_INTENDED_VSYNC_NS,
};
pub use series::frame_period;
pub use summary::GfxSummary;

use crate::model::{CaptureDiagnostics, FrameSeries};
use serde::Serialize;

/// The line that opens and closes a framestats block (AOSP `JankTracker::dumpFrames`).
const PROFILEDATA: &str = "---PROFILEDATA---";
/// Plausible frame intervals, ns: 1 ms (1000 Hz) to 1 s. A CLOCK_MONOTONIC timestamp is far above this.
const INTERVAL_RANGE_NS: std::ops::RangeInclusive<i64> = 1_000_000..=1_000_000_000;
/// Reading options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Options {
    /// Drop rows whose `Flags` is not 0 at read time (the developer.android.com hand-analysis rule; JankTracker
    /// itself counts them in the total and histogram). Default `false`.
    pub drop_flagged_rows: bool,
}

/// A whole gfxinfo capture: its processes (merged across concatenated dumps) and the recoverable oddities seen.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GfxinfoCapture {
    /// One entry per `** Graphics info for pid N [name] **` block (same pid and name across dumps merged); a dump
    /// without that line gives one process with `pid`/`process_name` `None`.
    pub processes: Vec<GfxProcess>,
    /// Skipped rows, duplicates, swapped header labels..., with line numbers.
    pub diagnostics: CaptureDiagnostics,
    /// The device's own failure lines (a process that could not be dumped, a package not running, a permission
    /// denial), in file order. When nothing usable remains, [`read`] fails with the first of them instead.
    pub device_failures: Vec<DeviceFailure>,
}

/// A line where the device said it could not dump (AOSP `ActivityManagerService.dumpGraphicsHardwareUsage`,
/// `com.android.internal.util.DumpUtils.checkDumpPermission`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeviceFailure {
    /// 1-based line number.
    pub line: u64,
    /// The device's words, as printed.
    pub message: String,
    /// What it means and what to do.
    pub advice: &'static str,
}

/// The device's failure lines (a prefix of the line) and what each means, what to do.
pub const DEVICE_FAILURES: [(&str, &str); 4] = [
    (
        "Failure while dumping the app:",
        "the app's process did not answer the dump (it died or hung): start the app again and dump again",
    ),
    (
        "Got a RemoteException while dumping the app",
        "the app's process died during the dump: start the app again and dump again",
    ),
    (
        "No process found for:",
        "the app was not running (or the package name is wrong): start it and dump again",
    ),
    (
        "Permission Denial: can't dump gfxinfo",
        "the caller lacks android.permission.DUMP: run `adb shell dumpsys gfxinfo <package> framestats` from \
         the computer, not from an app on the device",
    ),
];

impl GfxinfoCapture {
    /// One [`FrameSeries`] per window that has PROFILEDATA rows, in capture order.
    pub fn series(&self) -> Vec<FrameSeries> {
        let mut out = Vec::new();
        for p in &self.processes {
            for w in p.windows.iter().filter(|w| !w.rows.is_empty()) {
                out.push(w.series(p.pid, p.process_name.as_deref()));
            }
        }
        out
    }
}

/// One process of the dump (AOSP `RenderThread`'s global `ProfileData` plus its windows' `JankTracker`s).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GfxProcess {
    /// Process id from the `** Graphics info for pid N [name] **` line.
    pub pid: Option<i32>,
    /// Process name from the same line.
    pub process_name: Option<String>,
    /// The process-wide summary as printed (the last dump's, when dumps are concatenated).
    pub summary: Option<GfxSummary>,
    /// The windows (ViewRootImpls), in order of first appearance.
    pub windows: Vec<GfxWindow>,
}

/// One window (ViewRootImpl) of a process.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GfxWindow {
    /// The window name: the `Window:` line, or the ViewRootImpl line without `/android.view.ViewRootImpl@…`.
    pub name: String,
    /// The window's own summary as printed (Android 12+ `Window:` block; the last dump's when concatenated).
    pub summary: Option<GfxSummary>,
    /// The PROFILEDATA header's column names, as printed (the last block's).
    pub columns: Vec<String>,
    /// True when the `FrameInterval`/`FrameStartTime` labels were found swapped relative to the values (Android
    /// 12–14, AOSP `FrameInfo.cpp` `FrameInfoNames`) and the columns were taken by value.
    pub interval_labels_swapped: bool,
    /// Finished frames, each once across concatenated dumps ([`FrameInfoRow::identity`]), in (`IntendedVsync`,
    /// `SyncStart`) order.
    pub rows: Vec<FrameInfoRow>,
    /// Rows left out because HWUI had not finished their frame when dumping, or a measured time is implausible
    /// ([`FrameInfoRow::unfinished`]); their lines are in the diagnostics.
    pub unfinished_rows: u64,
    /// Header columns not in [`KNOWN_COLUMNS`] (a newer release's), by name, in header order; not read.
    pub unknown_columns: Vec<String>,
    /// PROFILEDATA blocks without rows: nothing was drawn in the window since its stats were last reset.
    pub empty_blocks: u64,
}

/// True if the decoded text head (first ≤ 64 KiB) looks like `dumpsys gfxinfo` output: a line starting with one
/// of its markers (`** Graphics info for pid`, `---PROFILEDATA---`, the dump's title, the summary lines, or one of
/// the device's failure lines ([`DEVICE_FAILURES`]), so that a file holding only such a line is still read).
pub fn looks_like(head: &str) -> bool {
    let starts = |marker: &str| {
        head.lines().any(|l| {
            l.trim_start_matches('\u{feff}')
                .trim_start()
                .starts_with(marker)
        })
    };
    starts("** Graphics info for pid ")
        || DEVICE_FAILURES.iter().any(|(marker, _)| starts(marker))
        || starts(PROFILEDATA)
        || starts("Applications Graphics Acceleration Info")
        || (starts("Total frames rendered:") && starts("Janky frames:"))
}
