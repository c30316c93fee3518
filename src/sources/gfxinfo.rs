//! Reader of `adb shell dumpsys gfxinfo <package> [framestats]` captures into per-process, per-window summaries and
//! PROFILEDATA rows (format: `shared/docs/frame-sources.md` §2; AOSP `libs/hwui/JankTracker.cpp`, `ProfileData.cpp`).

use super::for_each_line;
use crate::error::{Error, Result};
use crate::model::{CaptureDiagnostics, FrameSeries, SeriesFrame, Source};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::Path;

/// The line that opens and closes a framestats block (AOSP `JankTracker::dumpFrames`).
const PROFILEDATA: &str = "---PROFILEDATA---";
/// Plausible frame intervals, ns: 1 ms (1000 Hz) to 1 s. A CLOCK_MONOTONIC timestamp is far above this.
const INTERVAL_RANGE_NS: std::ops::RangeInclusive<i64> = 1_000_000..=1_000_000_000;
/// Columns a PROFILEDATA header must have (every release since Android 6 prints them; the analyses need them).
const REQUIRED_COLUMNS: [&str; 7] = [
    "Flags",
    "IntendedVsync",
    "Vsync",
    "SyncQueued",
    "SyncStart",
    "IssueDrawCommandsStart",
    "FrameCompleted",
];
/// Diagnostic for rows kept although their frame ends before it starts (seen on real devices).
const BACKWARDS: &str =
    "rows with FrameCompleted before IntendedVsync kept (JankTracker does not count them)";
/// Name given to a PROFILEDATA block that no window line precedes.
const UNNAMED_WINDOW: &str = "(unnamed window)";

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
}

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
    /// Frames, each once (de-duplicated by `IntendedVsync` across dumps), in `IntendedVsync` order.
    pub rows: Vec<FrameInfoRow>,
}

/// One PROFILEDATA row: HWUI's `FrameInfo` for one frame (AOSP `libs/hwui/FrameInfo.h` `FrameInfoIndex`). Times
/// are CLOCK_MONOTONIC ns; a column the release does not print is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FrameInfoRow {
    /// 1-based line number of the row in the capture.
    pub line: u64,
    /// `Flags` bit set (`FrameInfoFlags`: 1 WindowLayoutChanged, 2 RTAnimation, 4 SurfaceCanvas, 8 SkippedFrame).
    pub flags: i64,
    /// `FrameTimelineVsyncId` (12+): the FrameTimeline token of the vsync the frame started on.
    pub frame_timeline_vsync_id: Option<i64>,
    /// `IntendedVsync`, ns: the vsync the frame was meant to start on.
    pub intended_vsync_ns: i64,
    /// `Vsync`, ns: the vsync the UI thread actually started on.
    pub vsync_ns: i64,
    /// `InputEventId` (12+): id of the input event handled in the frame (0 if none).
    pub input_event_id: Option<i64>,
    /// `OldestInputEvent` (before 12), ns.
    pub oldest_input_event_ns: Option<i64>,
    /// `NewestInputEvent` (before 12), ns.
    pub newest_input_event_ns: Option<i64>,
    /// `HandleInputStart`, ns.
    pub handle_input_start_ns: Option<i64>,
    /// `AnimationStart`, ns.
    pub animation_start_ns: Option<i64>,
    /// `PerformTraversalsStart`, ns.
    pub perform_traversals_start_ns: Option<i64>,
    /// `DrawStart`, ns.
    pub draw_start_ns: Option<i64>,
    /// `FrameDeadline` (12+), ns, as dumped: already moved one interval later by JankTracker when the frame was
    /// triple-buffered (`JankTracker::finishFrame`). `i64::MAX` when unknown.
    pub frame_deadline_ns: Option<i64>,
    /// The frame interval (12+), ns: the column whose values are intervals, whatever its label says.
    pub frame_interval_ns: Option<i64>,
    /// `FrameStartTime` (12+), ns: the column whose values are timestamps, whatever its label says.
    pub frame_start_time_ns: Option<i64>,
    /// `SyncQueued`, ns: the UI thread queued the sync with the RenderThread.
    pub sync_queued_ns: i64,
    /// `SyncStart`, ns: the RenderThread started the sync.
    pub sync_start_ns: i64,
    /// `IssueDrawCommandsStart`, ns.
    pub issue_draw_commands_start_ns: i64,
    /// `SwapBuffers`, ns.
    pub swap_buffers_ns: Option<i64>,
    /// `FrameCompleted`, ns: the RenderThread was done with the frame.
    pub frame_completed_ns: i64,
    /// `DequeueBufferDuration`, ns (a duration, not a time).
    pub dequeue_buffer_duration_ns: Option<i64>,
    /// `QueueBufferDuration`, ns (a duration, not a time).
    pub queue_buffer_duration_ns: Option<i64>,
    /// `GpuCompleted`, ns: the GPU finished the frame (acquire fence).
    pub gpu_completed_ns: Option<i64>,
    /// `SwapBuffersCompleted`, ns.
    pub swap_buffers_completed_ns: Option<i64>,
    /// `DisplayPresentTime`, ns: present fence (0 or -1 when not known at dump time).
    pub display_present_time_ns: Option<i64>,
    /// `CommandSubmissionCompleted`, ns.
    pub command_submission_completed_ns: Option<i64>,
    /// `WorkloadTarget` (15+), as printed.
    pub workload_target: Option<i64>,
}

