//! The ids of stored rows, one type each, so a run's id cannot be passed
//! where an upload's is wanted. Each is its `BIGINT` column as it is
//! (`sqlx(transparent)`: queries bind and read them unchanged) and its
//! number in JSON and paths (`serde(transparent)`). A field of an id type
//! in an API response says `#[schema(value_type = i64)]`, so the OpenAPI
//! document shows the number it is.

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            sqlx::Type, serde::Serialize, serde::Deserialize,
        )]
        #[sqlx(transparent)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    )*};
}

ids! {
    /// `runs.id`.
    RunId;
    /// `uploads.id`.
    UploadId;
    /// `boards.id`.
    BoardId;
    /// `kernels.id`.
    KernelId;
    /// `variants.id`.
    VariantId;
    /// `simulations.id`: a simulation job.
    JobId;
    /// `snapshots.id`: a permalink (served by its slug).
    PermalinkId;
}
