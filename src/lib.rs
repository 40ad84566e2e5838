//! reclaimlab: store, compare and simulate Linux memory-reclaim latency
//! results posted by kernel developers.
//!
//! A short tour:
//! - [`config`]: the command line (every flag also from the environment);
//! - [`web`]: `router(state)` lists every URL; `api/` JSON, `pages/` HTML;
//! - [`compare`], [`permalinks`], [`simulate`]: the services the web
//!   layer calls, taking a pool and their configuration, never the web state;
//! - [`ingest`]: bytes + metadata -> `reclaimlab_formats::parse` (off the
//!   async runtime) -> the runs to store;
//! - [`storage`]: the only module with SQL, one file per aggregate;
//! - [`auth`]: hashed, scoped API tokens;
//! - [`cli`]: the `token`, `upload`, `parse`, `demo` and `simulate` commands;
//! - [`error`]: one error type, mapped to HTTP in one place.
//!
//! Pure parsing lives in `crates/formats`, the simulator in `crates/sim`,
//! statistics and renderings in `crates/report`.

pub mod auth;
pub mod blob;
pub mod boards;
pub mod cli;
pub mod compare;
pub mod config;
pub mod db;
pub mod error;
pub mod ingest;
pub mod jobs;
pub mod metrics;
pub mod permalinks;
pub mod simulate;
pub mod storage;
pub mod web;
