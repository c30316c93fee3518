//! The line-by-line reader behind [`super::read`]: dump structure, summary lines and PROFILEDATA blocks.

use super::row::KNOWN_COLUMNS;
use super::{
    DeviceFailure, FrameInfoRow, GfxProcess, GfxSummary, GfxWindow, GfxinfoCapture, Options,
    DEVICE_FAILURES, INTERVAL_RANGE_NS, PROFILEDATA,
};
use crate::error::{Error, Result};
use crate::model::CaptureDiagnostics;
use crate::sources::for_each_line;
use std::collections::HashMap;
use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::Path;

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
/// Diagnostic for a row of a frame already read from an earlier dump (the less complete of the two is the line).
pub(super) const MERGED: &str =
    "frames dumped again in a later dump merged (the more complete row kept; the line is the other one)";
/// Diagnostic for a PROFILEDATA block without rows.
pub const EMPTY_BLOCK: &str =
    "PROFILEDATA blocks with no rows: nothing was drawn in that window since its \
     stats were last reset (`framestats reset`, a new window) — not an error";
/// Diagnostic for a header column this reader does not know (kept by name on the window).
pub(super) fn unknown_column(name: &str) -> String {
    format!("PROFILEDATA header column `{name}` not known to this reader (kept by name on the window, not read)")
}
/// Name given to a PROFILEDATA block that no window line precedes.
const UNNAMED_WINDOW: &str = "(unnamed window)";

/// Reads a whole capture (already decoded to UTF-8), line by line ([`for_each_line`]).
/// Several dumps back to back are merged: processes by pid and name, windows by name, and a frame read in two
/// dumps is one frame, keeping its more complete row (identified by [`FrameInfoRow::identity`], never by
/// `IntendedVsync` alone); summaries are the last dump's. Rows that are not finished frames
/// ([`FrameInfoRow::unfinished`]) are left out of the windows' rows and counted in the diagnostics with their
/// lines; rows are in (`IntendedVsync`, `SyncStart`) order.
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
    let usable = p.processes.iter().any(|proc| {
        proc.summary.is_some()
            || proc
                .windows
                .iter()
                .any(|w| w.summary.is_some() || !w.rows.is_empty() || w.empty_blocks > 0)
    });
    if let (false, Some(f)) = (usable, p.failures.first()) {
        return Err(Error::Capture {
            path: path.to_path_buf(),
            line: f.line,
            cause: format!(
                "the device could not dump gfxinfo: \"{}\": {}",
                f.message, f.advice
            ),
        });
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
            w.rows.retain(|r| match r.unfinished() {
                Some(why) => {
                    p.diag.note(why.diagnostic(), r.line);
                    w.unfinished_rows += 1;
                    false
                }
                None => true,
            });
            w.rows
                .sort_by_key(|r| (r.intended_vsync_ns, r.sync_start_ns, r.line));
        }
    }
    Ok(GfxinfoCapture {
        processes: p.processes,
        diagnostics: p.diag,
        device_failures: p.failures,
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
    /// Frames already kept, per (process, window): [`FrameInfoRow::identity`] → index in the window's rows.
    seen: HashMap<(usize, usize), HashMap<[i64; 12], usize>>,
    cur_proc: Option<usize>,
    cur_win: Option<usize>,
    target: Target,
    /// The current window came from a ViewRootImpl line whose `Window:` line may follow.
    fresh_window: bool,
    /// Between `Profile data in ms:` and `View hierarchy:`.
    profile_section: bool,
    block: Option<Block>,
    recognised: bool,
    /// The device's own failure lines.
    failures: Vec<DeviceFailure>,
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
        if let Some((marker, advice)) = DEVICE_FAILURES.iter().find(|(m, _)| t.starts_with(m)) {
            self.recognised = true;
            let what = format!("the device could not dump a process (\"{marker}…\"): {advice}");
            self.diag.note(&what, no);
            self.failures.push(DeviceFailure {
                line: no,
                message: t.to_string(),
                advice,
            });
            return;
        }
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
    /// when asked, and adds each row to the current window: a frame already read (same identity) keeps the more
    /// complete of its two rows.
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
        for c in cols.iter().filter(|c| !KNOWN_COLUMNS.contains(&c.as_str())) {
            self.diag.note(&unknown_column(c), header_line);
            if !window.unknown_columns.contains(c) {
                window.unknown_columns.push(c.clone());
            }
        }
        if block.rows.is_empty() {
            self.diag.note(EMPTY_BLOCK, header_line);
            window.empty_blocks += 1;
        }
        for (line, v) in &block.rows {
            let row = FrameInfoRow::from_columns(*line, |name| {
                index.get(name).and_then(|&i| v.get(i)).copied()
            });
            if drop_flagged && row.flags != 0 {
                self.diag
                    .note("rows with Flags != 0 dropped (drop_flagged_rows)", *line);
                continue;
            }
            if row
                .display_present_time_ns
                .is_some_and(|t| row.implausible(t))
            {
                self.diag.note(
                    "implausible DisplayPresentTime (>= 2^55 ns or > 1 day from IntendedVsync): frame counted \
                     as not presented",
                    *line,
                );
            }
            match seen.get(&row.identity()).copied() {
                Some(i) => {
                    let Some(kept) = window.rows.get_mut(i) else {
                        continue;
                    };
                    if row.completeness() >= kept.completeness() {
                        self.diag.note(MERGED, kept.line);
                        *kept = row;
                    } else {
                        self.diag.note(MERGED, row.line);
                    }
                }
                None => {
                    seen.insert(row.identity(), window.rows.len());
                    window.rows.push(row);
                }
            }
        }
    }
}
