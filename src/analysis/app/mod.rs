//! App frames: the app's own trace sections (UI thread `Choreographer#doFrame`, RenderThread `DrawFrame`, CUJs)
//! joined to FrameTimeline — Perfetto's stdlib tables, Macrobenchmark's FrameTimingMetric, ftl's stage blame.

pub mod blame;
pub mod blocking;
pub mod cause;
pub mod cuj;
pub mod macrobenchmark;
pub mod stdlib;
pub mod threads;