impl FrameInfoRow {
    /// A row from its values looked up by HWUI column name (`FrameInfoNames` in AOSP `FrameInfo.cpp`, as a
    /// PROFILEDATA header or a `Davey!` line names them): `get(name)` is the value of that column, `None` when
    /// the release does not print it. The caller has already resolved the Android 12–14
    /// `FrameInterval`/`FrameStartTime` label swap. The columns every release prints read 0 when missing.
    pub fn from_columns(line: u64, get: impl Fn(&str) -> Option<i64>) -> FrameInfoRow {
        let req = |name: &str| get(name).unwrap_or(0);
        FrameInfoRow {
            line,
            flags: req("Flags"),
            frame_timeline_vsync_id: get("FrameTimelineVsyncId"),
            intended_vsync_ns: req("IntendedVsync"),
            vsync_ns: req("Vsync"),
            input_event_id: get("InputEventId"),
            oldest_input_event_ns: get("OldestInputEvent"),
            newest_input_event_ns: get("NewestInputEvent"),
            handle_input_start_ns: get("HandleInputStart"),
            animation_start_ns: get("AnimationStart"),
            perform_traversals_start_ns: get("PerformTraversalsStart"),
            draw_start_ns: get("DrawStart"),
            frame_deadline_ns: get("FrameDeadline"),
            frame_interval_ns: get("FrameInterval"),
            frame_start_time_ns: get("FrameStartTime"),
            sync_queued_ns: req("SyncQueued"),
            sync_start_ns: req("SyncStart"),
            issue_draw_commands_start_ns: req("IssueDrawCommandsStart"),
            swap_buffers_ns: get("SwapBuffers"),
            frame_completed_ns: req("FrameCompleted"),
            dequeue_buffer_duration_ns: get("DequeueBufferDuration"),
            queue_buffer_duration_ns: get("QueueBufferDuration"),
            gpu_completed_ns: get("GpuCompleted"),
            swap_buffers_completed_ns: get("SwapBuffersCompleted"),
            display_present_time_ns: get("DisplayPresentTime"),
            command_submission_completed_ns: get("CommandSubmissionCompleted"),
            workload_target: get("WorkloadTarget"),
        }
    }
}

/// A summary block exactly as the device printed it (AOSP `ProfileData::dump`); a line absent from the block is
/// `None` (or empty).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GfxSummary {
    /// 1-based line of the block's first summary line.
    pub line: u64,
    /// `Stats since: <ns>ns`, CLOCK_MONOTONIC ns of the last reset.
    pub stats_since_ns: Option<i64>,
    /// `Total frames rendered`.
    pub total_frames_rendered: Option<u64>,
    /// `Janky frames: n (pct%)`: n.
    pub janky_frames: Option<u64>,
    /// `Janky frames: n (pct%)`: pct, percent.
    pub janky_pct: Option<f64>,
    /// `Janky frames (legacy): n (pct%)` (12+): n.
    pub janky_frames_legacy: Option<u64>,
    /// `Janky frames (legacy): n (pct%)` (12+): pct, percent.
    pub janky_legacy_pct: Option<f64>,
    /// `50th percentile`, ms (a histogram bucket time, `ProfileData::findPercentile`).
    pub percentile_50_ms: Option<u64>,
    /// `90th percentile`, ms.
    pub percentile_90_ms: Option<u64>,
    /// `95th percentile`, ms.
    pub percentile_95_ms: Option<u64>,
    /// `99th percentile`, ms.
    pub percentile_99_ms: Option<u64>,
    /// `Number Missed Vsync`.
    pub missed_vsync: Option<u64>,
    /// `Number High input latency`.
    pub high_input_latency: Option<u64>,
    /// `Number Slow UI thread`.
    pub slow_ui_thread: Option<u64>,
    /// `Number Slow bitmap uploads`.
    pub slow_bitmap_uploads: Option<u64>,
    /// `Number Slow issue draw commands`.
    pub slow_issue_draw_commands: Option<u64>,
    /// `Number Frame deadline missed`.
    pub frame_deadline_missed: Option<u64>,
    /// `Number Frame deadline missed (legacy)` (12+).
    pub frame_deadline_missed_legacy: Option<u64>,
    /// Any other `Number <what>: n` line: (what, n).
    pub other_numbers: Vec<(String, u64)>,
    /// `HISTOGRAM:` as (bucket ms, frames), in printed order.
    pub histogram: Vec<(u32, u64)>,
    /// `50th gpu percentile`, ms (newer releases).
    pub gpu_percentile_50_ms: Option<u64>,
    /// `90th gpu percentile`, ms.
    pub gpu_percentile_90_ms: Option<u64>,
    /// `95th gpu percentile`, ms.
    pub gpu_percentile_95_ms: Option<u64>,
    /// `99th gpu percentile`, ms.
    pub gpu_percentile_99_ms: Option<u64>,
    /// `GPU HISTOGRAM:` as (bucket ms, frames).
    pub gpu_histogram: Vec<(u32, u64)>,
}

/// True if the decoded text head (first ≤ 64 KiB) looks like `dumpsys gfxinfo` output: a line starting with one
/// of its markers (`** Graphics info for pid`, `---PROFILEDATA---`, the dump's title, or the summary lines).
pub fn looks_like(head: &str) -> bool {
    let starts = |marker: &str| {
        head.lines().any(|l| {
            l.trim_start_matches('\u{feff}')
                .trim_start()
                .starts_with(marker)
        })
    };
    starts("** Graphics info for pid ")
        || starts(PROFILEDATA)
        || starts("Applications Graphics Acceleration Info")
        || (starts("Total frames rendered:") && starts("Janky frames:"))
}

