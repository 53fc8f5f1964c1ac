//! Which schrodinger views a mount namespace holds, read from the kernel's
//! `/proc/self/mountinfo`.
//!
//! A new mount namespace starts as a copy of its parent's mounts. In a container where
//! several views are mounted (runs side by side, a view an evaluator mounted by hand), the
//! agent's namespace would hold a copy of each: the agent could read the other views, and a
//! copy keeps that view's FUSE connection open, so its daemon outlives its `unmount` until the
//! agent exits. `agent.rs` detaches them; this file only finds them.

use std::path::PathBuf;

/// The file system name every view is mounted with (`fuse.rs`).
const SOURCE: &str = "schrodinger";

/// Mount points of the views in a mountinfo text (`fuse` or `fuse.*` mounts whose source is
/// [`SOURCE`]), deepest first, so that detaching them in order never detaches a parent
/// before its child. Lines the format does not fit are skipped: the kernel writes them.
pub fn views_in(mountinfo: &[u8]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = mountinfo
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
            // id parent dev root point options [optional...] - fstype source superoptions
            let dash = fields.iter().position(|f| *f == b"-")?;
            let (fstype, source) = (fields.get(dash + 1)?, fields.get(dash + 2)?);
            let fuse = *fstype == b"fuse" || fstype.starts_with(b"fuse.");
            (fuse && *source == SOURCE.as_bytes() && dash >= 5).then(|| unescape(fields[4]))
        })
        .collect();
    out.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    out
}

/// The kernel writes space, tab, newline and backslash in a path as `\ooo` (octal).
fn unescape(field: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let octal = field.get(i + 1..i + 4).filter(|d| {
            field[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)) && d[0] <= b'3'
        });
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(field[i]);
                i += 1;
            }
        }
    }
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_views_deepest_first_and_nothing_else() {
        let info = b"\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 22 0:45 / /tmp/a rw,nosuid,nodev,relatime shared:20 - fuse.schrodinger schrodinger rw,user_id=0
41 40 0:46 / /tmp/a/b\\040c rw,relatime - fuse schrodinger rw
42 22 0:47 / /mnt/other rw,relatime shared:21 - fuse.sshfs schrodinger@host: rw
43 22 0:48 / /mnt/x rw,relatime - tmpfs schrodinger rw
broken line
";
        assert_eq!(
            views_in(info),
            vec![PathBuf::from("/tmp/a/b c"), PathBuf::from("/tmp/a")]
        );
    }

    #[test]
    fn escapes_are_undone_and_bad_ones_kept() {
        assert_eq!(unescape(br"/a\134b\011c"), PathBuf::from("/a\\b\tc"));
        assert_eq!(unescape(br"/a\9x\"), PathBuf::from(r"/a\9x\"));
    }
}
