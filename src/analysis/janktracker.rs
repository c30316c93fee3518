//! HWUI's JankTracker numbers (janky frames, causes, histogram, percentiles) recomputed from gfxinfo PROFILEDATA
//! rows, or taken as dumped (`shared/docs/frame-sources.md` §2; AOSP `libs/hwui/JankTracker.cpp`, `ProfileData.cpp`,
//! `FrameInfo.h`).

use crate::sources::gfxinfo::{frame_period, FrameInfoRow, GfxSummary};
use serde::Serialize;

/// `FrameInfoFlags::SurfaceCanvas` (`Surface.lockHardwareCanvas()` drawing), AOSP `FrameInfo.h`.
pub const FLAG_SURFACE_CANVAS: i64 = 4;

/// Normal histogram buckets (`ProfileData::mFrameCounts`): 5 ms and below, then 1 ms / 2 ms / 4 ms steps.
pub const NORMAL_BUCKETS: usize = 57;
/// Slow histogram buckets (`ProfileData::mSlowFrameCounts`): 50 ms steps from 150 ms to 4950 ms.
pub const SLOW_BUCKETS: usize = 97;
/// Spans at or above this (ns) are not counted as a jank cause (AOSP `IGNORE_EXCEEDING`: an ANR, not jank).
const IGNORE_EXCEEDING_NS: i64 = 10_000_000_000;
/// Frame interval assumed when a capture gives none, ns: 60 Hz, the display JankTracker was built for.
const FALLBACK_INTERVAL_NS: i64 = 16_666_666;

/// JankTracker's numbers for one process or window, saying which they are. Field names are those of Android's
/// graphicsstats proto (`GraphicsStatsJankSummaryProto`). A number is `None` when the dump does not print its
/// line (Android 7 has no `Number Frame deadline missed`): absent, never 0. Recomputed numbers are all `Some`,
/// except those the rows cannot give.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct JankTrackerNumbers {
    /// `"recomputed"` (from PROFILEDATA rows, ≤ 120 frames) or `"as_dumped"` (the summary the device printed,
    /// covering every frame since `Stats since`). Never mix the two.
    pub numbers: &'static str,
    /// Frames with a duration > 0 (`Total frames rendered`).
    pub total_frames: Option<u64>,
    /// Janky frames (`Janky frames`): 12+ deadline missed; before 12, duration > frame interval.
    pub janky_frames: Option<u64>,
    /// `janky_frames / total_frames × 100`, percent, rounded to 2 decimals as the dump prints it (0 with no frames).
    pub janky_pct: Option<f64>,
    /// `Number Missed Vsync`.
    pub missed_vsync_count: Option<u64>,
    /// `Number High input latency`; `None` when recomputed (needs state the dump lacks).
    pub high_input_latency_count: Option<u64>,
    /// `Number Slow UI thread`.
    pub slow_ui_thread_count: Option<u64>,
    /// `Number Slow bitmap uploads`.
    pub slow_bitmap_upload_count: Option<u64>,
    /// `Number Slow issue draw commands`.
    pub slow_draw_count: Option<u64>,
    /// `Number Frame deadline missed`.
    pub missed_deadline_count: Option<u64>,
    /// 50th percentile frame time, ms (a histogram bucket time, `ProfileData::findPercentile`).
    pub frame_time_ms_p50: Option<u64>,
    /// 90th percentile frame time, ms.
    pub frame_time_ms_p90: Option<u64>,
    /// 95th percentile frame time, ms.
    pub frame_time_ms_p95: Option<u64>,
    /// 99th percentile frame time, ms.
    pub frame_time_ms_p99: Option<u64>,
    /// `Janky frames (legacy)` (12+); `None` when recomputed (needs the SF/app vsync offsets).
    pub janky_frames_legacy: Option<u64>,
    /// `Number Frame deadline missed (legacy)` (12+); `None` when recomputed.
    pub missed_deadline_legacy_count: Option<u64>,
    /// (bucket ms, frames) over gfxinfo's own 57 + 97 buckets, in the dump's order; empty when not printed.
    pub histogram: Vec<(u32, u64)>,
}