/// The frame period of a window's rows, ns, and where it came from: the median of the frame-interval column
/// (values in 1 ms – 1 s) when the release prints one (`"FrameInterval"`), else the smallest consecutive
/// `IntendedVsync` delta in 1 ms – 1 s (`"smallest IntendedVsync delta"`: the vsync period once two frames were
/// drawn on consecutive vsyncs; pass `--vsync-period` for an app that never did); `None` when neither gives a
/// value.
/// "Median" is the lower middle value of an even count (always a measured value).
pub fn frame_period(rows: &[FrameInfoRow]) -> (Option<i64>, &'static str) {
    let intervals: Vec<i64> = rows
        .iter()
        .filter_map(|r| r.frame_interval_ns)
        .filter(|v| INTERVAL_RANGE_NS.contains(v))
        .collect();
    if let Some(m) = lower_median(intervals) {
        return (Some(m), "FrameInterval");
    }
    let mut vsyncs: Vec<i64> = rows.iter().map(|r| r.intended_vsync_ns).collect();
    vsyncs.sort_unstable();
    let deltas: Vec<i64> = vsyncs
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .filter(|d| INTERVAL_RANGE_NS.contains(d))
        .collect();
    // IntendedVsync values are vsync times, so their deltas are whole vsyncs: the smallest is the period as soon
    // as two frames were drawn on consecutive vsyncs (a median would give an app drawing at 30 fps on a 60 Hz
    // display a 33 ms "vsync").
    match deltas.into_iter().min() {
        Some(m) => (Some(m), "smallest IntendedVsync delta"),
        None => (
            None,
            "unknown (no FrameInterval column, fewer than 2 frames)",
        ),
    }
}

fn lower_median(mut v: Vec<i64>) -> Option<i64> {
    v.sort_unstable();
    let mid = v.len().checked_sub(1)? / 2;
    v.get(mid).copied()
}

impl GfxWindow {
    /// The window's frames as a [`FrameSeries`] (`source` gfxinfo, `layer_name` the window name): expected start
    /// `IntendedVsync`, expected end `FrameDeadline`, actual start `Vsync`, actual end `FrameCompleted`, ready
    /// `GpuCompleted`. Present times: `DisplayPresentTime` when the column exists with at least one value > 0
    /// (frames whose value is ≤ 0 then have no present time), else `FrameCompleted` for every frame, labelled so.
    /// Period: see [`frame_period`].
    pub fn series(&self, pid: Option<i32>, process_name: Option<&str>) -> FrameSeries {
        let has_present = self
            .rows
            .iter()
            .any(|r| r.display_present_time_ns.is_some_and(|p| p > 0));
        let (period_ns, period_from) = frame_period(&self.rows);
        let frames = self
            .rows
            .iter()
            .map(|r| SeriesFrame {
                expected_start_ns: Some(r.intended_vsync_ns),
                expected_end_ns: r.frame_deadline_ns,
                actual_start_ns: Some(r.vsync_ns),
                actual_end_ns: Some(r.frame_completed_ns),
                ready_ns: r.gpu_completed_ns,
                desired_present_ns: None,
                present_ns: if has_present {
                    r.display_present_time_ns.filter(|p| *p > 0)
                } else {
                    Some(r.frame_completed_ns)
                },
            })
            .collect();
        FrameSeries {
            source: Source::Gfxinfo,
            pid,
            process_name: process_name.map(str::to_string),
            layer_name: self.name.clone(),
            period_ns,
            period_from,
            presents_from: if has_present {
                "DisplayPresentTime"
            } else {
                "FrameCompleted (no present times in this capture)"
            },
            frames,
        }
    }
}

/// Reads a whole capture (already decoded to UTF-8), line by line ([`for_each_line`]).
/// Several dumps back to back are merged: processes by pid and name, windows by name, rows de-duplicated by
/// `IntendedVsync`; summaries are the last dump's.
///
/// Errors ([`Error::Capture`]): a PROFILEDATA header without a needed column (naming the line and the column); a
/// file with no gfxinfo content at all (line 0). Bad rows are skipped and counted in the diagnostics.
pub fn read<R: BufRead>(reader: R, path: &Path, options: &Options) -> Result<GfxinfoCapture> {
    let mut p = Parser {
        options: *options,
        ..Parser::default()
    };
    let mut no = 0u64;
    for_each_line(reader, path, |line| {
        no = line.no;
        let text = String::from_utf8_lossy(line.bytes);
        p.line(no, &text).map_err(|(line, cause)| Error::Capture {
            path: path.to_path_buf(),
            line,
            cause,
        })?;
        Ok(ControlFlow::Continue(()))
    })?;
    if p.block.is_some() {
        p.diag
            .note("PROFILEDATA block not closed (truncated capture?)", no);
        p.finish_block();
    }
    if !p.recognised {
        return Err(Error::Capture {
            path: path.to_path_buf(),
            line: 0,
            cause: "no dumpsys gfxinfo content: expected `** Graphics info for pid N [name] **`, a summary \
                    (`Total frames rendered: N`) or a `---PROFILEDATA---` block"
                .to_string(),
        });
    }
    for proc in &mut p.processes {
        for w in &mut proc.windows {
            w.rows.sort_by_key(|r| r.intended_vsync_ns);
        }
    }
    Ok(GfxinfoCapture {
        processes: p.processes,
        diagnostics: p.diag,
    })
}

