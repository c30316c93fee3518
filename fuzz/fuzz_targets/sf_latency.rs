//! The `dumpsys SurfaceFlinger --latency` reader: any bytes give a capture or a clean error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ftl::sources::sf_latency::read(data, "fuzz.txt".as_ref(), "layer");
});
