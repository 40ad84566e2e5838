//! Fuzz target: the scan over plain text, with every recognizer at every
//! line. Blocks must not overlap and must stay inside the input, and the
//! unread-part warnings point at lines of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reclaimlab_formats::{detect, lines};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let ls = lines::split(&text);
    let Ok(scan) = detect::scan(&ls) else { return };
    let mut prev: Option<(usize, usize)> = None;
    for b in &scan.blocks {
        assert!(b.first <= b.last && b.last < ls.len());
        // Blocks do not overlap; runs printed side by side share one span.
        if let Some((f, l)) = prev {
            assert!((b.first, b.last) == (f, l) || b.first > l);
        }
        prev = Some((b.first, b.last));
    }
    for w in &scan.unread {
        assert!(w.line.is_some_and(|l| l >= 1 && l <= ls.len() as u64));
    }
});
