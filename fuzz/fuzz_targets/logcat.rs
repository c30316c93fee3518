//! The Choreographer logcat reader: any bytes give a log or a clean error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ftl::sources::logcat::read(data, "fuzz.txt".as_ref());
});
