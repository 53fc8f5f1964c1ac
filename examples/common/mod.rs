//! What the cost examples share: the Python files of a tree, in a stable order.

use std::path::{Path, PathBuf};

/// Every `.py` file under `dir` (not under `.git`, not through symbolic links), sorted by
/// path within each directory.
pub fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() && !p.is_symlink() {
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            python_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "py") {
            out.push(p);
        }
    }
}
