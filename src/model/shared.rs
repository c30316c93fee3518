//! [`SharedStr`]: one string held by many rows.

use std::sync::Arc;

/// An immutable string shared by every row that has it (a process name, a `jank_type`: few distinct values,
/// many rows); dereferences and serialises as the string. One pointer wide (an `Arc<str>` takes two).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedStr(Arc<String>);

impl std::ops::Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> Self {
        SharedStr(Arc::new(s.to_string()))
    }
}

impl serde::Serialize for SharedStr {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.as_str())
    }
}
