//! What happened: pure data built from [`crate::decode::Event`]s, no I/O.

pub mod binder;
mod build;
pub mod cluster;
pub mod frame;
pub mod jank;
pub mod kept_names;
pub(crate) mod order;
pub mod sched;
pub mod sections;
mod shared;
pub mod window;

pub use build::TimelineBuilder;
pub use frame::{
    DisplayFrame, ExpectedBounds, Frames, ImportStats, LayerId, NameSource, Process, Slice,
    SurfaceFrame, Timeline,
};
pub use jank::JankTag;
pub use sections::{AppSections, SectionFilter};
pub use shared::SharedStr;
pub mod series;
pub use series::{CaptureDiagnostics, FrameSeries, SeriesFrame, SeriesFrames, Source};
