//! Plain-language explanations of jank types and tags (the `ftl explain` texts).

/// `(Perfetto jank-type name, one-line explanation)` for every jank type.
pub const JANK_EXPLANATIONS: [(&str, &str); 0] = [];

/// The explanation of a jank-type name (case-insensitive), if known.
pub fn explain(jank_type: &str) -> Option<&'static str> {
    JANK_EXPLANATIONS.iter().find(|(n, _)| n.eq_ignore_ascii_case(jank_type)).map(|(_, e)| *e)
}
