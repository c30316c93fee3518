//! Text captures testers already collect — `dumpsys SurfaceFlinger --latency`, `dumpsys gfxinfo`, Choreographer
//! logcat — read line by line into the model's [`FrameSeries`](crate::model::FrameSeries) (and, for the sources
//! with analyses of their own, their own records). One reader per format; the format is chosen by content.

pub mod gfxinfo;
pub mod logcat;
pub mod sf_latency;
