//! The bytes of the outside programs a repository runs (`transform::programs` finds which):
//! the program's file and the shared libraries it loads, but not the C runtime's.
//!
//! A program's words are spread over its libraries (`openssl` names its curves in
//! `libcrypto`), so the libraries `ldd` lists are read too; the C and C++ runtimes (`libc`,
//! `libm`, the loader, `libstdc++`...) hold the system's words, not the program's, and are
//! left out. A script is read alone, and without `ldd` only the program's own file is read.
//! Reading fails quietly: a program that cannot be read contributes nothing, as one that is
//! not installed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Libraries of the C and C++ runtimes, by the start of their file names.
const RUNTIME: &[&str] = &[
    "libc.",
    "libm.",
    "ld-linux",
    "libpthread.",
    "libdl.",
    "librt.",
    "libgcc_s.",
    "libstdc++.",
    "linux-vdso",
];

/// Where `name` is found: the directories of `PATH`, then the interpreter's own directory.
pub fn locate(name: &str, python: &Path) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(d) = python.parent().filter(|d| !d.as_os_str().is_empty()) {
        dirs.push(d.to_path_buf());
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// The program at `path` and the libraries it loads, as bytes.
pub fn program_bytes(path: &Path) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = std::fs::read(path).into_iter().collect();
    // Only a binary loads libraries: a script (a venv's console script, a shell wrapper) is
    // read alone, and `ldd` is never run on it.
    if !out.first().is_some_and(|b| b.starts_with(b"\x7fELF")) {
        return out;
    }
    let listed = Command::new("ldd")
        .arg(path)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| loaded_libraries(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_default();
    for lib in listed {
        if let Ok(b) = std::fs::read(&lib) {
            out.push(b);
        }
    }
    out
}

/// The libraries of `ldd` output (`libcrypto.so.3 => /lib/.../libcrypto.so.3 (0x...)`)
/// that are not the runtime's.
fn loaded_libraries(ldd: &str) -> Vec<PathBuf> {
    ldd.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" => ")?;
            let path = rest.split(" (").next()?.trim();
            let runtime = RUNTIME.iter().any(|r| name.starts_with(r));
            (!runtime && path.starts_with('/')).then(|| PathBuf::from(path))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_is_left_out_of_what_ldd_lists() {
        let ldd = "\tlinux-vdso.so.1 (0x00007ffd)\n\
                   \tlibssl.so.3 => /lib/x86_64-linux-gnu/libssl.so.3 (0x00007f47)\n\
                   \tlibcrypto.so.3 => /lib/x86_64-linux-gnu/libcrypto.so.3 (0x00007f48)\n\
                   \tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f46)\n\
                   \t/lib64/ld-linux-x86-64.so.2 (0x00007f47)\n\
                   \tlibz.so.1 => not found\n";
        assert_eq!(
            loaded_libraries(ldd),
            [
                PathBuf::from("/lib/x86_64-linux-gnu/libssl.so.3"),
                PathBuf::from("/lib/x86_64-linux-gnu/libcrypto.so.3")
            ]
        );
    }

    /// A binary on this machine that loads a library beyond the runtime: read with it.
    #[test]
    fn a_binary_is_read_with_its_libraries() {
        let Some(git) = ["/usr/bin/git", "/usr/local/bin/git", "/usr/bin/openssl"]
            .iter()
            .map(Path::new)
            .find(|p| p.is_file())
        else {
            panic!("no git or openssl binary to read");
        };
        let bytes = program_bytes(git);
        assert!(bytes[0].starts_with(b"\x7fELF"));
        assert!(bytes.len() >= 2, "{} loads no library", git.display());
    }

    #[test]
    fn a_script_on_the_path_is_read_whole() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let prog = dir.path().join("frobnicate");
        std::fs::write(&prog, "#!/bin/sh\necho --outform der\n").expect("written");
        let python = dir.path().join("python");
        assert_eq!(locate("frobnicate", &python), Some(prog.clone()));
        assert_eq!(locate("absent-program-name", &python), None);
        let bytes = program_bytes(&prog);
        assert_eq!(bytes.len(), 1, "a script loads no library");
        assert_eq!(bytes[0], b"#!/bin/sh\necho --outform der\n");
    }
}
