//! reclaimlab-sim: a pure discrete-event simulator of Linux memory reclaim.
