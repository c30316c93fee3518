//! Plain-language explanations of jank types, and who a janky frame is attributed to.

use crate::model::jank::bits;

/// `(Perfetto jank-type name, one-line explanation)` for every jank type, in Perfetto's order, then "None" and
/// "Unspecified". Meanings follow AOSP `libs/gui/include/gui/JankInfo.h` and `FrameTimeline.cpp` (A16).
pub const JANK_EXPLANATIONS: [(&str, &str); 17] = [
    ("SurfaceFlinger Scheduling", "SurfaceFlinger woke up off its planned vsync, so the frame reached the screen a whole number of vsyncs early or late although everyone finished in time."),
    ("Prediction Error", "The vsync predictor was wrong: the frame was shown at a time that is not a whole number of vsyncs from the planned one."),
    ("Display HAL", "SurfaceFlinger finished in time but the display (HWC / panel) presented the frame late."),
    ("SurfaceFlinger CPU Deadline Missed", "SurfaceFlinger's own CPU work on the frame took longer than its deadline, so the frame was shown late."),
    ("SurfaceFlinger GPU Deadline Missed", "SurfaceFlinger composited with the GPU and that composition finished after the deadline, so the frame was shown late."),
    ("App Deadline Missed", "The app finished its frame (buffer ready) after its deadline, so it was shown late."),
    ("App Resynced Jitter", "The app re-synchronised to vsync and its frame timing jittered (newer Android releases)."),
    ("Buffer Stuffing", "The app queued frames ahead; this frame waited behind the previous one, so it is late on paper but the motion stayed smooth."),
    ("Unknown Jank", "SurfaceFlinger could not tell why: its prediction had expired or the present time is unknown (app frames: counted as the app's)."),
    ("SurfaceFlinger Stuffing", "SurfaceFlinger's previous frame was still being presented, so this one waited; late on paper, smooth on screen."),
    ("Dropped Frame", "The frame was never shown: a newer frame of the same layer replaced it before SurfaceFlinger latched it."),
    ("Non Animating", "The content was not animating, so the lateness was not visible (newer Android releases)."),
    ("Display not ON", "The display was off, so the lateness was not visible."),
    ("ModeChange in progress", "A display mode (refresh rate / resolution) change was in progress."),
    ("PowerModeChange in progress", "A display power mode change was in progress, so the lateness was not visible."),
    ("None", "No jank: the frame was shown on time (within the 2 ms present threshold)."),
    ("Unspecified", "SurfaceFlinger did not label the frame (the jank_type field is absent)."),
];

/// The explanation of a jank-type name (case-insensitive), if known.
pub fn explain(jank_type: &str) -> Option<&'static str> {
    JANK_EXPLANATIONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(jank_type))
        .map(|(_, e)| *e)
}

crate::model::jank::perfetto_strings! {
    /// Who a frame's jank is attributed to ([`attribution`]).
    pub enum Attribution {
        App => "app",
        DisplayHal => "display_hal",
        SurfaceFlinger => "surfaceflinger",
        Stuffing => "stuffing",
        NonPerceivable => "non_perceivable",
    }
}

/// Who a frame's jank (`jank_type` proto bitmask as SurfaceFlinger traced it) is attributed to, checked in
/// this order: `app` (App Deadline Missed, App Resynced Jitter, Dropped Frame, and Unknown Jank on a
/// SurfaceFrame, which Perfetto counts as self jank), `display_hal` (Display HAL, including A14+'s invalid
/// present fence `Unknown | Display HAL`), `surfaceflinger` (SF scheduling, prediction error, SF CPU/GPU
/// deadline missed, and Unknown Jank on a DisplayFrame: an expired SF prediction), `stuffing` (buffer / SF
/// stuffing: late on paper, smooth on screen) or `non_perceivable` (non-animating, display off, mode changes).
/// `None` for no jank or an absent label.
pub fn attribution(jank_type: i32, is_display_frame: bool) -> Option<Attribution> {
    let any = |mask: i32| jank_type & mask != 0;
    let unknown_is_app = !is_display_frame && any(bits::UNKNOWN);
    if any(bits::APP_DEADLINE_MISSED | bits::APP_RESYNCED_JITTER | bits::DROPPED) || unknown_is_app
    {
        Some(Attribution::App)
    } else if any(bits::DISPLAY_HAL) {
        Some(Attribution::DisplayHal)
    } else if any(bits::SF_SCHEDULING
        | bits::PREDICTION_ERROR
        | bits::SF_CPU_DEADLINE_MISSED
        | bits::SF_GPU_DEADLINE_MISSED
        | bits::UNKNOWN)
    {
        Some(Attribution::SurfaceFlinger)
    } else if any(bits::BUFFER_STUFFING | bits::SF_STUFFING) {
        Some(Attribution::Stuffing)
    } else if any(bits::NON_ANIMATING
        | bits::DISPLAY_NOT_ON
        | bits::DISPLAY_MODE_CHANGE_IN_PROGRESS
        | bits::DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS)
    {
        Some(Attribution::NonPerceivable)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::jank::JANK_NAMES;

    #[test]
    fn every_jank_type_is_explained() {
        for (_, name) in JANK_NAMES {
            assert!(explain(name).is_some(), "{name}");
        }
        assert!(explain("none").is_some() && explain("Unspecified").is_some());
        assert_eq!(explain("no such jank"), None);
    }

    #[test]
    fn attribution_puts_the_app_first() {
        assert_eq!(
            attribution(
                bits::APP_DEADLINE_MISSED | bits::SF_CPU_DEADLINE_MISSED,
                false
            )
            .map(Attribution::name),
            Some("app")
        );
        assert_eq!(
            attribution(bits::UNKNOWN, false).map(Attribution::name),
            Some("app")
        );
        assert_eq!(
            attribution(bits::UNKNOWN, true).map(Attribution::name),
            Some("surfaceflinger")
        );
        assert_eq!(
            attribution(bits::UNKNOWN | bits::DISPLAY_HAL, true).map(Attribution::name),
            Some("display_hal")
        );
        assert_eq!(
            attribution(bits::PREDICTION_ERROR | bits::BUFFER_STUFFING, false)
                .map(Attribution::name),
            Some("surfaceflinger")
        );
        assert_eq!(
            attribution(bits::BUFFER_STUFFING, false).map(Attribution::name),
            Some("stuffing")
        );
        assert_eq!(
            attribution(bits::DISPLAY_NOT_ON, true).map(Attribution::name),
            Some("non_perceivable")
        );
        assert_eq!(attribution(bits::NONE, true), None);
        assert_eq!(attribution(0, false), None);
    }
}
