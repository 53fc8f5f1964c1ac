//! Views rendered by an earlier mount of the same state directory, reused on first touch.
//!
//! Guarantee: a file is served from here only when (1) the state directory's bundle is the
//! one the views were rendered with (the file starts with that bundle's digest), (2) the
//! original's bytes hash (SHA-256) to what they were when the view was rendered, and (3) the
//! transform remembers nothing for the path (`Transform::remembers`: no layout that a write or
//! a rename left). Under those three the transform is a pure function of bundle, path and
//! original bytes, so the stored view is exactly what it would compute (law 10: one map per
//! view, the bytes the view serves).
//!
//! Why: the first request for each file of a fresh daemon transforms it (Level 3 parses it
//! twice), so the agent's first `grep -rn` over a large tree waited for the whole tree's
//! transform. A view mounted again (or one whose state directory was prepared when the image
//! was built) reads its views instead: the cost of a first touch becomes reading and hashing
//! the original.
//!
//! How: the first complete background scan of a view writes `STATE/rendered` (temp file and
//! rename) with one record per file: path, the hash of the original, and the view (left out
//! when it equals the original). A later mount loads it whole; each record is used once,
//! then the content cache holds the view.

use std::collections::HashMap;
use std::io::{self, Read, Write};

use sha2::{Digest, Sha256};

use super::*;

/// First bytes of the file, with the format's version.
const MAGIC: &[u8] = b"schrodinger rendered views v1\n";

/// Where the rendered views of a view live, and the digest of the bundle it serves.
#[derive(Debug, Clone)]
pub struct RenderedFile {
    pub path: PathBuf,
    pub bundle: [u8; 32],
}

/// The SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[derive(Debug)]
struct Record {
    original: [u8; 32],
    /// `None`: the view is the original's bytes.
    view: Option<Vec<u8>>,
}

/// The loaded records, each taken at most once.
#[derive(Debug, Default)]
pub struct Rendered {
    records: Mutex<HashMap<PathBuf, Record>>,
}

impl Rendered {
    /// The views stored at `file.path`, if they were rendered with `file.bundle`; `None`
    /// when the file is missing, unreadable, cut short or of another bundle (the view is then
    /// transformed as usual).
    pub fn load(file: &RenderedFile) -> Option<Rendered> {
        let mut bytes = Vec::new();
        fs::File::open(&file.path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .ok()?;
        let records = parse(&bytes, &file.bundle)?;
        Some(Rendered {
            records: Mutex::new(records),
        })
    }

    /// The view of `rel` for the original bytes `raw`, if it was rendered for exactly them.
    pub fn take(&self, rel: &Path, raw: &[u8]) -> Option<Vec<u8>> {
        let mut records = self.records.lock();
        let r = records.get(rel)?;
        if r.original != digest(raw) {
            return None;
        }
        let r = records.remove(rel)?;
        Some(r.view.unwrap_or_else(|| raw.to_vec()))
    }

    /// How many records are still unused.
    pub fn len(&self) -> usize {
        self.records.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One record: path, original hash, and the view unless it equals the original.
pub struct Entry<'a> {
    pub rel: &'a Path,
    pub original: [u8; 32],
    pub view: Option<&'a [u8]>,
}

/// Write `entries` to `file.path` atomically (a temporary file beside it, then a rename).
pub fn save<'a>(file: &RenderedFile, entries: impl Iterator<Item = Entry<'a>>) -> io::Result<()> {
    let dir = file
        .path
        .parent()
        .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut w = io::BufWriter::new(tmp.as_file_mut());
        w.write_all(MAGIC)?;
        w.write_all(&file.bundle)?;
        for e in entries {
            let path = e.rel.as_os_str().as_bytes();
            w.write_all(&(path.len() as u64).to_le_bytes())?;
            w.write_all(path)?;
            w.write_all(&e.original)?;
            match e.view {
                Some(v) => {
                    w.write_all(&[1])?;
                    w.write_all(&(v.len() as u64).to_le_bytes())?;
                    w.write_all(v)?;
                }
                None => w.write_all(&[0])?,
            }
        }
        w.flush()?;
    }
    tmp.persist(&file.path).map_err(|e| e.error)?;
    Ok(())
}

/// The records of a file's bytes, checked at every step (a file cut short or written by
/// another version gives `None`, never a panic).
fn parse(bytes: &[u8], bundle: &[u8; 32]) -> Option<HashMap<PathBuf, Record>> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut take = |n: usize| -> Option<&[u8]> {
        if rest.len() < n {
            return None;
        }
        let (a, b) = rest.split_at(n);
        rest = b;
        Some(a)
    };
    if take(32)? != bundle {
        return None;
    }
    let mut records = HashMap::new();
    while let Some(len) = take(8) {
        let len = usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()?;
        let path = PathBuf::from(OsStr::from_bytes(take(len)?));
        let original: [u8; 32] = take(32)?.try_into().ok()?;
        let view = match take(1)? {
            [0] => None,
            [1] => {
                let n = take(8)?;
                let n = usize::try_from(u64::from_le_bytes(n.try_into().ok()?)).ok()?;
                Some(take(n)?.to_vec())
            }
            _ => return None,
        };
        records.insert(path, Record { original, view });
    }
    Some(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let file = RenderedFile {
            path: dir.path().join("rendered"),
            bundle: digest(b"bundle"),
        };
        let entries = [
            (
                Path::new("a.py"),
                &b"def alpha(): pass\n"[..],
                Some(&b"def omega(): pass\n"[..]),
            ),
            (Path::new("d/b.txt"), &b"plain\n"[..], None),
        ];
        save(
            &file,
            entries.iter().map(|(rel, raw, view)| Entry {
                rel,
                original: digest(raw),
                view: *view,
            }),
        )
        .unwrap();
        let r = Rendered::load(&file).unwrap();
        assert_eq!(r.len(), 2);
        // Other bytes than were rendered: not used.
        assert_eq!(r.take(Path::new("a.py"), b"def alpha(): return 1\n"), None);
        assert_eq!(
            r.take(Path::new("a.py"), b"def alpha(): pass\n").as_deref(),
            Some(&b"def omega(): pass\n"[..])
        );
        // Used once.
        assert_eq!(r.take(Path::new("a.py"), b"def alpha(): pass\n"), None);
        assert_eq!(
            r.take(Path::new("d/b.txt"), b"plain\n").as_deref(),
            Some(&b"plain\n"[..])
        );
        // Another bundle, or a file cut anywhere: nothing is loaded, nothing panics.
        let other = RenderedFile {
            bundle: digest(b"other"),
            ..file.clone()
        };
        assert!(Rendered::load(&other).is_none());
        let bytes = fs::read(&file.path).unwrap();
        for cut in 0..bytes.len() {
            let r = parse(&bytes[..cut], &file.bundle);
            if let Some(r) = r {
                // A cut between records loads the records before it, each whole.
                assert!(r.len() <= 2);
            }
        }
    }
}
