//! Fuzz target: `cyclictest_json::recognize` at every line of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

use reclaimlab_formats::{cyclictest_json, lines};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = lines::split(&text);
    for start in 0..lines.len() {
        let _ = cyclictest_json::recognize(&lines, start);
    }
});
