//! The `dumpsys gfxinfo` reader (framestats and the summary), both row options: any bytes give a capture or a
//! clean error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for drop_flagged_rows in [false, true] {
        let options = ftl::sources::gfxinfo::Options { drop_flagged_rows };
        let _ = ftl::sources::gfxinfo::read(data, "fuzz.txt".as_ref(), &options);
    }
});
