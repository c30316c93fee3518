//! FrameTimeline label vocabulary: the `JankType` bitmask, present / prediction / severity enums, and the
//! exact strings, join order and jank-tag rules of Perfetto's importer
//! (`src/trace_processor/importers/proto/frame_timeline_event_parser.cc`, google/perfetto @ ec5d16b1).

use super::SharedStr;
use rustc_hash::FxHashMap;
use std::borrow::Cow;

/// `JankType` bits (`FrameTimelineEvent.JankType`; AOSP `libs/gui/include/gui/JankInfo.h`).
pub mod bits {
    /// No jank.
    pub const NONE: i32 = 1;
    /// SurfaceFlinger woke up late / on the wrong vsync.
    pub const SF_SCHEDULING: i32 = 2;
    /// The vsync prediction was wrong.
    pub const PREDICTION_ERROR: i32 = 4;
    /// The display HAL presented late.
    pub const DISPLAY_HAL: i32 = 8;
    /// SurfaceFlinger's CPU work missed its deadline.
    pub const SF_CPU_DEADLINE_MISSED: i32 = 16;
    /// SurfaceFlinger's GPU composition missed its deadline.
    pub const SF_GPU_DEADLINE_MISSED: i32 = 32;
    /// The app finished its frame after the deadline.
    pub const APP_DEADLINE_MISSED: i32 = 64;
    /// The app queued ahead; the frame waited behind a previous one.
    pub const BUFFER_STUFFING: i32 = 128;
    /// Jank for a reason SurfaceFlinger could not tell.
    pub const UNKNOWN: i32 = 256;
    /// SurfaceFlinger itself was stuffed (previous frame still presenting).
    pub const SF_STUFFING: i32 = 512;
    /// The frame was dropped (replaced by a newer one).
    pub const DROPPED: i32 = 1024;
    /// Non-animating frame (not perceivable).
    pub const NON_ANIMATING: i32 = 2048;
    /// App resynced its vsync (jitter).
    pub const APP_RESYNCED_JITTER: i32 = 4096;
    /// The display was not on.
    pub const DISPLAY_NOT_ON: i32 = 8192;
    /// A display mode change was in progress.
    pub const DISPLAY_MODE_CHANGE_IN_PROGRESS: i32 = 16384;
    /// A display power mode change was in progress.
    pub const DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS: i32 = 32768;
}

/// Jank bit names in Perfetto's output order (not bit order: App Resynced Jitter precedes Buffer Stuffing).
pub const JANK_NAMES: [(i32, &str); 15] = [
    (bits::SF_SCHEDULING, "SurfaceFlinger Scheduling"),
    (bits::PREDICTION_ERROR, "Prediction Error"),
    (bits::DISPLAY_HAL, "Display HAL"),
    (
        bits::SF_CPU_DEADLINE_MISSED,
        "SurfaceFlinger CPU Deadline Missed",
    ),
    (
        bits::SF_GPU_DEADLINE_MISSED,
        "SurfaceFlinger GPU Deadline Missed",
    ),
    (bits::APP_DEADLINE_MISSED, "App Deadline Missed"),
    (bits::APP_RESYNCED_JITTER, "App Resynced Jitter"),
    (bits::BUFFER_STUFFING, "Buffer Stuffing"),
    (bits::UNKNOWN, "Unknown Jank"),
    (bits::SF_STUFFING, "SurfaceFlinger Stuffing"),
    (bits::DROPPED, "Dropped Frame"),
    (bits::NON_ANIMATING, "Non Animating"),
    (bits::DISPLAY_NOT_ON, "Display not ON"),
    (
        bits::DISPLAY_MODE_CHANGE_IN_PROGRESS,
        "ModeChange in progress",
    ),
    (
        bits::DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS,
        "PowerModeChange in progress",
    ),
];

/// Every component of a `jank_type` string ([`jank_components`]), in their order there: the three special values,
/// then the bit names of [`JANK_NAMES`]. Index i is bit i of a [`jank_component_set`].
pub const COMPONENT_NAMES: [&str; 3 + JANK_NAMES.len()] = {
    let mut names = [""; 3 + JANK_NAMES.len()];
    names[0] = "Unspecified";
    names[1] = "None";
    let mut i = 0;
    while i < JANK_NAMES.len() {
        names[3 + i] = JANK_NAMES[i].1;
        i += 1;
    }
    names
};