impl From<&GfxSummary> for JankTrackerNumbers {
    /// The numbers exactly as printed (`numbers: "as_dumped"`); a line the block lacks is `None`.
    fn from(s: &GfxSummary) -> Self {
        JankTrackerNumbers {
            numbers: "as_dumped",
            total_frames: s.total_frames_rendered,
            janky_frames: s.janky_frames,
            janky_pct: s.janky_pct,
            missed_vsync_count: s.missed_vsync,
            high_input_latency_count: s.high_input_latency,
            slow_ui_thread_count: s.slow_ui_thread,
            slow_bitmap_upload_count: s.slow_bitmap_uploads,
            slow_draw_count: s.slow_issue_draw_commands,
            missed_deadline_count: s.frame_deadline_missed,
            frame_time_ms_p50: s.percentile_50_ms,
            frame_time_ms_p90: s.percentile_90_ms,
            frame_time_ms_p95: s.percentile_95_ms,
            frame_time_ms_p99: s.percentile_99_ms,
            janky_frames_legacy: s.janky_frames_legacy,
            missed_deadline_legacy_count: s.frame_deadline_missed_legacy,
            histogram: s.histogram.clone(),
        }
    }
}

impl JankTrackerNumbers {
    /// The numbers the PROFILEDATA rows determine, in the order of the dump's lines: total, janky, missed vsync,
    /// slow UI thread, slow bitmap uploads, slow issue draw commands, frame deadline missed, p50, p90, p95, p99.
    pub fn row_determined(&self) -> [Option<u64>; 11] {
        [
            self.total_frames,
            self.janky_frames,
            self.missed_vsync_count,
            self.slow_ui_thread_count,
            self.slow_bitmap_upload_count,
            self.slow_draw_count,
            self.missed_deadline_count,
            self.frame_time_ms_p50,
            self.frame_time_ms_p90,
            self.frame_time_ms_p95,
            self.frame_time_ms_p99,
        ]
    }
}

/// Whether `recomputed` equals what the device `printed` for the same window, over the numbers the rows determine
/// ([`JankTrackerNumbers::row_determined`]; a number the dump does not print is not compared): `None` when the
/// printed `Total frames rendered` is absent or exceeds `frames` (the finished frames read: the ring buffer of
/// 120 then no longer holds every frame the device counted), else `Some(equal)`. The device's summary is the
/// oracle: HWUI's JankTracker counted exactly the finished frames of its ring buffer since its last reset.
pub fn equals_printed(
    recomputed: &JankTrackerNumbers,
    printed: &JankTrackerNumbers,
    frames: usize,
) -> Option<bool> {
    if printed.total_frames? > frames as u64 {
        return None;
    }
    let pairs = recomputed
        .row_determined()
        .into_iter()
        .zip(printed.row_determined());
    Some(pairs.filter(|(_, p)| p.is_some()).all(|(r, p)| r == p))
}

/// Most frames a window's summary may lack beside its rows (Android 12+): `CanvasContext::dumpFrames` prints the
/// summary before the rows, and JankTracker counts a frame when its surface stats arrive, on another thread —
/// frames that finish between the two prints are in the rows only.
const MAX_FINISHED_AFTER_SUMMARY: u64 = 3;

/// Whether JankTracker recomputed from a window's `rows` equals its `printed` summary ([`equals_printed`]), over
/// the rows of that summary: those that started (`SyncStart`) at or after its `Stats since` (`stats_since_ns`;
/// `JankTracker::reset` clears the ring buffer, so rows of an earlier concatenated dump are not its own). On
/// Android 12+ rows, when the rows hold 1–3 counted frames more than the summary, the newest ones (by
/// `SyncStart`) are taken to have finished after the summary was printed and are left out of the comparison.
/// `recomputed` is [`recompute`] of all `rows` with `period_ns`. `None` as [`equals_printed`].
pub fn compare_with_printed(
    rows: &[FrameInfoRow],
    recomputed: &JankTrackerNumbers,
    period_ns: Option<i64>,
    printed: &JankTrackerNumbers,
    stats_since_ns: Option<i64>,
) -> Option<bool> {
    let mut own: Vec<FrameInfoRow> = rows
        .iter()
        .filter(|r| stats_since_ns.is_none_or(|t| r.sync_start_ns >= t))
        .copied()
        .collect();
    // `recomputed` is that of every row: computed again only over a narrower set.
    let mut recomputed = if own.len() == rows.len() {
        recomputed.clone()
    } else {
        recompute(&own, period_ns)
    };
    let extra = recomputed
        .total_frames?
        .saturating_sub(printed.total_frames?);
    let android_12 = own.iter().any(|r| r.frame_deadline_ns.is_some());
    if android_12 && (1..=MAX_FINISHED_AFTER_SUMMARY).contains(&extra) {
        let mut newest: Vec<(i64, usize)> = own
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.unfinished().is_none()
                    && duration(r, Stamp::IntendedVsync, Stamp::FrameCompleted) > 0
            })
            .map(|(i, r)| (r.sync_start_ns, i))
            .collect();
        newest.sort_unstable();
        let late: Vec<usize> = newest
            .iter()
            .rev()
            .take(extra as usize)
            .map(|e| e.1)
            .collect();
        own = (0..own.len())
            .filter(|i| !late.contains(i))
            .filter_map(|i| own.get(i).copied())
            .collect();
        recomputed = recompute(&own, period_ns);
    }
    equals_printed(&recomputed, printed, own.len())
}