/// Which summary the next summary lines belong to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Target {
    #[default]
    Process,
    Window,
}

/// An open PROFILEDATA block.
#[derive(Debug, Default)]
struct Block {
    /// Column names and the header's line, once read.
    header: Option<(Vec<String>, u64)>,
    /// Numeric rows with their line numbers.
    rows: Vec<(u64, Vec<i64>)>,
}

#[derive(Debug, Default)]
struct Parser {
    options: Options,
    diag: CaptureDiagnostics,
    processes: Vec<GfxProcess>,
    /// IntendedVsync values already kept, per (process, window).
    seen: HashMap<(usize, usize), HashSet<i64>>,
    cur_proc: Option<usize>,
    cur_win: Option<usize>,
    target: Target,
    /// The current window came from a ViewRootImpl line whose `Window:` line may follow.
    fresh_window: bool,
    /// Between `Profile data in ms:` and `View hierarchy:`.
    profile_section: bool,
    block: Option<Block>,
    recognised: bool,
}

type LineError = (u64, String);

impl Parser {
    fn line(&mut self, no: u64, text: &str) -> std::result::Result<(), LineError> {
        let t = text.trim();
        if let Some(block) = self.block.as_mut() {
            if t == PROFILEDATA {
                self.finish_block();
                return Ok(());
            }
            if t.is_empty() {
                return Ok(());
            }
            if t.starts_with("** Graphics info") || t.starts_with("Applications Graphics") {
                self.diag
                    .note("PROFILEDATA block not closed (truncated capture?)", no);
                self.finish_block();
            } else if block.header.is_none() {
                let cols: Vec<String> = t.split(',').map(|c| c.trim().to_string()).collect();
                let cols: Vec<String> = match cols.split_last() {
                    Some((last, rest)) if last.is_empty() => rest.to_vec(),
                    _ => cols,
                };
                if let Some(missing) = REQUIRED_COLUMNS
                    .iter()
                    .find(|c| !cols.iter().any(|h| h == *c))
                {
                    return Err((
                        no,
                        format!(
                            "PROFILEDATA header has no `{missing}` column (expected HWUI FrameInfo column names \
                             such as `Flags,IntendedVsync,Vsync,…,FrameCompleted,`)"
                        ),
                    ));
                }
                block.header = Some((cols, no));
                return Ok(());
            } else {
                let width = block.header.as_ref().map_or(0, |h| h.0.len());
                let fields: Vec<&str> = t.split(',').map(str::trim).collect();
                let fields = match fields.split_last() {
                    Some((&"", rest)) => rest,
                    _ => &fields[..],
                };
                if fields.len() < width {
                    self.diag.note(
                        "PROFILEDATA rows with fewer fields than the header skipped",
                        no,
                    );
                    return Ok(());
                }
                let values: Option<Vec<i64>> =
                    fields.iter().take(width).map(|f| f.parse().ok()).collect();
                match values {
                    Some(v) => block.rows.push((no, v)),
                    None => self
                        .diag
                        .note("PROFILEDATA rows with a non-numeric field skipped", no),
                }
                return Ok(());
            }
        }
        self.structure_line(no, t);
        Ok(())
    }

    fn structure_line(&mut self, no: u64, t: &str) {
        if let Some(rest) = t.strip_prefix("** Graphics info for pid ") {
            self.recognised = true;
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let pid = digits.parse::<i32>().ok();
            let name = match (rest.find('['), rest.rfind(']')) {
                (Some(a), Some(b)) if b > a => rest.get(a + 1..b).map(str::to_string),
                _ => None,
            };
            let idx = match self
                .processes
                .iter()
                .position(|p| p.pid == pid && p.process_name == name)
            {
                Some(i) => i,
                None => {
                    self.processes.push(GfxProcess {
                        pid,
                        process_name: name,
                        ..GfxProcess::default()
                    });
                    self.processes.len() - 1
                }
            };
            self.cur_proc = Some(idx);
            self.cur_win = None;
            self.target = Target::Process;
            self.fresh_window = false;
            self.profile_section = false;
        } else if t.starts_with("Applications Graphics Acceleration Info") {
            // A new dump (possibly without `** Graphics info` lines): summaries go to the process again.
            self.recognised = true;
            self.cur_win = None;
            self.target = Target::Process;
            self.fresh_window = false;
            self.profile_section = false;
        } else if t == PROFILEDATA {
            self.recognised = true;
            self.block = Some(Block::default());
        } else if t == "Profile data in ms:" {
            self.profile_section = true;
        } else if t == "View hierarchy:" {
            self.profile_section = false;
        } else if let Some(name) = t.strip_prefix("Window:") {
            let name = name.trim();
            if !(self.fresh_window && self.cur_win.is_some()) {
                self.select_window(name);
            }
            self.fresh_window = false;
            self.target = Target::Window;
        } else if let Some(at) = t.find("/android.view.ViewRootImpl@") {
            if t.contains("(visibility=") || self.profile_section {
                let name = t.get(..at).unwrap_or_default().to_string();
                self.select_window(&name);
                self.fresh_window = true;
                self.target = Target::Window;
            }
        } else {
            self.summary_line(no, t);
        }
    }

