//! Which Android release's FrameTimeline rules apply ([`SfRules`]): their differences, and how a trace tells
//! its release.

use crate::model::jank::bits;
use crate::model::Timeline;
use serde::Serialize;
use std::collections::BTreeSet;

/// Which Android release's FrameTimeline rules to apply (they changed between releases; doc §1.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SfRules {
    /// Android 12 / 12L.
    A12,
    /// Android 13.
    A13,
    /// Android 14 r1 / QPR1.
    A14,
    /// Android 14 QPR2 / QPR3 (severity traced, dropped frames classified).
    A14Qpr2,
    /// Android 15.
    A15,
    /// Android 16.
    A16,
}

impl std::str::FromStr for SfRules {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "a12" => Ok(SfRules::A12),
            "a13" => Ok(SfRules::A13),
            "a14" => Ok(SfRules::A14),
            "a14qpr2" => Ok(SfRules::A14Qpr2),
            "a15" => Ok(SfRules::A15),
            "a16" => Ok(SfRules::A16),
            other => {
                Err(format!("unknown SurfaceFlinger rules '{other}' (expected a12, a13, a14, a14qpr2, a15 or a16)"))
            }
        }
    }
}

impl SfRules {
    /// Every rule set, oldest first.
    pub const ALL: [SfRules; 6] = [
        SfRules::A12,
        SfRules::A13,
        SfRules::A14,
        SfRules::A14Qpr2,
        SfRules::A15,
        SfRules::A16,
    ];

    /// The rules a trace shows, with how they were chosen: `system_info` SDK level, else the release in the
    /// build fingerprint, else traced `jank_severity_type` (A14 QPR2+), else the MONOTONIC FrameTimeline clock
    /// (A12; BOOTTIME since A13 `57f8e18f06`), else A13. `clock_ids` are the FrameTimeline packets' clocks.
    pub fn detect(timeline: &Timeline, clock_ids: &BTreeSet<u32>) -> (SfRules, String) {
        // A pass over the actual slices, made only where the SDK level or fingerprint does not settle it.
        let severity_traced = || {
            timeline
                .actual
                .iter()
                .any(|s| s.labels.jank_severity_type.get().is_some())
        };
        let info = timeline.system_info.as_ref();
        let by_release = |release: u64| match release {
            0..=12 => SfRules::A12,
            13 => SfRules::A13,
            14 if severity_traced() => SfRules::A14Qpr2,
            14 => SfRules::A14,
            15 => SfRules::A15,
            _ => SfRules::A16,
        };
        if let Some(sdk) = info.and_then(|i| i.android_sdk_version) {
            let release = match sdk {
                0..=32 => 12,
                33..=36 => sdk - 20,
                _ => 16,
            };
            return (by_release(release), format!("system_info sdk {sdk}"));
        }
        let fingerprint_release = info
            .and_then(|i| i.android_build_fingerprint.as_deref())
            .and_then(|f| {
                let version = f.split(':').nth(1)?.split('/').next()?;
                let digits: String = version.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<u64>().ok().filter(|r| (12..=30).contains(r))
            });
        if let Some(release) = fingerprint_release {
            return (
                by_release(release),
                format!("fingerprint release {release}"),
            );
        }
        if severity_traced() {
            (
                SfRules::A14Qpr2,
                "inferred: jank_severity_type traced (A14 QPR2+)".into(),
            )
        } else if clock_ids.contains(&3) {
            (
                SfRules::A12,
                "inferred: MONOTONIC FrameTimeline clock (A12)".into(),
            )
        } else {
            (
                SfRules::A13,
                "default: BOOTTIME clock, no severity (A13)".into(),
            )
        }
    }

    /// A14+ (`b1e10d15e6`): a DisplayFrame present before its start is invalid and becomes
    /// `Unknown | DisplayHAL`; A12/A13 test only for `SIGNAL_TIME_INVALID` and give `Unknown`.
    pub(super) fn present_valid_needs_start(self) -> bool {
        self >= SfRules::A14
    }

