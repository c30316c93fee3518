//! ftl's integration tests (one binary): Perfetto's own parser tests, golden outputs of trace processor on real
//! traces, compression variants, bad inputs, the CLI, and the committed synthetic test data.

mod app_frames;
mod batch;
mod binder;
mod chart;
mod classify;
mod cli;
mod common;
mod diff;
mod errors;
mod golden;
mod html;
mod peer;
mod perfetto_frames;
mod record;
mod sched;
mod sources;
mod synth_atrace;
mod testdata;
mod textproto;