    fn process(&mut self) -> usize {
        match self.cur_proc {
            Some(i) => i,
            None => {
                self.processes.push(GfxProcess::default());
                let i = self.processes.len() - 1;
                self.cur_proc = Some(i);
                i
            }
        }
    }

    fn select_window(&mut self, name: &str) -> (usize, usize) {
        let pi = self.process();
        let windows = &mut self.processes[pi].windows;
        let wi = match windows.iter().position(|w| w.name == name) {
            Some(i) => i,
            None => {
                windows.push(GfxWindow {
                    name: name.to_string(),
                    ..GfxWindow::default()
                });
                windows.len() - 1
            }
        };
        self.cur_win = Some(wi);
        (pi, wi)
    }

    fn summary_mut(&mut self, no: u64, fresh: bool) -> &mut GfxSummary {
        let pi = self.process();
        let slot = match (self.target, self.cur_win) {
            (Target::Window, Some(wi)) if wi < self.processes[pi].windows.len() => {
                &mut self.processes[pi].windows[wi].summary
            }
            _ => &mut self.processes[pi].summary,
        };
        if fresh || slot.is_none() {
            *slot = Some(GfxSummary {
                line: no,
                ..GfxSummary::default()
            });
        }
        slot.get_or_insert_with(GfxSummary::default)
    }

    fn summary_line(&mut self, no: u64, t: &str) {
        let Some((key, value)) = t.split_once(':') else {
            return;
        };
        let value = value.trim();
        let ms = |v: &str| v.trim_end_matches("ms").trim().parse::<u64>().ok();
        let count_pct = |v: &str| {
            let (n, pct) = v.split_once('(').unwrap_or((v, ""));
            let pct = pct
                .trim()
                .trim_end_matches(')')
                .trim_end_matches('%')
                .trim();
            (n.trim().parse::<u64>().ok(), pct.parse::<f64>().ok())
        };
        match key {
            "Stats since" => {
                self.recognised = true;
                let v = value.trim_end_matches("ns").parse::<i64>().ok();
                self.summary_mut(no, true).stats_since_ns = v;
            }
            "Total frames rendered" => {
                self.recognised = true;
                let v = value.parse().ok();
                self.summary_mut(no, false).total_frames_rendered = v;
            }
            "Janky frames" => {
                let (n, pct) = count_pct(value);
                let s = self.summary_mut(no, false);
                (s.janky_frames, s.janky_pct) = (n, pct);
            }
            "Janky frames (legacy)" => {
                let (n, pct) = count_pct(value);
                let s = self.summary_mut(no, false);
                (s.janky_frames_legacy, s.janky_legacy_pct) = (n, pct);
            }
            "50th percentile" => self.summary_mut(no, false).percentile_50_ms = ms(value),
            "90th percentile" => self.summary_mut(no, false).percentile_90_ms = ms(value),
            "95th percentile" => self.summary_mut(no, false).percentile_95_ms = ms(value),
            "99th percentile" => self.summary_mut(no, false).percentile_99_ms = ms(value),
            "50th gpu percentile" => self.summary_mut(no, false).gpu_percentile_50_ms = ms(value),
            "90th gpu percentile" => self.summary_mut(no, false).gpu_percentile_90_ms = ms(value),
            "95th gpu percentile" => self.summary_mut(no, false).gpu_percentile_95_ms = ms(value),
            "99th gpu percentile" => self.summary_mut(no, false).gpu_percentile_99_ms = ms(value),
            "HISTOGRAM" | "GPU HISTOGRAM" => {
                let mut hist = Vec::new();
                for token in value.split_whitespace() {
                    let parsed = token.split_once('=').and_then(|(b, n)| {
                        Some((
                            b.trim_end_matches("ms").parse::<u32>().ok()?,
                            n.parse::<u64>().ok()?,
                        ))
                    });
                    match parsed {
                        Some(e) => hist.push(e),
                        None => self.diag.note("unreadable histogram entries skipped", no),
                    }
                }
                let gpu = key == "GPU HISTOGRAM";
                let s = self.summary_mut(no, false);
                if gpu {
                    s.gpu_histogram = hist;
                } else {
                    s.histogram = hist;
                }
            }
            _ => {
                let Some(what) = key.strip_prefix("Number ") else {
                    return;
                };
                let Ok(n) = value.parse::<u64>() else {
                    self.diag
                        .note("unreadable `Number …` summary lines skipped", no);
                    return;
                };
                let s = self.summary_mut(no, false);
                match what {
                    "Missed Vsync" => s.missed_vsync = Some(n),
                    "High input latency" => s.high_input_latency = Some(n),
                    "Slow UI thread" => s.slow_ui_thread = Some(n),
                    "Slow bitmap uploads" => s.slow_bitmap_uploads = Some(n),
                    "Slow issue draw commands" => s.slow_issue_draw_commands = Some(n),
                    "Frame deadline missed" => s.frame_deadline_missed = Some(n),
                    "Frame deadline missed (legacy)" => s.frame_deadline_missed_legacy = Some(n),
                    other => s.other_numbers.push((other.to_string(), n)),
                }
            }
        }
    }

