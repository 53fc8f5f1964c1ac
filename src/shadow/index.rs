//! Reading and writing git's index file (`.git/index`), the part the shadow repository needs.
//!
//! Guarantees: `parse` accepts index versions 2, 3 and 4 (path prefix compression) and checks
//! the trailing SHA-1, so a torn or foreign file is refused rather than misread; extensions
//! (cached trees, untracked cache, ...) are skipped, never interpreted. `write` produces a
//! version 2 file (version 3 when an entry carries extended flags) whose entries are sorted
//! the way git requires (path bytes, then stage), with git's padding and checksum, so git
//! reads it as its own. Nothing here touches the filesystem.

use sha1::{Digest, Sha1};

/// Index entry flags: bits 12-13 hold the merge stage, bit 14 says extended flags follow.
const FLAG_EXTENDED: u16 = 0x4000;
const FLAG_STAGE_MASK: u16 = 0x3000;
const NAME_MASK: u16 = 0x0fff;

/// One index entry, with the stat data git compares against the work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub dev: u32,
    pub ino: u32,
    /// Object type and permission bits (0o100644, 0o100755, 0o120000, 0o160000).
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    /// Size of the work-tree file, truncated to 32 bits as git does.
    pub size: u32,
    pub oid: [u8; 20],
    /// Merge stage (0 for a normal entry).
    pub stage: u8,
    /// Flag bits of the version-3 extension word (skip-worktree, intent-to-add), 0 if none.
    pub extended: u16,
    /// Path relative to the work tree, `/`-separated, no leading slash.
    pub path: Vec<u8>,
}

/// Why an index file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum IndexError {
    #[error("not a git index (bad signature)")]
    Signature,
    #[error("unsupported index version {0}")]
    Version(u32),
    #[error("index is truncated")]
    Truncated,
    #[error("index checksum does not match its content")]
    Checksum,
    #[error("index entry has a bad path")]
    Path,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], IndexError> {
        let end = self.at.checked_add(n).ok_or(IndexError::Truncated)?;
        let s = self.b.get(self.at..end).ok_or(IndexError::Truncated)?;
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, IndexError> {
        let s = self.take(4)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u16(&mut self) -> Result<u16, IndexError> {
        let s = self.take(2)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    }
    /// Git's offset varint (version 4 path compression): 7 bits a byte, high bit = more,
    /// each continuation adds one before shifting.
    fn varint(&mut self) -> Result<usize, IndexError> {
        let mut byte = self.take(1)?[0];
        let mut value = (byte & 0x7f) as usize;
        while byte & 0x80 != 0 {
            byte = self.take(1)?[0];
            value = value
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .and_then(|v| v.checked_add((byte & 0x7f) as usize))
                .ok_or(IndexError::Truncated)?;
        }
        Ok(value)
    }
    fn until_nul(&mut self) -> Result<&'a [u8], IndexError> {
        let rest = self.b.get(self.at..).ok_or(IndexError::Truncated)?;
        let n = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or(IndexError::Truncated)?;
        let s = &rest[..n];
        self.at += n + 1;
        Ok(s)
    }
}

/// The entries of an index file and its version.
pub fn parse(bytes: &[u8]) -> Result<(u32, Vec<Entry>), IndexError> {
    if bytes.len() < 12 + 20 {
        return Err(IndexError::Truncated);
    }
    let (body, sum) = bytes.split_at(bytes.len() - 20);
    if Sha1::digest(body).as_slice() != sum {
        return Err(IndexError::Checksum);
    }
    let mut r = Reader { b: body, at: 0 };
    if r.take(4)? != b"DIRC" {
        return Err(IndexError::Signature);
    }
    let version = r.u32()?;
    if !(2..=4).contains(&version) {
        return Err(IndexError::Version(version));
    }
    let count = r.u32()? as usize;
    let mut entries = Vec::with_capacity(count.min(1 << 20));
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = r.at;
        let ctime = (r.u32()?, r.u32()?);
        let mtime = (r.u32()?, r.u32()?);
        let dev = r.u32()?;
        let ino = r.u32()?;
        let mode = r.u32()?;
        let uid = r.u32()?;
        let gid = r.u32()?;
        let size = r.u32()?;
        let mut oid = [0u8; 20];
        oid.copy_from_slice(r.take(20)?);
        let flags = r.u16()?;
        let extended = if flags & FLAG_EXTENDED != 0 {
            if version < 3 {
                return Err(IndexError::Version(version));
            }
            r.u16()?
        } else {
            0
        };
        let path = if version == 4 {
            let strip = r.varint()?;
            let keep = prev.len().checked_sub(strip).ok_or(IndexError::Path)?;
            let mut p = prev[..keep].to_vec();
            p.extend_from_slice(r.until_nul()?);
            p
        } else {
            let p = r.until_nul()?.to_vec();
            // Entries are padded with NULs to a multiple of 8 bytes (the first NUL ended the
            // path above).
            let len = r.at - start;
            let padded = len.div_ceil(8) * 8;
            r.take(padded - len)?;
            p
        };
        if path.is_empty() || path.starts_with(b"/") {
            return Err(IndexError::Path);
        }
        prev.clone_from(&path);
        entries.push(Entry {
            ctime,
            mtime,
            dev,
            ino,
            mode,
            uid,
            gid,
            size,
            oid,
            stage: ((flags & FLAG_STAGE_MASK) >> 12) as u8,
            extended,
            path,
        });
    }
    Ok((version, entries))
}