    /// A12/A13: a GPU-composited late DisplayFrame is a GPU miss only if SF's CPU time was under one refresh
    /// period (changed by `94917b3c32` in A14).
    pub(super) fn gpu_miss_needs_short_cpu(self) -> bool {
        self <= SfRules::A13
    }

    /// A14 QPR2+ (`631e425dbf`, `96eb5353ca`): dropped SurfaceFrames are classified (`Dropped`) and
    /// `jank_severity_type` is traced.
    pub(super) fn severity_and_dropped(self) -> bool {
        self >= SfRules::A14Qpr2
    }

    /// A16 (`0d03b07dce`): the buffer-stuffing adjusted deadline adds the render period, before it the refresh
    /// period.
    pub(super) fn stuffing_uses_render_period(self) -> bool {
        self >= SfRules::A16
    }

    /// A16 (`SurfaceFlinger.cpp` `updateLayerSnapshots`): a bufferless (transaction) frame also records the
    /// layer's latch time; before, only latched buffers do (`Layer::addSurfaceFramePresentedForBuffer`), so a
    /// layer that only gets transactions never has a previous latch.
    pub(super) fn bufferless_updates_latch(self) -> bool {
        self >= SfRules::A16
    }

    /// Jank of a SurfaceFrame whose prediction expired: A12 Unknown; A13+ AppDeadlineMissed (`e43ff72e40`);
    /// A14 QPR2+ Dropped when it was dropped.
    pub(super) fn expired_surface_jank(self, dropped: bool) -> i32 {
        match self {
            SfRules::A12 => bits::UNKNOWN,
            _ if dropped && self.severity_and_dropped() => bits::DROPPED,
            _ => bits::APP_DEADLINE_MISSED,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_follow_what_the_trace_shows() {
        use crate::decode::SystemInfo;
        let with_info = |sdk: Option<u64>, fingerprint: Option<&str>| Timeline {
            system_info: Some(SystemInfo {
                android_sdk_version: sdk,
                android_build_fingerprint: fingerprint.map(str::to_string),
                ..SystemInfo::default()
            }),
            ..Timeline::default()
        };
        let boottime = BTreeSet::from([6]);
        let detect = |t: &Timeline, clocks: &BTreeSet<u32>| SfRules::detect(t, clocks).0;
        assert_eq!(detect(&with_info(Some(33), None), &boottime), SfRules::A13);
        assert_eq!(detect(&with_info(Some(34), None), &boottime), SfRules::A14);
        assert_eq!(detect(&with_info(Some(36), None), &boottime), SfRules::A16);
        let fingerprint = Some("google/cheetah/cheetah:15/AP3A.240905.015/123:user/release-keys");
        assert_eq!(
            detect(&with_info(None, fingerprint), &boottime),
            SfRules::A15
        );
        let unreadable = with_info(
            None,
            Some("Must use __system_property_read_callback() to read"),
        );
        assert_eq!(detect(&unreadable, &BTreeSet::from([3])), SfRules::A12);
        assert_eq!(detect(&Timeline::default(), &boottime), SfRules::A13);
        let mut severity = Timeline::default();
        severity.actual.push(crate::model::Slice {
            kind: crate::decode::SliceKind::ActualDisplayFrame,
            ts_ns: 0,
            dur_ns: 1,
            pid: 1,
            token: 1,
            display_frame_token: 1,
            layer: None,
            labels: crate::decode::FrameLabels {
                jank_severity_type: crate::decode::EnumCode::new(Some(1)),
                ..Default::default()
            },
        });
        assert_eq!(detect(&severity, &boottime), SfRules::A14Qpr2);
        severity.system_info = with_info(Some(34), None).system_info;
        assert_eq!(detect(&severity, &boottime), SfRules::A14Qpr2);
    }
}