/// The components of the `jank_type` string as a set of [`COMPONENT_NAMES`] indexes: `0 → {"Unspecified"}`,
/// `1 → {"None"}`, else the set bits' names (the NONE bit is ignored; unknown bits alone give `{""}`).
pub fn jank_component_set(jank_type: i32) -> u32 {
    match jank_type {
        0 => 1,
        bits::NONE => 1 << 1,
        _ => {
            let named = (JANK_NAMES.iter().zip(3..))
                .filter(|((bit, _), _)| jank_type & bit != 0)
                .fold(0, |set, (_, i)| set | 1 << i);
            if named == 0 {
                1 << 2
            } else {
                named
            }
        }
    }
}

/// The components of the `jank_type` string, in order (what Perfetto's metric splits it into at `", "`): the
/// names of its [`jank_component_set`].
pub fn jank_components(jank_type: i32) -> impl Iterator<Item = &'static str> {
    let set = jank_component_set(jank_type);
    (COMPONENT_NAMES.iter().zip(0..))
        .filter(move |(_, i)| set & 1 << i != 0)
        .map(|(name, _)| *name)
}

/// The `jank_type` string: its [`jank_components`] joined by `", "` (borrowed unless several bits are set).
pub fn jank_type_name(jank_type: i32) -> Cow<'static, str> {
    let mut parts = jank_components(jank_type);
    let first = parts.next().unwrap_or_default();
    match parts.next() {
        None => Cow::Borrowed(first),
        Some(second) => Cow::Owned(parts.fold(format!("{first}, {second}"), |s, p| s + ", " + p)),
    }
}

/// Interned [`jank_type_name`]s: one shared string per distinct bitmask.
#[derive(Debug, Default)]
pub struct JankTypeNames(FxHashMap<i32, SharedStr>);

impl JankTypeNames {
    /// The shared `jank_type` string of the bitmask `jank_type`.
    pub fn get(&mut self, jank_type: i32) -> SharedStr {
        self.0
            .entry(jank_type)
            .or_insert_with(|| jank_type_name(jank_type).as_ref().into())
            .clone()
    }
}

/// Bits that make a DisplayFrame janky by SurfaceFlinger's own doing.
const SF_BITS: i32 = bits::SF_SCHEDULING
    | bits::PREDICTION_ERROR
    | bits::DISPLAY_HAL
    | bits::SF_CPU_DEADLINE_MISSED
    | bits::SF_GPU_DEADLINE_MISSED;
/// Bits that make a SurfaceFrame janky by the app's own doing.
const APP_BITS: i32 = bits::APP_DEADLINE_MISSED | bits::APP_RESYNCED_JITTER | bits::UNKNOWN;