/// An index file holding `entries` (sorted here by path, then stage, as git requires).
pub fn write(entries: &[Entry]) -> Vec<u8> {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path).then(a.stage.cmp(&b.stage)));
    let version: u32 = if sorted.iter().any(|e| e.extended != 0) {
        3
    } else {
        2
    };
    let mut out = Vec::with_capacity(12 + sorted.len() * 96 + 20);
    out.extend_from_slice(b"DIRC");
    out.extend_from_slice(&version.to_be_bytes());
    out.extend_from_slice(&(sorted.len() as u32).to_be_bytes());
    for e in sorted {
        let start = out.len();
        for v in [
            e.ctime.0, e.ctime.1, e.mtime.0, e.mtime.1, e.dev, e.ino, e.mode, e.uid, e.gid, e.size,
        ] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(&e.oid);
        let name_len = (e.path.len().min(NAME_MASK as usize)) as u16;
        let mut flags = name_len | ((u16::from(e.stage) << 12) & FLAG_STAGE_MASK);
        if e.extended != 0 {
            flags |= FLAG_EXTENDED;
        }
        out.extend_from_slice(&flags.to_be_bytes());
        if e.extended != 0 {
            out.extend_from_slice(&e.extended.to_be_bytes());
        }
        out.extend_from_slice(&e.path);
        // At least one NUL, then up to a multiple of 8.
        out.push(0);
        while (out.len() - start) % 8 != 0 {
            out.push(0);
        }
    }
    let sum = Sha1::digest(&out);
    out.extend_from_slice(&sum);
    out
}

/// The object id git gives a blob with these bytes.
pub fn blob_oid(content: &[u8]) -> [u8; 20] {
    let mut h = Sha1::new();
    h.update(format!("blob {}\0", content.len()).as_bytes());
    h.update(content);
    h.finalize().into()
}

/// Lowercase hex of an object id.
pub fn hex(oid: &[u8; 20]) -> String {
    oid.iter().map(|b| format!("{b:02x}")).collect()
}

/// An object id from 40 hex digits.
pub fn from_hex(s: &str) -> Option<[u8; 20]> {
    let s = s.as_bytes();
    if s.len() != 40 {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, pair) in s.chunks(2).enumerate() {
        let digit = |c: u8| (c as char).to_digit(16);
        out[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, stage: u8) -> Entry {
        Entry {
            ctime: (1, 2),
            mtime: (3, 4),
            dev: 5,
            ino: 6,
            mode: 0o100644,
            uid: 7,
            gid: 8,
            size: 9,
            oid: blob_oid(path.as_bytes()),
            stage,
            extended: 0,
            path: path.as_bytes().to_vec(),
        }
    }

    #[test]
    fn write_then_parse_gives_the_entries_sorted() {
        let es = vec![entry("b/c.py", 0), entry("a.py", 0), entry("b.py", 0)];
        let (v, back) = parse(&write(&es)).unwrap();
        assert_eq!(v, 2);
        let paths: Vec<_> = back.iter().map(|e| e.path.clone()).collect();
        // git orders by bytes: "b.py" < "b/c.py" because '.' < '/'.
        assert_eq!(
            paths,
            [b"a.py".to_vec(), b"b.py".to_vec(), b"b/c.py".to_vec()]
        );
        assert_eq!(back[0], es[1]);
    }

    #[test]
    fn extended_flags_need_version_3() {
        let mut e = entry("x", 0);
        e.extended = 0x2000;
        let (v, back) = parse(&write(&[e.clone()])).unwrap();
        assert_eq!((v, back), (3, vec![e]));
    }

    #[test]
    fn refuses_torn_or_foreign_files() {
        let good = write(&[entry("a", 0)]);
        let mut bad = good.clone();
        bad[20] ^= 1;
        assert_eq!(parse(&bad), Err(IndexError::Checksum));
        assert_eq!(parse(&good[..good.len() - 3]), Err(IndexError::Checksum));
        assert_eq!(parse(b"short"), Err(IndexError::Truncated));
        // A consistent checksum over nonsense: the signature is checked.
        let mut junk = b"XXXX\0\0\0\x02\0\0\0\0".to_vec();
        let sum = Sha1::digest(&junk);
        junk.extend_from_slice(&sum);
        assert_eq!(parse(&junk), Err(IndexError::Signature));
    }

    #[test]
    fn counts_that_lie_are_truncation_not_a_panic() {
        let mut b = b"DIRC\0\0\0\x02\xff\xff\xff\xff".to_vec();
        let sum = Sha1::digest(&b);
        b.extend_from_slice(&sum);
        assert_eq!(parse(&b), Err(IndexError::Truncated));
    }

    proptest::proptest! {
        /// Any bytes, including a valid header and checksum around garbage: an answer, never a
        /// panic or a huge allocation.
        #[test]
        fn parse_never_panics(body in proptest::collection::vec(0u8..=255, 0..300), n in 0u32..5) {
            let mut b = b"DIRC\0\0\0\x02".to_vec();
            b.extend_from_slice(&n.to_be_bytes());
            b.extend_from_slice(&body);
            let sum = Sha1::digest(&b);
            b.extend_from_slice(&sum);
            let _ = parse(&b);
            let _ = parse(&body);
        }
    }

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            hex(&blob_oid(b"hello\n")),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(
            from_hex("ce013625030ba8dba906f756967f9e9ca394464a"),
            Some(blob_oid(b"hello\n"))
        );
        assert_eq!(from_hex("zz"), None);
    }
}
