//! Fuzz target: `distribution::recognize` at every line of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

use reclaimlab_formats::{distribution, lines};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = lines::split(&text);
    for start in 0..lines.len() {
        if let Some(Ok((n, _))) = distribution::recognize(&lines, start) {
            assert!(n > 0 && start + n <= lines.len(), "consumed {n} at {start}");
        }
    }
});
