//! SurfaceFlinger's jank classifier re-derived from the trace; agreement with the trace's own labels.

use serde::Serialize;

/// Which Android release's FrameTimeline rules to apply (they changed between releases).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SfRules {
    /// Android 12 / 12L.
    A12,
    /// Android 13.
    A13,
    /// Android 14.
    A14,
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
            "a15" => Ok(SfRules::A15),
            "a16" => Ok(SfRules::A16),
            other => Err(format!("unknown SurfaceFlinger rules '{other}' (expected a12, a13, a14, a15 or a16)")),
        }
    }
}
