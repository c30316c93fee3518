//! The Perfetto trace decoder (plain bytes; `compressed_packets` inside them) through the model and the
//! analysis: any bytes give events and a report, or a decode error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut builder = ftl::model::TimelineBuilder::new();
    if ftl::decode::decode(data, &mut |e| builder.push(e)).is_ok() {
        let report = ftl::analysis::analyze_timeline(builder.build(), &Default::default());
        let _ = serde_json::to_string(&report);
    }
});