/// The `FrameInfo` time stamps JankTracker measures spans between, in `FrameInfoIndex` order (AOSP `FrameInfo.h`;
/// the relative order is the same on every release), which [`duration`] uses to spot spans crossing `SyncQueued`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stamp {
    /// `IntendedVsync`.
    IntendedVsync,
    /// `Vsync`.
    Vsync,
    /// `SyncQueued`.
    SyncQueued,
    /// `SyncStart`.
    SyncStart,
    /// `IssueDrawCommandsStart`.
    IssueDrawCommandsStart,
    /// `FrameCompleted`.
    FrameCompleted,
}

fn stamp(row: &FrameInfoRow, s: Stamp) -> i64 {
    match s {
        Stamp::IntendedVsync => row.intended_vsync_ns,
        Stamp::Vsync => row.vsync_ns,
        Stamp::SyncQueued => row.sync_queued_ns,
        Stamp::SyncStart => row.sync_start_ns,
        Stamp::IssueDrawCommandsStart => row.issue_draw_commands_start_ns,
        Stamp::FrameCompleted => row.frame_completed_ns,
    }
}

/// HWUI's `FrameInfo::duration(start, end)`, ns: `end − start` (0 when `start` is not > 0); when the span crosses
/// `SyncQueued` (start before it, end after it), minus the stall `SyncStart − SyncQueued` if positive (that wait
/// belongs to the previous frame); clamped at ≥ 0.
pub fn duration(row: &FrameInfoRow, start: Stamp, end: Stamp) -> i64 {
    let s = stamp(row, start);
    let mut gap = if s > 0 {
        stamp(row, end).saturating_sub(s)
    } else {
        0
    };
    if start < Stamp::SyncQueued && end > Stamp::SyncQueued {
        let stall = row.sync_start_ns.saturating_sub(row.sync_queued_ns);
        if stall > 0 {
            gap = gap.saturating_sub(stall);
        }
    }
    gap.max(0)
}

/// A histogram bucket of `ProfileData`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// Index into the 57 normal buckets.
    Normal(usize),
    /// Index into the 97 slow buckets.
    Slow(usize),
}

impl Bucket {
    /// The bucket's time as the dump labels it, ms (`frameTimeForFrameCountIndex` /
    /// `frameTimeForSlowFrameCountIndex`).
    pub fn ms(self) -> u32 {
        match self {
            Bucket::Normal(i) => {
                let mut t = i as u32 + 5;
                if t > 32 {
                    t += t - 32;
                }
                if t > 48 {
                    t += t - 48 + 1;
                }
                t
            }
            Bucket::Slow(i) => i as u32 * 50 + 150,
        }
    }
}

/// The bucket `ProfileData::reportFrame` counts a frame of `duration_ns` in, quirks included:
/// - whole ms, truncated (`ns2ms`), then cast to `uint32_t`; ≤ 5 ms → bucket 0; 1 ms steps to 32 ms, then the
///   branch-free halving makes 2 ms buckets (33 shares 32's bucket, 49 shares 48's) and 4 ms buckets up to the
///   last normal bucket, 56, labelled 133 ms (132–135 ms);
/// - 136–139 ms give index 57, and the bounds test is `framebucket <= size()`, so HWUI increments the
///   `uint32_t` just past `mFrameCounts`: the first four bytes of the `uint16_t` `mSlowFrameCounts` array, which on
///   little-endian devices (all Android ABIs) adds 1 to the 150 ms slow bucket. Counted there;
/// - 140–149 ms: `(ns2ms(d) − 150) / 50` is computed in signed 64 bits (`ns2ms` returns `nsecs_t`), so −10…−1
///   divide to 0: no unsigned underflow, the 150 ms bucket again;
/// - slower frames: 50 ms buckets from 150 ms, everything from 4950 ms on in the last (4950 ms).
pub fn bucket_for_duration(duration_ns: i64) -> Bucket {
    let ms64 = duration_ns / 1_000_000;
    let ms = ms64 as u32;
    let mask = if ms > 5 { u32::MAX } else { 0 };
    let mut i = (ms.wrapping_sub(48) >> u32::from(ms > 48)).wrapping_add(48);
    i = (i.wrapping_sub(32) >> u32::from(i > 32)).wrapping_add(32);
    i = i.wrapping_sub(5) & mask;
    let i = i as usize;
    if i < NORMAL_BUCKETS {
        Bucket::Normal(i)
    } else if i == NORMAL_BUCKETS {
        Bucket::Slow(0)
    } else {
        let slow = (ms64.saturating_sub(150) / 50) as u32;
        Bucket::Slow((slow as usize).min(SLOW_BUCKETS - 1))
    }
}

