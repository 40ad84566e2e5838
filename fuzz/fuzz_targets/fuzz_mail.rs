//! Fuzz target: `mail::parse` on any input, mail or not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = reclaimlab_formats::mail::parse(&text, data.len() as u64, None);
});