/// Declares a one-byte enum whose variants stand for fixed strings (each variant's doc is its string): `name()`
/// gives the string and serde writes it, so that per-frame rows hold a byte where a `&'static str` took 16.
/// The first variant is the default.
macro_rules! perfetto_strings {
    ($(#[$doc:meta])* $vis:vis enum $name:ident {
        $first:ident => $first_text:literal $(, $variant:ident => $text:literal)* $(,)?
    }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            #[default]
            #[doc = $first_text]
            $first,
            $(#[doc = $text] $variant,)*
        }

        impl $name {
            /// The string.
            pub fn name(self) -> &'static str {
                match self {
                    $name::$first => $first_text,
                    $($name::$variant => $text,)*
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }
    };
}
pub(crate) use perfetto_strings;

perfetto_strings! {
    /// Perfetto's `present_type` strings.
    pub enum PresentType {
        Unspecified => "Unspecified Present",
        OnTime => "On-time Present",
        Late => "Late Present",
        Early => "Early Present",
        Dropped => "Dropped Frame",
        Unknown => "Unknown Present",
    }
}

impl PresentType {
    /// From the proto value: absent or outside 1..=5 → `Unspecified Present`. Source: Perfetto importer.
    pub fn of(present_type: Option<i32>) -> Self {
        match present_type {
            Some(1) => PresentType::OnTime,
            Some(2) => PresentType::Late,
            Some(3) => PresentType::Early,
            Some(4) => PresentType::Dropped,
            Some(5) => PresentType::Unknown,
            _ => PresentType::Unspecified,
        }
    }
}

perfetto_strings! {
    /// Perfetto's `prediction_type` strings.
    pub enum PredictionType {
        Unspecified => "Unspecified Prediction",
        Valid => "Valid Prediction",
        Expired => "Expired Prediction",
        Unknown => "Unknown Prediction",
    }
}

impl PredictionType {
    /// From the proto value: absent or outside 1..=3 → `Unspecified Prediction`.
    pub fn of(prediction_type: Option<i32>) -> Self {
        match prediction_type {
            Some(1) => PredictionType::Valid,
            Some(2) => PredictionType::Expired,
            Some(3) => PredictionType::Unknown,
            _ => PredictionType::Unspecified,
        }
    }
}

perfetto_strings! {
    /// Perfetto's `jank_severity_type` strings.
    pub enum Severity {
        Unknown => "Unknown",
        None => "None",
        Partial => "Partial",
        Full => "Full",
    }
}

impl Severity {
    /// From the proto value. Absent: `None` iff `jank_type == 1`, else `Unknown` (Perfetto's fallback). Out of
    /// range (Perfetto indexes unchecked): `Unknown`.
    pub fn of(severity: Option<i32>, jank_type: i32) -> Self {
        match severity {
            None if jank_type == bits::NONE => Severity::None,
            Some(1) => Severity::None,
            Some(2) => Severity::Partial,
            Some(3) => Severity::Full,
            _ => Severity::Unknown,
        }
    }
}

/// Perfetto's `jank_tag`: who is to blame, as the UI colours it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JankTag {
    /// `jank_type == 0`.
    #[default]
    Unspecified,
    /// This process caused the jank.
    SelfJank,
    /// Another component (SurfaceFlinger) caused this process's jank.
    OtherJank,
    /// The frame was dropped.
    DroppedFrame,
    /// Late but smooth: the app queued ahead (buffer stuffing).
    BufferStuffing,
    /// Late but smooth: SurfaceFlinger was stuffed.
    SurfaceFlingerStuffing,
    /// Jank that a user cannot see (non-animating, display off, power mode change).
    NonPerceivable,
    /// No jank.
    NoJank,
}

impl JankTag {
    /// Every tag, in declaration order (`tag as usize` is its place).
    pub const ALL: [JankTag; 8] = [
        JankTag::Unspecified,
        JankTag::SelfJank,
        JankTag::OtherJank,
        JankTag::DroppedFrame,
        JankTag::BufferStuffing,
        JankTag::SurfaceFlingerStuffing,
        JankTag::NonPerceivable,
        JankTag::NoJank,
    ];

    /// Perfetto's string.
    pub fn name(self) -> &'static str {
        match self {
            JankTag::Unspecified => "Unspecified",
            JankTag::SelfJank => "Self Jank",
            JankTag::OtherJank => "Other Jank",
            JankTag::DroppedFrame => "Dropped Frame",
            JankTag::BufferStuffing => "Buffer Stuffing",
            JankTag::SurfaceFlingerStuffing => "SurfaceFlinger Stuffing",
            JankTag::NonPerceivable => "Non-perceivable Jank",
            JankTag::NoJank => "No Jank",
        }
    }

    /// True for the tags that are visible jank: Self Jank, Other Jank, Dropped Frame.
    pub fn is_janky(self) -> bool {
        matches!(
            self,
            JankTag::SelfJank | JankTag::OtherJank | JankTag::DroppedFrame
        )
    }
}

