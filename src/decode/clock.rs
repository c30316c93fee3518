//! Converts packet timestamps to the trace clock with the trace's `ClockSnapshot` packets, the way Perfetto's
//! `ClockTracker` does: the snapshot used is the latest one whose reading of the source clock is at or before
//! the value (the first snapshot if none is). Android 12 recorded FrameTimeline on MONOTONIC, 13+ on BOOTTIME.

/// Builtin clock id of BOOTTIME, the default trace clock (`builtin_clock.proto`).
pub const BOOTTIME: u32 = 6;

/// The snapshots seen so far and the trace clock they convert to.
#[derive(Debug, Default)]
pub struct ClockConverter {
    trace_clock: Option<u32>,
    /// Each snapshot as `(clock_id, reading_ns)` pairs.
    snapshots: Vec<Vec<(u32, u64)>>,
}

impl ClockConverter {
    /// The trace clock: `primary_trace_clock` of the snapshots, else BOOTTIME.
    pub fn trace_clock(&self) -> u32 {
        self.trace_clock.unwrap_or(BOOTTIME)
    }

    /// Records a `ClockSnapshot`.
    pub fn add_snapshot(&mut self, clocks: Vec<(u32, u64)>, primary_trace_clock: Option<u32>) {
        if let Some(primary) = primary_trace_clock {
            self.trace_clock = Some(primary);
        }
        self.snapshots.push(clocks);
    }

    /// Converts `value_ns` on `clock_id` to the trace clock, in ns; `None` if no snapshot relates the two clocks.
    pub fn to_trace(&self, clock_id: u32, value_ns: u64) -> Option<i64> {
        let target = self.trace_clock();
        if clock_id == target {
            return Some(saturate(i128::from(value_ns)));
        }
        let mut first = None;
        let mut best: Option<(u64, u64)> = None;
        for snapshot in &self.snapshots {
            let reading = |id: u32| snapshot.iter().find(|(c, _)| *c == id).map(|(_, ts)| *ts);
            let (Some(src), Some(dst)) = (reading(clock_id), reading(target)) else {
                continue;
            };
            first.get_or_insert((src, dst));
            if src <= value_ns && best.is_none_or(|(b, _)| src >= b) {
                best = Some((src, dst));
            }
        }
        let (src, dst) = best.or(first)?;
        Some(saturate(
            i128::from(value_ns) - i128::from(src) + i128::from(dst),
        ))
    }
}

fn saturate(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}
