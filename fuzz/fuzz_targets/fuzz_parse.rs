//! Fuzz target: the whole `parse` entry point (detection, mails, every recognizer).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = reclaimlab_formats::parse(data, None) {
        // Serialising walks every field; it must not panic either.
        let _ = serde_json::to_vec(&doc);
    }
});