impl serde::Serialize for JankTag {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

fn display_frame_janky(jank_type: i32) -> bool {
    !matches!(
        jank_type,
        0 | bits::NONE | bits::NON_ANIMATING | bits::DISPLAY_NOT_ON
    ) && jank_type & SF_BITS != 0
}

fn non_perceivable(jank_type: i32) -> bool {
    matches!(
        jank_type,
        bits::NON_ANIMATING | bits::DISPLAY_NOT_ON | bits::DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS
    )
}

/// Jank tag of an actual DisplayFrame (Perfetto `CalculateDisplayFrameJankTag`).
pub fn display_frame_jank_tag(jank_type: i32) -> JankTag {
    if jank_type == 0 {
        JankTag::Unspecified
    } else if display_frame_janky(jank_type) {
        JankTag::SelfJank
    } else if jank_type == bits::SF_STUFFING {
        JankTag::SurfaceFlingerStuffing
    } else if jank_type == bits::DROPPED {
        JankTag::DroppedFrame
    } else if non_perceivable(jank_type) {
        JankTag::NonPerceivable
    } else {
        JankTag::NoJank
    }
}

/// Jank tag of an actual SurfaceFrame (Perfetto `CalculateSurfaceFrameJankTag`).
pub fn surface_frame_jank_tag(jank_type: i32, present_type: PresentType) -> JankTag {
    let app_janky = !matches!(
        jank_type,
        0 | bits::NONE | bits::NON_ANIMATING | bits::DISPLAY_NOT_ON
    ) && jank_type & APP_BITS != 0;
    if jank_type == 0 {
        JankTag::Unspecified
    } else if app_janky {
        JankTag::SelfJank
    } else if display_frame_janky(jank_type) {
        JankTag::OtherJank
    } else if jank_type == bits::BUFFER_STUFFING {
        JankTag::BufferStuffing
    } else if jank_type == bits::SF_STUFFING {
        JankTag::SurfaceFlingerStuffing
    } else if present_type == PresentType::Dropped {
        JankTag::DroppedFrame
    } else if non_perceivable(jank_type) {
        JankTag::NonPerceivable
    } else {
        JankTag::NoJank
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jank_names_follow_perfetto_order_and_none_rule() {
        assert_eq!(jank_type_name(0), "Unspecified");
        assert_eq!(jank_type_name(1), "None");
        assert_eq!(jank_type_name(1 | 64), "App Deadline Missed");
        assert_eq!(
            jank_type_name(18),
            "SurfaceFlinger Scheduling, SurfaceFlinger CPU Deadline Missed"
        );
        assert_eq!(
            jank_type_name(128 | 4096),
            "App Resynced Jitter, Buffer Stuffing"
        );
        assert_eq!(jank_type_name(1 << 20), "");
    }

    #[test]
    fn jank_tags_are_asymmetric_between_display_and_surface_frames() {
        assert_eq!(
            display_frame_jank_tag(bits::SF_SCHEDULING),
            JankTag::SelfJank
        );
        assert_eq!(
            surface_frame_jank_tag(bits::SF_SCHEDULING, PresentType::Early),
            JankTag::OtherJank
        );
        assert_eq!(display_frame_jank_tag(bits::UNKNOWN), JankTag::NoJank);
        assert_eq!(
            surface_frame_jank_tag(bits::UNKNOWN, PresentType::Unknown),
            JankTag::SelfJank
        );
        assert_eq!(display_frame_jank_tag(bits::DROPPED), JankTag::DroppedFrame);
        assert_eq!(
            surface_frame_jank_tag(bits::DROPPED, PresentType::OnTime),
            JankTag::NoJank
        );
        assert_eq!(
            surface_frame_jank_tag(bits::DROPPED, PresentType::Dropped),
            JankTag::DroppedFrame
        );
        assert_eq!(
            surface_frame_jank_tag(bits::SF_STUFFING, PresentType::Late),
            JankTag::SurfaceFlingerStuffing
        );
        assert_eq!(
            surface_frame_jank_tag(bits::BUFFER_STUFFING, PresentType::Late),
            JankTag::BufferStuffing
        );
        assert_eq!(
            display_frame_jank_tag(bits::DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS),
            JankTag::NonPerceivable
        );
        assert_eq!(
            display_frame_jank_tag(bits::DISPLAY_MODE_CHANGE_IN_PROGRESS),
            JankTag::NoJank
        );
    }

    #[test]
    fn severity_falls_back_on_jank_type() {
        assert_eq!(Severity::of(None, 1).name(), "None");
        assert_eq!(Severity::of(None, 64).name(), "Unknown");
        assert_eq!(Severity::of(Some(0), 1).name(), "Unknown");
        assert_eq!(Severity::of(Some(3), 64).name(), "Full");
        assert_eq!(Severity::of(Some(9), 64).name(), "Unknown");
    }
}