/// `ProfileData`'s frame-time histogram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    /// Frames per normal bucket.
    pub normal: [u64; NORMAL_BUCKETS],
    /// Frames per slow bucket.
    pub slow: [u64; SLOW_BUCKETS],
    /// Frames reported (`mTotalFrameCount`).
    pub total: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            normal: [0; NORMAL_BUCKETS],
            slow: [0; SLOW_BUCKETS],
            total: 0,
        }
    }
}

impl Histogram {
    /// `ProfileData::reportFrame`: counts one frame of `duration_ns` (see [`bucket_for_duration`]).
    pub fn add(&mut self, duration_ns: i64) {
        self.total += 1;
        let slot = match bucket_for_duration(duration_ns) {
            Bucket::Normal(i) => self.normal.get_mut(i),
            Bucket::Slow(i) => self.slow.get_mut(i),
        };
        if let Some(c) = slot {
            *c += 1;
        }
    }

    /// `ProfileData::findPercentile`, ms: `pos = p × total / 100` (integer), `remaining = total − pos`; walk the
    /// slow buckets from the top, then the normal ones, subtracting counts; the first bucket where `remaining ≤ 0`
    /// gives its time. With 0 frames the first bucket tried, 4950 ms, already satisfies it (what dumps print).
    pub fn find_percentile(&self, percentile: u64) -> u32 {
        let pos = percentile.saturating_mul(self.total) / 100;
        let mut remaining = self.total as i64 - pos as i64;
        let slow = (0..SLOW_BUCKETS)
            .rev()
            .map(|i| (Bucket::Slow(i), self.slow[i]));
        let normal = (0..NORMAL_BUCKETS)
            .rev()
            .map(|i| (Bucket::Normal(i), self.normal[i]));
        for (bucket, count) in slow.chain(normal) {
            remaining -= count as i64;
            if remaining <= 0 {
                return bucket.ms();
            }
        }
        0
    }

    /// (bucket ms, frames) for all 154 buckets, in the order `ProfileData::histogramForEach` prints them.
    pub fn entries(&self) -> Vec<(u32, u64)> {
        let normal = (0..NORMAL_BUCKETS).map(|i| (Bucket::Normal(i).ms(), self.normal[i]));
        let slow = (0..SLOW_BUCKETS).map(|i| (Bucket::Slow(i).ms(), self.slow[i]));
        normal.chain(slow).collect()
    }
}

/// JankTracker's counters while replaying rows.
#[derive(Debug, Default)]
struct Counts {
    janky: u64,
    missed_deadline: u64,
    /// Missed vsync, slow UI thread, slow bitmap uploads, slow issue draw commands.
    causes: [u64; 4],
}

/// Counts the cause of a janky frame (`COMPARISONS` in AOSP `JankTracker.cpp`): each span against its threshold
/// from `interval_ns` (cast to integer as HWUI does), only when the span is < 10 s.
fn count_causes(n: &mut Counts, row: &FrameInfoRow, interval_ns: i64) {
    let th = |f: f64| (f * interval_ns as f64) as i64;
    let checks = [
        (Stamp::IntendedVsync, Stamp::Vsync, 1),
        (Stamp::Vsync, Stamp::SyncStart, th(0.5)),
        (Stamp::SyncStart, Stamp::IssueDrawCommandsStart, th(0.2)),
        (
            Stamp::IssueDrawCommandsStart,
            Stamp::FrameCompleted,
            th(0.75),
        ),
    ];
    for (k, (start, end, threshold)) in checks.into_iter().enumerate() {
        let delta = duration(row, start, end);
        if delta >= threshold && delta < IGNORE_EXCEEDING_NS {
            if let Some(c) = n.causes.get_mut(k) {
                *c += 1;
            }
        }
    }
}

/// The frame interval HWUI fixed when the window's JankTracker was made (Android 9–10: `1 s / display fps`,
/// truncated to ns; 11: the display's vsync period), from a period measured on the rows: the measured value is
/// biased by vsync jitter, so one within 1 % of a common refresh rate's is that rate's `1e9 / fps`.
fn display_interval(measured_ns: i64) -> i64 {
    const RATES_HZ: [i64; 11] = [30, 48, 50, 60, 72, 75, 90, 100, 120, 144, 165];
    RATES_HZ
        .iter()
        .map(|hz| 1_000_000_000 / hz)
        .find(|ns| (ns - measured_ns).abs() * 100 <= *ns)
        .unwrap_or(measured_ns)
}

