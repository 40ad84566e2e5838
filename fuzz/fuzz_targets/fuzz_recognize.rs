//! Fuzz target: one recognizer of the scan's list at every line of the
//! input. The first byte picks the recognizer (`detect::RECOGNIZERS`, so a
//! new format is fuzzed as soon as it is listed); the rest is the text.
//! A claim consumes at least one line and stays inside the input, and a
//! block serialises.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reclaimlab_formats::{detect, lines};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let recognizer = &detect::RECOGNIZERS[pick as usize % detect::RECOGNIZERS.len()];
    let text = String::from_utf8_lossy(rest);
    let ls = lines::split(&text);
    for start in 0..ls.len() {
        if let Some(Ok(found)) = recognizer.recognize(&ls, start) {
            assert!(found.consumed >= 1, "{recognizer:?} consumed no line at {start}");
            assert!(start + found.consumed <= ls.len(), "{recognizer:?} ran past the input");
            for (body, _) in &found.bodies {
                let _ = serde_json::to_vec(body);
            }
        }
    }
});
