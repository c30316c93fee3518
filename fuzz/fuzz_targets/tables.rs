//! The Perfetto trace decoder keeping every thread's scheduling states, then every table `ftl table` writes
//! (`thread_state`, `android_binder_txns`, `android_monitor_contention`, the frame tables, ...): any bytes give
//! tables or a decode error, never a panic.
#![no_main]

use clap::ValueEnum;
use ftl::output::perfetto_tables::{table, PerfettoTable};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut builder = ftl::model::TimelineBuilder::new().all_thread_states();
    if ftl::decode::decode(data, &mut |e| builder.push(e)).is_ok() {
        let timeline = builder.build();
        for name in PerfettoTable::value_variants() {
            let _ = table(*name, &timeline);
        }
    }
});