    /// Closes the open PROFILEDATA block: maps columns (by value for the interval column), drops flagged rows
    /// when asked, and adds the rows not seen before to the current window.
    fn finish_block(&mut self) {
        self.fresh_window = false;
        let Some(block) = self.block.take() else {
            return;
        };
        let Some((cols, header_line)) = block.header else {
            return;
        };
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, c) in cols.iter().enumerate() {
            index.entry(c.as_str()).or_insert(i);
        }
        let in_range = |col: Option<usize>| {
            col.map_or(0, |c| {
                block
                    .rows
                    .iter()
                    .filter(|(_, v)| v.get(c).is_some_and(|x| INTERVAL_RANGE_NS.contains(x)))
                    .count()
            })
        };
        let mut swapped = false;
        if let (Some(&fi), Some(&fs)) = (index.get("FrameInterval"), index.get("FrameStartTime")) {
            if in_range(Some(fs)) > in_range(Some(fi)) {
                index.insert("FrameInterval", fs);
                index.insert("FrameStartTime", fi);
                swapped = true;
                self.diag.note(
                    "FrameInterval/FrameStartTime header labels swapped (Android 12–14); columns taken by value",
                    header_line,
                );
            }
        }
        let (pi, wi) = match self.cur_win {
            Some(wi) => (self.process(), wi),
            None => {
                let name = self
                    .cur_proc
                    .and_then(|p| self.processes.get(p))
                    .and_then(|p| p.process_name.clone())
                    .unwrap_or_else(|| UNNAMED_WINDOW.to_string());
                self.select_window(&name)
            }
        };
        let drop_flagged = self.options.drop_flagged_rows;
        let seen = self.seen.entry((pi, wi)).or_default();
        let Some(window) = self
            .processes
            .get_mut(pi)
            .and_then(|p| p.windows.get_mut(wi))
        else {
            return;
        };
        window.columns = cols.clone();
        window.interval_labels_swapped |= swapped;
        for (line, v) in &block.rows {
            let row = FrameInfoRow::from_columns(*line, |name| {
                index.get(name).and_then(|&i| v.get(i)).copied()
            });
            if drop_flagged && row.flags != 0 {
                self.diag
                    .note("rows with Flags != 0 dropped (drop_flagged_rows)", *line);
                continue;
            }
            if row.frame_completed_ns < row.intended_vsync_ns {
                self.diag.note(BACKWARDS, *line);
            }
            if !seen.insert(row.intended_vsync_ns) {
                self.diag.note(
                    "duplicate frames (same IntendedVsync as an earlier row) dropped",
                    *line,
                );
                continue;
            }
            window.rows.push(row);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::analysis::janktracker::{recompute, JankTrackerNumbers};

    const HEADER12: &str = "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,\
        AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,\
        SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,\
        GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,";

    /// A 12+ row (labels swapped as on 12–14: the `FrameInterval` column holds the start time), times in ms.
    fn row12(flags: i64, iv: i64, deadline: i64, fc: i64, present: i64) -> String {
        let t = |ms: i64| 1_000_000_000_000 + ms * 1_000_000;
        format!(
            "{flags},1,{},{},0,{},{},{},{},{},{},16000000,{},{},{},{},{},100,100,{},{},{},{},",
            t(iv),
            t(iv),
            t(iv),
            t(iv),
            t(iv),
            t(iv),
            t(deadline),
            t(iv),
            t(iv + 1),
            t(iv + 1),
            t(iv + 2),
            t(fc - 1),
            t(fc),
            t(fc),
            t(fc),
            present,
            t(fc)
        )
    }

    fn dump(rows: &[String]) -> String {
        format!(
            "Applications Graphics Acceleration Info:\r\n** Graphics info for pid 42 [com.example] **\r\n\r\n\
             Stats since: 5ns\r\nTotal frames rendered: 3\r\nJanky frames: 1 (33.33%)\r\n50th percentile: 9ms\r\n\
             Profile data in ms:\r\n\r\n\tcom.example/com.example.Main/android.view.ViewRootImpl@1 (visibility=0)\r\n\
             Window: com.example/com.example.Main\r\nStats since: 6ns\r\nTotal frames rendered: 3\r\n\r\n\
             ---PROFILEDATA---\r\n{HEADER12}\r\n{}\r\n---PROFILEDATA---\r\n\r\n\
             \tToast/android.view.ViewRootImpl@2 (visibility=8)\r\nWindow: Toast\r\nStats since: 7ns\r\n\
             Total frames rendered: 0\r\n50th percentile: 4950ms\r\n---PROFILEDATA---\r\n{HEADER12}\r\n\
             ---PROFILEDATA---\r\n\r\nView hierarchy:\r\n\r\n  com.example/com.example.Main/android.view.ViewRootImpl@1\r\n",
            rows.join("\r\n")
        )
    }

    fn parse(text: &str, options: &Options) -> Result<GfxinfoCapture> {
        read(text.as_bytes(), Path::new("t.txt"), options)
    }

    fn three_rows() -> Vec<String> {
        let present = |ms: i64| 1_000_000_000_000 + ms * 1_000_000;
        vec![
            row12(0, 0, 16, 10, present(20)),
            row12(0, 16, 32, 40, present(50)),
            row12(4, 32, 48, 70, 0),
        ]
    }

    #[test]
    fn hand_made_dump_reads_windows_summaries_and_rows() {
        let text = format!("\u{feff}{}", dump(&three_rows()));
        assert!(looks_like(&text));
        let cap = parse(&text, &Options::default()).unwrap();
        assert_eq!(cap.processes.len(), 1);
        let p = &cap.processes[0];
        assert_eq!(
            (p.pid, p.process_name.as_deref()),
            (Some(42), Some("com.example"))
        );
        assert_eq!(p.summary.as_ref().unwrap().janky_pct, Some(33.33));
        assert_eq!(p.windows.len(), 2);
        let w = &p.windows[0];
        assert_eq!(w.name, "com.example/com.example.Main");
        assert_eq!(w.summary.as_ref().unwrap().stats_since_ns, Some(6));
        assert_eq!(w.rows.len(), 3);
        assert!(w.interval_labels_swapped);
        assert_eq!(w.rows[0].frame_interval_ns, Some(16_000_000));
        assert_eq!(w.rows[0].frame_start_time_ns, Some(1_000_000_000_000));
        assert_eq!((w.rows[2].flags, w.rows[2].line), (4, 19));
        let toast = &p.windows[1];
        assert_eq!(toast.name, "Toast");
        assert_eq!(
            toast.summary.as_ref().unwrap().total_frames_rendered,
            Some(0)
        );
        assert_eq!(toast.summary.as_ref().unwrap().percentile_50_ms, Some(4950));
        assert!(toast.rows.is_empty() && !toast.columns.is_empty());
        // GPU done at FrameCompleted: row 2 (40 >= 32) is janky, row 3 is SurfaceCanvas.
        let n = recompute(&w.rows, None);
        assert_eq!((n.total_frames, n.janky_frames), (3, 1));
        let s = w.series(p.pid, p.process_name.as_deref());
        assert_eq!(
            (s.source, s.layer_name.as_str()),
            (Source::Gfxinfo, "com.example/com.example.Main")
        );
        assert_eq!(
            (s.period_ns, s.period_from),
            (Some(16_000_000), "FrameInterval")
        );
        assert_eq!(s.presents_from, "DisplayPresentTime");
        assert_eq!(s.frames.get(2).unwrap().present_ns, None);
        assert_eq!(
            s.frames.get(1).unwrap().expected_end_ns,
            Some(1_000_000_000_000 + 32_000_000)
        );
        assert_eq!(cap.series().len(), 1);
    }

    #[test]
    fn flagged_rows_dropped_only_on_request() {
        let cap = parse(
            &dump(&three_rows()),
            &Options {
                drop_flagged_rows: true,
            },
        )
        .unwrap();
        assert_eq!(cap.processes[0].windows[0].rows.len(), 2);
        assert_eq!(
            cap.diagnostics
                .count("rows with Flags != 0 dropped (drop_flagged_rows)"),
            1
        );
    }

    #[test]
    fn concatenated_dumps_are_deduplicated_by_intended_vsync() {
        let rows = three_rows();
        let first = dump(&rows[..2]);
        let second = dump(&rows[1..]);
        let cap = parse(&format!("{first}{second}"), &Options::default()).unwrap();
        assert_eq!(cap.processes.len(), 1);
        let w = &cap.processes[0].windows[0];
        let ivs: Vec<i64> = w.rows.iter().map(|r| r.intended_vsync_ns).collect();
        assert_eq!(
            ivs,
            vec![1_000_000_000_000, 1_000_016_000_000, 1_000_032_000_000]
        );
        assert_eq!(
            cap.diagnostics
                .count("duplicate frames (same IntendedVsync as an earlier row) dropped"),
            1
        );
    }

    #[test]
    fn header_without_intended_vsync_is_an_error_with_its_line() {
        let text = "---PROFILEDATA---\nFlags,Vsync,SyncQueued,SyncStart,IssueDrawCommandsStart,FrameCompleted,\n";
        let err = parse(text, &Options::default()).unwrap_err();
        match err {
            Error::Capture { line, cause, .. } => {
                assert_eq!(line, 2);
                assert!(cause.contains("IntendedVsync"), "{cause}");
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn short_and_non_numeric_rows_are_counted() {
        let mut rows = three_rows();
        rows.insert(1, "0,1,2,3,".to_string());
        rows.insert(2, rows[0].replace(",100,100,", ",x,100,"));
        let cap = parse(&dump(&rows), &Options::default()).unwrap();
        assert_eq!(cap.processes[0].windows[0].rows.len(), 3);
        let d = &cap.diagnostics;
        assert_eq!(
            d.counts["PROFILEDATA rows with fewer fields than the header skipped"].lines,
            vec![18]
        );
        assert_eq!(
            d.counts["PROFILEDATA rows with a non-numeric field skipped"].lines,
            vec![19]
        );
    }

    #[test]
    fn pre12_block_without_deadline_or_presents() {
        let header = "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,\
                      PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,\
                      FrameCompleted,";
        let row = |iv: i64| {
            let v: Vec<String> = (0..13).map(|k| (iv + k * 1_000_000).to_string()).collect();
            format!("0,{},", v.join(","))
        };
        let text = format!(
            "\tapp/Main/android.view.ViewRootImpl@3 (visibility=0)\n---PROFILEDATA---\n{header}\n{}\n{}\n{}\n\
             ---PROFILEDATA---\n",
            row(100_000_000_000),
            row(100_016_600_000),
            row(100_050_000_000)
        );
        let cap = parse(&text, &Options::default()).unwrap();
        let p = &cap.processes[0];
        assert_eq!((p.pid, p.windows[0].name.as_str()), (None, "app/Main"));
        let s = p.windows[0].series(None, None);
        assert_eq!(
            (s.period_ns, s.period_from),
            (Some(16_600_000), "smallest IntendedVsync delta")
        );
        assert_eq!(
            s.presents_from,
            "FrameCompleted (no present times in this capture)"
        );
        assert_eq!(s.frames.get(0).unwrap().present_ns, Some(100_012_000_000));
        assert_eq!(s.frames.get(0).unwrap().expected_end_ns, None);
    }

    #[test]
    fn nothing_recognisable_is_an_error_for_the_whole_file() {
        let err = parse("hello\nworld\n", &Options::default()).unwrap_err();
        assert!(matches!(err, Error::Capture { line: 0, .. }), "{err}");
        assert!(!looks_like("hello"));
    }

    #[test]
    fn garbage_never_panics() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let pieces = [
            "---PROFILEDATA---\n",
            HEADER12,
            "\n",
            "** Graphics info for pid 1 [a] **\n",
            "Window: w\n",
            "HISTOGRAM: 5ms=1 x=y 6ms=\n",
            "Janky frames: (%)\n",
            "Number : \n",
            "\tw/android.view.ViewRootImpl@1 (visibility=0)\n",
            "1,2,3,-9223372036854775808,9223372036854775807,",
            ",,,,\n",
            "Stats since: nsns\n",
        ];
        for _ in 0..300 {
            let mut bytes = Vec::new();
            for _ in 0..(next() % 40) {
                if next() % 3 == 0 {
                    bytes.extend((0..next() % 20).map(|_| next() as u8));
                } else {
                    bytes.extend_from_slice(
                        pieces[(next() % pieces.len() as u64) as usize].as_bytes(),
                    );
                }
            }
            if let Ok(cap) = read(&bytes[..], Path::new("g"), &Options::default()) {
                for p in &cap.processes {
                    for w in &p.windows {
                        let _ = recompute(&w.rows, None);
                        let _ = w.series(p.pid, None);
                    }
                }
            }
        }
    }

    #[test]
    fn real_capture_linkadb_qq() {
        let bytes =
            std::fs::read("../shared/text/linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt").unwrap();
        let units: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let text = String::from_utf16(&units).unwrap();
        assert!(looks_like(&text[..text.len().min(65536)]));
        let cap = parse(&text, &Options::default()).unwrap();
        assert_eq!(cap.processes.len(), 1);
        let p = &cap.processes[0];
        assert_eq!(
            (p.pid, p.process_name.as_deref()),
            (Some(13893), Some("com.tencent.mobileqq"))
        );
        let s = p.summary.as_ref().unwrap();
        assert_eq!(
            (s.total_frames_rendered, s.janky_frames, s.janky_pct),
            (Some(188), Some(25), Some(13.30))
        );
        assert_eq!(
            (s.janky_frames_legacy, s.janky_legacy_pct),
            (Some(35), Some(18.62))
        );
        let pct = (
            s.percentile_50_ms,
            s.percentile_90_ms,
            s.percentile_95_ms,
            s.percentile_99_ms,
        );
        assert_eq!(pct, (Some(8), Some(42), Some(73), Some(550)));
        assert_eq!(s.histogram.len(), 154);
        assert_eq!(s.histogram.iter().map(|e| e.1).sum::<u64>(), 188);
        assert_eq!(s.gpu_histogram.len(), 26);
        let dumped = JankTrackerNumbers::from(s);
        assert_eq!(
            (
                dumped.missed_deadline_count,
                dumped.high_input_latency_count
            ),
            (25, Some(265))
        );
        assert_eq!(p.windows.len(), 2);
        let w = &p.windows[0];
        assert_eq!(
            w.name,
            "com.tencent.mobileqq/com.tencent.mobileqq.activity.Alias5SplashActivity"
        );
        assert_eq!(w.summary.as_ref().unwrap().total_frames_rendered, Some(188));
        assert_eq!(w.rows.len(), 120);
        assert!(w.interval_labels_swapped);
        assert!(w.rows.iter().all(|r| r
            .frame_interval_ns
            .is_some_and(|v| INTERVAL_RANGE_NS.contains(&v))));
        assert!(w
            .rows
            .iter()
            .all(|r| r.frame_start_time_ns.is_some_and(|v| v > 1_000_000_000_000)));
        let toast = &p.windows[1];
        assert_eq!(toast.name, "Toast");
        let ts = toast.summary.as_ref().unwrap();
        assert_eq!(
            (ts.total_frames_rendered, ts.percentile_99_ms),
            (Some(0), Some(4950))
        );
        assert!(toast.rows.is_empty());
        let series = w.series(p.pid, p.process_name.as_deref());
        assert_eq!(series.presents_from, "DisplayPresentTime");
        assert_eq!(series.period_from, "FrameInterval");
        assert!(series
            .period_ns
            .is_some_and(|v| (16_000_000..17_000_000).contains(&v)));
        let n = recompute(&w.rows, None);
        eprintln!(
            "recomputed: {n:?}\ndiagnostics: {:?}\nperiod: {:?}",
            cap.diagnostics, series.period_ns
        );
        // Line 172's FrameCompleted (and GpuCompleted) is 4 s before its IntendedVsync: duration <= 0, and
        // JankTracker does not count such a frame.
        assert_eq!(n.total_frames, 119);
        assert_eq!(cap.diagnostics.counts[BACKWARDS].lines, vec![172]);
        assert!(n.janky_frames <= 25 && n.missed_deadline_count == n.janky_frames);
        assert!(
            (5..=12).contains(&n.frame_time_ms_p50),
            "{}",
            n.frame_time_ms_p50
        );
    }
}
