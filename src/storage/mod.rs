//! The only place with SQL. One file per aggregate; functions take an
//! executor or a connection and return domain types.

pub mod catalog;
pub mod compare;
pub mod ids;
pub mod ingest;
pub mod overview;
pub mod runs;
pub mod simulations;
pub mod snapshots;
pub mod tokens;
