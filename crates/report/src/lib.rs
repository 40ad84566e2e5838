//! reclaimlab-report: pure statistics and renderings for comparisons.
