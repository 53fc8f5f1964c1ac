//! Symlink targets between the original's coordinates and the view's.
//!
//! Guarantee: a link never shows an original name or the original's location, and a link made
//! in the view points at the same file in the original. A relative target names files by path
//! components, so each component is translated like any other name; `.`, `..`, empty
//! components and components the transform refuses stay as they are. An absolute target that
//! lies inside the original root is shown inside the mountpoint (the same place, seen through
//! the view), and one inside the mountpoint goes back inside the original; any other absolute
//! target is outside both trees and stays. The same function serves `readlink`, `lstat`'s size
//! and the shadow repository's symlink blobs, so the three always agree.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use super::inode::is_plain_component;
use crate::transform::Transform;

/// The two places an absolute target can point into.
#[derive(Debug, Clone)]
pub struct Roots {
    /// The original root, canonical.
    pub original: PathBuf,
    /// Where the view is mounted, when known (an export or a test has none).
    pub view: Option<PathBuf>,
}

/// `target` under `root` (as bytes, component-wise), and the rest after it.
fn strip_root<'a>(target: &'a [u8], root: &Path) -> Option<&'a [u8]> {
    let root = root.as_os_str().as_bytes();
    let rest = target.strip_prefix(root)?;
    if rest.is_empty() {
        Some(rest)
    } else {
        rest.strip_prefix(b"/")
    }
}

fn translate_components(t: &dyn Transform, rel: &[u8], to_view: bool) -> Vec<u8> {
    let parts: Vec<Vec<u8>> = rel
        .split(|b| *b == b'/')
        .map(|c| {
            if c.is_empty() || c == b"." || c == b".." {
                return c.to_vec();
            }
            let name = OsStr::from_bytes(c);
            let out = if to_view {
                catch_unwind(AssertUnwindSafe(|| t.name_to_view(name))).ok()
            } else {
                catch_unwind(AssertUnwindSafe(|| t.name_to_original(name)))
                    .ok()
                    .and_then(Result::ok)
            };
            match out {
                Some(o) if is_plain_component(&o) => o.as_bytes().to_vec(),
                _ => c.to_vec(),
            }
        })
        .collect();
    parts.join(&b'/')
}

fn rebase(rest: &[u8], new_root: &Path, t: &dyn Transform, to_view: bool) -> Vec<u8> {
    let mut out = new_root.as_os_str().as_bytes().to_vec();
    if !rest.is_empty() {
        out.push(b'/');
        out.extend_from_slice(&translate_components(t, rest, to_view));
    }
    out
}

/// An original link target as the view shows it.
pub fn to_view(t: &dyn Transform, target: &[u8], roots: &Roots) -> Vec<u8> {
    if !target.starts_with(b"/") {
        return translate_components(t, target, true);
    }
    match (&roots.view, strip_root(target, &roots.original)) {
        (Some(view), Some(rest)) => rebase(rest, view, t, true),
        _ => target.to_vec(),
    }
}

/// A link target written in the view, as the original stores it.
pub fn to_original(t: &dyn Transform, target: &[u8], roots: &Roots) -> Vec<u8> {
    if !target.starts_with(b"/") {
        return translate_components(t, target, false);
    }
    match roots.view.as_deref().and_then(|v| strip_root(target, v)) {
        Some(rest) => rebase(rest, &roots.original, t, false),
        None => target.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::testing::SwapTransform;

    fn roots() -> Roots {
        Roots {
            original: PathBuf::from("/srv/orig"),
            view: Some(PathBuf::from("/testbed")),
        }
    }

    #[test]
    fn relative_targets_translate_by_component() {
        let t = SwapTransform;
        assert_eq!(to_view(&t, b"../alpha/x", &roots()), b"../omega/x");
        assert_eq!(to_original(&t, b"../omega/x", &roots()), b"../alpha/x");
    }

    #[test]
    fn absolute_targets_into_the_original_show_inside_the_mountpoint() {
        let t = SwapTransform;
        let r = roots();
        assert_eq!(to_view(&t, b"/srv/orig/alpha/f", &r), b"/testbed/omega/f");
        assert_eq!(to_view(&t, b"/srv/orig", &r), b"/testbed");
        assert_eq!(
            to_original(&t, b"/testbed/omega/f", &r),
            b"/srv/orig/alpha/f"
        );
        // Only whole components match: a sibling directory with a longer name is outside.
        assert_eq!(
            to_view(&t, b"/srv/original/alpha", &r),
            b"/srv/original/alpha"
        );
        assert_eq!(to_view(&t, b"/usr/lib/alpha", &r), b"/usr/lib/alpha");
        assert_eq!(to_original(&t, b"/testbed2/omega", &r), b"/testbed2/omega");
    }

    #[test]
    fn without_a_mountpoint_absolute_targets_stay() {
        let t = SwapTransform;
        let r = Roots {
            view: None,
            ..roots()
        };
        assert_eq!(to_view(&t, b"/srv/orig/alpha", &r), b"/srv/orig/alpha");
    }
}
