//! Paths as keys: the leaf that the inode table and the content cache both use.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The entries of `map` at `top` and below it. Paths order by components, so they are one
/// contiguous range: a rename or unlink touches its subtree, not every entry.
pub fn subtree<'a, V>(
    map: &'a BTreeMap<PathBuf, V>,
    top: &'a Path,
) -> impl Iterator<Item = (&'a PathBuf, &'a V)> {
    use std::ops::Bound;
    map.range::<Path, _>((Bound::Included(top), Bound::Unbounded))
        .take_while(move |(k, _)| k.starts_with(top))
}