/// JankTracker recomputed from PROFILEDATA rows (`numbers: "recomputed"`), rows in `IntendedVsync` order:
/// - rows that are not finished frames ([`FrameInfoRow::unfinished`]: HWUI had not called
///   `JankTracker::finishFrame` for them when dumping, or a measured time is garbage) are not counted;
/// - every other row with `duration(IntendedVsync, FrameCompleted) > 0` counts in the total and histogram,
///   whatever its Flags;
/// - Android 12+ rows (with `FrameDeadline`): SurfaceCanvas rows skip the jank checks; a frame is janky and
///   "deadline missed" iff `GpuCompleted ≥ FrameDeadline` as dumped (HWUI writes the triple-buffer-adjusted
///   deadline back into the frame on 12–14 and 15+ alike: not adjusted again); its causes use the row's frame
///   interval;
/// - older rows (no `FrameDeadline`): SurfaceCanvas rows skip the jank checks (Android 9–11's
///   `EXEMPT_FRAMES_FLAGS`; Android 7 is another algorithm, with a process-wide summary this is not compared
///   with); janky iff duration > the frame interval (`period_ns` when given — `--vsync-period` —, else the
///   window's [`frame_period`] snapped to a common refresh rate, `display_interval`; 16.67 ms if unknown);
///   "deadline missed" by replaying that era's swap-deadline state machine over the rows in draw (`SyncStart`)
///   order, and the causes are counted on those frames, as it did. Not applied, for want of data in the dump:
///   the dequeue forgiveness (needs the display's vsync offsets) and Android 10–11's "shorter than the interval
///   is on time" exemption (the rows do not say which release printed them).
///
/// Legacy counts and high input latency are not recomputable: `None`.
pub fn recompute(rows: &[FrameInfoRow], period_ns: Option<i64>) -> JankTrackerNumbers {
    let mut n = Counts::default();
    let mut hist = Histogram::default();
    let fallback = period_ns
        .or_else(|| frame_period(rows).0.map(display_interval))
        .unwrap_or(FALLBACK_INTERVAL_NS);
    let mut swap_deadline: Option<i64> = None;
    // JankTracker saw the frames in draw order (`SyncStart`), which the swap-deadline replay of Android 9–11
    // depends on; rows are kept in `IntendedVsync` order, where an RT-animation frame can precede a late UI frame.
    let mut drawn: Vec<&FrameInfoRow> = rows.iter().filter(|r| r.unfinished().is_none()).collect();
    drawn.sort_by_key(|r| r.sync_start_ns);
    for row in drawn {
        let total = duration(row, Stamp::IntendedVsync, Stamp::FrameCompleted);
        if total <= 0 {
            continue;
        }
        hist.add(total);
        if let Some(deadline) = row.frame_deadline_ns {
            if row.flags & FLAG_SURFACE_CANVAS != 0 {
                continue;
            }
            let interval = row.frame_interval_ns.unwrap_or(fallback);
            let done = row.gpu_completed_ns.unwrap_or(row.frame_completed_ns);
            if done >= deadline {
                n.janky += 1;
                n.missed_deadline += 1;
                count_causes(&mut n, row, interval);
            }
        } else {
            // Android 9–11 JankTracker exempts only SurfaceCanvas (EXEMPT_FRAMES_FLAGS; seed 001 quotes it).
            if row.flags & FLAG_SURFACE_CANVAS != 0 {
                continue;
            }
            let interval = fallback.max(1);
            if total > interval {
                n.janky += 1;
            }
            let iv_deadline = row.intended_vsync_ns.saturating_add(interval);
            let next =
                swap_deadline.map_or(iv_deadline, |d| d.saturating_add(interval).max(iv_deadline));
            swap_deadline = Some(next);
            if row.frame_completed_ns < next {
                continue;
            }
            n.missed_deadline += 1;
            let jitter = row.frame_completed_ns.saturating_sub(row.vsync_ns);
            swap_deadline = Some(
                row.frame_completed_ns
                    .saturating_sub(jitter % interval)
                    .saturating_add(interval),
            );
            count_causes(&mut n, row, interval);
        }
    }
    let janky_pct = if hist.total == 0 {
        0.0
    } else {
        // `ProfileData::dump` prints the float with `%.2f`: exact decimal expansion, ties to even (3.125 → 3.12),
        // as Rust's formatting rounds.
        let pct = n.janky as f32 / hist.total as f32 * 100.0f32;
        format!("{:.2}", f64::from(pct)).parse().unwrap_or(0.0)
    };
    let [missed_vsync, slow_ui, slow_bitmap, slow_draw] = n.causes;
    let p = |q: u64| Some(u64::from(hist.find_percentile(q)));
    JankTrackerNumbers {
        numbers: "recomputed",
        total_frames: Some(hist.total),
        janky_frames: Some(n.janky),
        janky_pct: Some(janky_pct),
        missed_vsync_count: Some(missed_vsync),
        high_input_latency_count: None,
        slow_ui_thread_count: Some(slow_ui),
        slow_bitmap_upload_count: Some(slow_bitmap),
        slow_draw_count: Some(slow_draw),
        missed_deadline_count: Some(n.missed_deadline),
        frame_time_ms_p50: p(50),
        frame_time_ms_p90: p(90),
        frame_time_ms_p95: p(95),
        frame_time_ms_p99: p(99),
        janky_frames_legacy: None,
        missed_deadline_legacy_count: None,
        histogram: hist.entries(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const T: i64 = 1_000_000 * MS;

    fn ms(d: i64) -> i64 {
        d * MS
    }

    /// A row with the stamps JankTracker reads, offsets in ms from `T`.
    fn row(iv: i64, vsync: i64, sq: i64, ss: i64, idcs: i64, fc: i64) -> FrameInfoRow {
        FrameInfoRow {
            intended_vsync_ns: T + ms(iv),
            vsync_ns: T + ms(vsync),
            sync_queued_ns: T + ms(sq),
            sync_start_ns: T + ms(ss),
            issue_draw_commands_start_ns: T + ms(idcs),
            frame_completed_ns: T + ms(fc),
            ..FrameInfoRow::default()
        }
    }

    #[test]
    fn bucket_index_and_label_for_chosen_durations() {
        let cases: [(i64, Bucket, u32); 14] = [
            (5, Bucket::Normal(0), 5),
            (6, Bucket::Normal(1), 6),
            (32, Bucket::Normal(27), 32),
            (33, Bucket::Normal(27), 32), // 2 ms buckets from 32: 33 shares 32's
            (34, Bucket::Normal(28), 34),
            (48, Bucket::Normal(35), 48),
            (49, Bucket::Normal(35), 48), // 4 ms buckets from 48: 48-51
            (52, Bucket::Normal(36), 53),
            (133, Bucket::Normal(56), 133), // last normal bucket: 132-135 ms
            (137, Bucket::Slow(0), 150),    // index 57 == size: spills into slow[0]
            (141, Bucket::Slow(0), 150),    // signed (141-150)/50 = 0
            (150, Bucket::Slow(0), 150),
            (4950, Bucket::Slow(96), 4950),
            (60_000, Bucket::Slow(96), 4950),
        ];
        for (d, bucket, label) in cases {
            let b = bucket_for_duration(ms(d) + 999_999); // truncation to whole ms
            assert_eq!((b, b.ms()), (bucket, label), "{d} ms");
        }
        assert_eq!(bucket_for_duration(1), Bucket::Normal(0));
        assert_eq!(bucket_for_duration(ms(199)), Bucket::Slow(0));
        assert_eq!(bucket_for_duration(ms(200)), Bucket::Slow(1));
    }

    #[test]
    fn histogram_labels_match_a_real_dump() {
        let labels: Vec<u32> = Histogram::default().entries().iter().map(|e| e.0).collect();
        assert_eq!(labels.len(), 154);
        assert_eq!(&labels[..3], &[5, 6, 7]);
        assert_eq!(&labels[27..31], &[32, 34, 36, 38]);
        assert_eq!(&labels[35..38], &[48, 53, 57]);
        assert_eq!(labels[56], 133);
        assert_eq!(&labels[57..59], &[150, 200]);
        assert_eq!(labels[153], 4950);
    }

    #[test]
    fn find_percentile_on_hand_histograms() {
        let h = Histogram::default();
        assert_eq!(h.find_percentile(50), 4950); // 0 frames: remaining 0 at the first (top) bucket
        let mut h = Histogram::default();
        for d in [ms(8), ms(8), ms(10), ms(20), ms(300)] {
            h.add(d);
        }
        // total 5. p50: pos 2, remaining 3: 300 ms (2 left), 20 (1), 10 (0) -> 10.
        assert_eq!(h.find_percentile(50), 10);
        // p90: pos 4, remaining 1: the 300 ms bucket.
        assert_eq!(h.find_percentile(90), 300);
        // p10: pos 0, remaining 5: 300, 20, 10, 8 (2 frames) -> 8.
        assert_eq!(h.find_percentile(10), 8);
    }

    #[test]
    fn duration_subtracts_the_sync_stall_only_across_sync_queued() {
        let r = row(0, 2, 10, 14, 15, 20); // stall SyncQueued->SyncStart 4 ms
        assert_eq!(
            duration(&r, Stamp::IntendedVsync, Stamp::FrameCompleted),
            ms(16)
        );
        assert_eq!(duration(&r, Stamp::Vsync, Stamp::SyncStart), ms(8));
        assert_eq!(duration(&r, Stamp::IntendedVsync, Stamp::Vsync), ms(2));
        assert_eq!(
            duration(&r, Stamp::SyncStart, Stamp::IssueDrawCommandsStart),
            ms(1)
        );
        let no_stall = row(0, 2, 10, 10, 15, 20);
        assert_eq!(
            duration(&no_stall, Stamp::IntendedVsync, Stamp::FrameCompleted),
            ms(20)
        );
        let mut zero = r;
        zero.intended_vsync_ns = 0;
        assert_eq!(
            duration(&zero, Stamp::IntendedVsync, Stamp::FrameCompleted),
            0
        );
        let backwards = row(10, 0, 10, 10, 10, 5);
        assert_eq!(
            duration(&backwards, Stamp::IntendedVsync, Stamp::FrameCompleted),
            0
        );
    }

    fn row12(r: FrameInfoRow, deadline: i64, gpu: i64, flags: i64) -> FrameInfoRow {
        FrameInfoRow {
            flags,
            frame_deadline_ns: Some(T + ms(deadline)),
            frame_interval_ns: Some(ms(16)),
            gpu_completed_ns: Some(T + ms(gpu)),
            ..r
        }
    }

    #[test]
    fn android12_rows_by_hand() {
        let rows = [
            // on time: duration 10 - 1 ms stall = 9 ms, GPU 12 < deadline 16
            row12(row(0, 0, 4, 5, 6, 10), 16, 12, 0),
            // janky: GPU 36 >= 32; vsync 2 ms late; UI 12 ms >= 8; sync 1 < 3.2; draw 4 < 12; duration 19 ms
            row12(row(16, 18, 30, 30, 31, 35), 32, 36, 0),
            // SurfaceCanvas: counted (duration 38 - 7 = 31 ms) but no jank checks
            row12(row(32, 32, 33, 40, 41, 70), 48, 71, FLAG_SURFACE_CANVAS),
        ];
        let n = recompute(&rows, None);
        assert_eq!(n.numbers, "recomputed");
        assert_eq!(
            (n.total_frames, n.janky_frames, n.missed_deadline_count),
            (Some(3), Some(1), Some(1))
        );
        assert_eq!(n.janky_pct, Some(33.33));
        assert_eq!(
            (n.missed_vsync_count, n.slow_ui_thread_count),
            (Some(1), Some(1))
        );
        assert_eq!(
            (n.slow_bitmap_upload_count, n.slow_draw_count),
            (Some(0), Some(0))
        );
        let filled: Vec<(u32, u64)> = n.histogram.iter().copied().filter(|e| e.1 > 0).collect();
        assert_eq!(filled, vec![(9, 1), (19, 1), (31, 1)]);
        // p50: pos 1, remaining 2 -> 31 (1), 19 (0). p90..p99: pos 2, remaining 1 -> 31.
        let p = (
            n.frame_time_ms_p50,
            n.frame_time_ms_p90,
            n.frame_time_ms_p95,
            n.frame_time_ms_p99,
        );
        assert_eq!(p, (Some(19), Some(31), Some(31), Some(31)));
        assert_eq!(
            (n.janky_frames_legacy, n.high_input_latency_count),
            (None, None)
        );
    }

    #[test]
    fn pre12_rows_replay_that_eras_rules() {
        let mut flagged = row(32, 32, 34, 34, 35, 60);
        flagged.flags = FLAG_SURFACE_CANVAS;
        let rows = [
            row(0, 0, 2, 2, 3, 10),      // 10 ms, deadline T+16 met
            row(16, 16, 18, 18, 19, 40), // 24 ms > 16: janky; deadline T+32 missed; draw 21 >= 12
            flagged,                     // 28 ms: counted, exempt from the checks
            row(48, 48, 50, 50, 51, 58), // deadline reset to 40 - 24%16 + 16 = 48, now max(64, 64): met
        ];
        let n = recompute(&rows, None);
        assert_eq!(
            (n.total_frames, n.janky_frames, n.missed_deadline_count),
            (Some(4), Some(1), Some(1))
        );
        assert_eq!(
            (
                n.missed_vsync_count,
                n.slow_ui_thread_count,
                n.slow_bitmap_upload_count
            ),
            (Some(0), Some(0), Some(0))
        );
        assert_eq!(n.slow_draw_count, Some(1));
    }

    #[test]
    fn janky_pct_rounds_ties_to_even_as_printf_does() {
        // 1 janky of 32: the float is exactly 3.125, which `%.2f` prints as 3.12.
        let rows: Vec<FrameInfoRow> = (0..32)
            .map(|i| {
                let t = 16 * i;
                let gpu = if i == 0 { t + 20 } else { t + 12 };
                row12(row(t, t, t + 2, t + 2, t + 3, t + 10), t + 16, gpu, 0)
            })
            .collect();
        let n = recompute(&rows, None);
        assert_eq!((n.total_frames, n.janky_frames), (Some(32), Some(1)));
        assert_eq!(n.janky_pct, Some(3.12));
    }

    #[test]
    fn a_measured_period_snaps_to_the_display_interval_hwui_fixed() {
        assert_eq!(display_interval(16_600_000), 16_666_666);
        assert_eq!(display_interval(16_700_000), 16_666_666);
        assert_eq!(display_interval(11_100_000), 11_111_111);
        assert_eq!(display_interval(8_340_000), 8_333_333);
        assert_eq!(display_interval(20_000_000), 20_000_000);
    }

    #[test]
    fn pre12_deadlines_replay_in_draw_order() {
        // An RT-animation frame (IntendedVsync 16) drawn before a late UI frame (IntendedVsync 0): by SyncStart
        // the animation frame sets the swap deadline to 32, then the UI frame's is max(48, 16) = 48 > 40: both
        // on time. Replayed by IntendedVsync, the UI frame would miss its deadline of 16.
        let late_ui = row(0, 0, 28, 30, 31, 40);
        let animation = row(16, 16, 18, 20, 21, 25);
        let n = recompute(&[late_ui, animation], None);
        assert_eq!((n.total_frames, n.janky_frames), (Some(2), Some(1)));
        assert_eq!(n.missed_deadline_count, Some(0));
    }

    #[test]
    fn frames_finished_after_the_summary_was_printed_are_left_out_of_the_comparison() {
        let rows = [
            row12(row(0, 0, 4, 5, 6, 10), 16, 12, 0),
            row12(row(16, 18, 30, 30, 31, 35), 32, 36, 0),
            row12(row(32, 32, 33, 40, 41, 70), 48, 71, 0),
        ];
        // The device printed its summary when only the first two had finished (their numbers).
        let printed = recompute(&rows[..2], None);
        assert_eq!(
            compare_with_printed(&rows, &recompute(&rows, None), None, &printed, None),
            Some(true)
        );
        // Not so before Android 12 (JankTracker counted each frame as it was drawn).
        let old: Vec<FrameInfoRow> = rows
            .iter()
            .map(|r| FrameInfoRow {
                frame_deadline_ns: None,
                ..*r
            })
            .collect();
        let printed = recompute(&old[..2], None);
        assert_eq!(
            compare_with_printed(&old, &recompute(&old, None), None, &printed, None),
            Some(false)
        );
        // A printed total above the rows cannot be compared.
        let mut more = printed;
        more.total_frames = Some(4);
        assert_eq!(
            compare_with_printed(&old, &recompute(&old, None), None, &more, None),
            None
        );
    }

    #[test]
    fn no_frames_prints_4950() {
        let n = recompute(&[], None);
        assert_eq!((n.total_frames, n.janky_pct), (Some(0), Some(0.0)));
        assert_eq!(n.frame_time_ms_p50, Some(4950));
        assert_eq!(n.frame_time_ms_p99, Some(4950));
    }

    #[test]
    fn as_dumped_takes_the_printed_numbers() {
        let s = GfxSummary {
            total_frames_rendered: Some(188),
            janky_frames: Some(25),
            janky_pct: Some(13.30),
            janky_frames_legacy: Some(35),
            high_input_latency: Some(265),
            percentile_99_ms: Some(550),
            histogram: vec![(5, 22)],
            ..GfxSummary::default()
        };
        let n = JankTrackerNumbers::from(&s);
        assert_eq!(n.numbers, "as_dumped");
        assert_eq!(
            (n.total_frames, n.janky_frames, n.janky_pct),
            (Some(188), Some(25), Some(13.30))
        );
        assert_eq!(
            (n.janky_frames_legacy, n.high_input_latency_count),
            (Some(35), Some(265))
        );
        assert_eq!(
            (n.frame_time_ms_p99, n.histogram.clone()),
            (Some(550), vec![(5, 22)])
        );
        // Lines the block does not print (an Android 7 dump has no `Number Frame deadline missed`) stay absent.
        assert_eq!(
            (n.missed_deadline_count, n.slow_ui_thread_count),
            (None, None)
        );
        assert_eq!(n.frame_time_ms_p50, None);
    }
}
