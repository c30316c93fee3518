//! A whole file as `ftl analyze` opens it: what it holds is told by content (plain or gzip trace, a
//! `--latency`, gfxinfo or logcat capture), then read and analysed; any bytes give a report or a clean error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(data).expect("write");
    file.flush().expect("flush");
    let _ = ftl::analyze_path(file.path(), &Default::default());
});
