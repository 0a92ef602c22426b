use thiserror::Error;

/// Why an index could not be built. "No match" is never an error: it is an empty result.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum IndexError {
    #[error("invalid index document: {0}")]
    InvalidDocument(String),
    #[error("{field}: unknown {kind} id \"{id}\"")]
    UnknownId { field: String, kind: &'static str, id: String },
    #[error("{field}: duplicate id \"{id}\"")]
    DuplicateId { field: String, id: String },
    #[error("category \"{0}\" is part of a cycle in the category hierarchy")]
    CategoryCycle(String),
    #[error("text matcher could not be built: {0}")]
    Matcher(String),
}

impl IndexError {
    /// Stable code for the binding's `err.code`.
    pub fn code(&self) -> &'static str {
        match self {
            IndexError::InvalidDocument(_) => "INDEX_INVALID_DOCUMENT",
            IndexError::UnknownId { .. } => "INDEX_UNKNOWN_ID",
            IndexError::DuplicateId { .. } => "INDEX_DUPLICATE_ID",
            IndexError::CategoryCycle(_) => "INDEX_CATEGORY_CYCLE",
            IndexError::Matcher(_) => "INDEX_MATCHER",
        }
    }
}
