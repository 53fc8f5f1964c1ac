//! Reading the headers of a diff in git's format: which files each section touches, how
//! (new, deleted, renamed, copied), their modes and blob ids, and what the hunks say about
//! the options the diff was made with (context lines, prefixes, binary data, full ids).
//!
//! Hunk contents are not interpreted here: `git apply` applies them. Paths are taken from
//! the unambiguous lines (`rename from`, `---`/`+++`) before the `diff --git` line, whose
//! two names cannot be told apart when they contain spaces unless they are equal.

/// One `diff --git` section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilePatch {
    /// Path before (without prefix); `None` for a new file.
    pub old: Option<Vec<u8>>,
    /// Path after; `None` for a deleted file.
    pub new: Option<Vec<u8>>,
    pub copy: bool,
    pub old_mode: Option<String>,
    pub new_mode: Option<String>,
    /// Blob ids of the `index` line (abbreviated or full).
    pub old_id: Option<String>,
    pub new_id: Option<String>,
    pub hunks: Vec<Hunk>,
    /// The section holds `GIT binary patch` data.
    pub binary_data: bool,
    /// The section says `Binary files ... differ` (no data: made without `--binary`).
    pub binary_marker: bool,
    /// Byte range of the section in the input.
    pub range: (usize, usize),
}

/// What a hunk header and its context lines say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: usize,
    pub old_len: usize,
    pub lead: usize,
    pub trail: usize,
}

/// A parsed diff.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    pub files: Vec<FilePatch>,
    /// Source and destination prefixes (`a/`, `b/`; empty with `--no-prefix`).
    pub prefixes: (Vec<u8>, Vec<u8>),
    /// Made with `--full-index` (seen on a section without binary data).
    pub full_index: bool,
}

impl Diff {
    pub fn has_binary_data(&self) -> bool {
        self.files.iter().any(|f| f.binary_data)
    }
    pub fn has_renames(&self) -> bool {
        self.files
            .iter()
            .any(|f| !f.copy && f.old.is_some() && f.new.is_some() && f.old != f.new)
    }
    pub fn has_copies(&self) -> bool {
        self.files.iter().any(|f| f.copy)
    }
}

/// Decode a path as git writes it: C-quoted (`"a/tab\there"`) or plain.
pub fn unquote(s: &[u8]) -> Option<Vec<u8>> {
    if s.first() != Some(&b'"') {
        return Some(s.to_vec());
    }
    let mut out = Vec::new();
    let mut i = 1;
    while i < s.len() {
        match s[i] {
            b'"' => return (i + 1 == s.len()).then_some(out),
            b'\\' => {
                let c = *s.get(i + 1)?;
                i += 2;
                match c {
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b't' => out.push(b'\t'),
                    b'n' => out.push(b'\n'),
                    b'v' => out.push(11),
                    b'f' => out.push(12),
                    b'r' => out.push(b'\r'),
                    b'0'..=b'7' => {
                        let d = s.get(i..i + 2)?;
                        if !d.iter().all(|x| (b'0'..=b'7').contains(x)) {
                            return None;
                        }
                        out.push(((c - b'0') << 6) | ((d[0] - b'0') << 3) | (d[1] - b'0'));
                        i += 2;
                    }
                    other => out.push(other),
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// A `---`/`+++` name: `None` for /dev/null.
type HeaderName = Option<Vec<u8>>;

/// A `---`/`+++` name: `/dev/null`, or a (possibly quoted) path; git ends a plain name that
/// holds a space with a tab.
fn header_name(rest: &[u8]) -> Option<Option<Vec<u8>>> {
    if rest == b"/dev/null" {
        return Some(None);
    }
    let rest = if rest.first() == Some(&b'"') {
        rest
    } else {
        rest.strip_suffix(b"\t").unwrap_or(rest)
    };
    unquote(rest).map(Some)
}

fn strip<'a>(p: &'a [u8], prefix: &[u8]) -> &'a [u8] {
    p.strip_prefix(prefix).unwrap_or(p)
}

/// Split `a/x b/x` (the `diff --git` names), for sections with no other path lines.
fn git_line_names(rest: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    if rest.first() == Some(&b'"') {
        // A quoted name ends at the first quote that no backslash escapes.
        let mut e = 1;
        while e < rest.len() && rest[e] != b'"' {
            e += if rest[e] == b'\\' { 2 } else { 1 };
        }
        let a = unquote(rest.get(..e + 1)?)?;
        let b = unquote(rest.get(e + 2..)?)?;
        return Some((a, b));
    }
    if let Some(q) = rest.iter().position(|&b| b == b'"') {
        let a = rest.get(..q.checked_sub(1)?)?.to_vec();
        return Some((a, unquote(&rest[q..])?));
    }
    // Unquoted: both names equal apart from their prefixes (no rename in such a section).
    let n = rest.len();
    if n % 2 == 0 {
        return None;
    }
    let half = n / 2;
    if rest[half] != b' ' {
        return None;
    }
    Some((rest[..half].to_vec(), rest[half + 1..].to_vec()))
}

fn parse_hunk_header(line: &[u8]) -> Option<(usize, usize, usize)> {
    let s = std::str::from_utf8(line).ok()?;
    let body = s.strip_prefix("@@ -")?;
    let (ranges, _) = body.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (os, ol) = range(old)?;
    let (_, nl) = range(new)?;
    Some((os, ol, nl))
}

/// Parse a diff in git's format. Anything before the first `diff --git` line (a mail header,
/// a commit message) is ignored; a diff without any such line is refused.
pub fn parse(input: &[u8]) -> Result<Diff, String> {
    let lines: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
    let mut offsets = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    for l in &lines {
        offsets.push(at);
        at += l.len();
    }
    offsets.push(at);
    let mut diff = Diff {
        prefixes: (b"a/".to_vec(), b"b/".to_vec()),
        ..Diff::default()
    };
    let mut prefix_known = false;
    let mut i = 0;
    let mut saw_any = false;
    while i < lines.len() {
        let line = trim_eol(lines[i]);
        let Some(rest) = line.strip_prefix(b"diff --git ") else {
            i += 1;
            continue;
        };
        saw_any = true;
        let mut f = FilePatch {
            range: (offsets[i], input.len()),
            ..FilePatch::default()
        };
        let names = git_line_names(rest);
        // `---`/`+++` names: `Some(None)` is /dev/null.
        let mut old: Option<HeaderName> = None;
        let mut new: Option<HeaderName> = None;
        let mut is_new = false;
        let mut is_deleted = false;
        i += 1;
        // Extended header lines.
        while i < lines.len() {
            let l = trim_eol(lines[i]);
            if l.starts_with(b"diff --git ") || l.starts_with(b"@@ ") {
                break;
            }
            if let Some(r) = l.strip_prefix(b"--- ") {
                old = Some(header_name(r).ok_or("bad --- line")?);
            } else if let Some(r) = l.strip_prefix(b"+++ ") {
                new = Some(header_name(r).ok_or("bad +++ line")?);
            } else if let Some(r) = l.strip_prefix(b"rename from ") {
                f.old = Some(unquote(r).ok_or("bad rename from line")?);
            } else if let Some(r) = l.strip_prefix(b"rename to ") {
                f.new = Some(unquote(r).ok_or("bad rename to line")?);
            } else if let Some(r) = l.strip_prefix(b"copy from ") {
                f.old = Some(unquote(r).ok_or("bad copy from line")?);
                f.copy = true;
            } else if let Some(r) = l.strip_prefix(b"copy to ") {
                f.new = Some(unquote(r).ok_or("bad copy to line")?);
                f.copy = true;
            } else if let Some(r) = l.strip_prefix(b"new file mode ") {
                is_new = true;
                f.new_mode = Some(String::from_utf8_lossy(r).into_owned());
            } else if let Some(r) = l.strip_prefix(b"deleted file mode ") {
                is_deleted = true;
                f.old_mode = Some(String::from_utf8_lossy(r).into_owned());
            } else if let Some(r) = l.strip_prefix(b"old mode ") {
                f.old_mode = Some(String::from_utf8_lossy(r).into_owned());
            } else if let Some(r) = l.strip_prefix(b"new mode ") {
                f.new_mode = Some(String::from_utf8_lossy(r).into_owned());
            } else if let Some(r) = l.strip_prefix(b"index ") {
                let r = String::from_utf8_lossy(r);
                let mut parts = r.split(' ');
                if let Some((a, b)) = parts.next().and_then(|ids| ids.split_once("..")) {
                    f.old_id = Some(a.to_string());
                    f.new_id = Some(b.to_string());
                }
                if let Some(mode) = parts.next() {
                    f.old_mode.get_or_insert_with(|| mode.to_string());
                    f.new_mode.get_or_insert_with(|| mode.to_string());
                }
            } else if l == b"GIT binary patch" {
                f.binary_data = true;
            } else if l.starts_with(b"Binary files ") && l.ends_with(b" differ") {
                f.binary_marker = true;
            }
            i += 1;
        }
        // Prefixes, from the first section whose names show them.
        if !prefix_known {
            if let (Some(Some(o)), Some(Some(n))) = (&old, &new) {
                let (po, pn) = prefix_pair(o, n);
                diff.prefixes = (po, pn);
                prefix_known = true;
            } else if let Some((a, b)) = &names {
                let (po, pn) = prefix_pair(a, b);
                diff.prefixes = (po, pn);
                prefix_known = true;
            }
        }
        let (pa, pb) = diff.prefixes.clone();
        if f.old.is_none() && !is_new {
            f.old = match &old {
                Some(Some(o)) => Some(strip(o, &pa).to_vec()),
                Some(None) => None,
                None => names.as_ref().map(|(a, _)| strip(a, &pa).to_vec()),
            };
        }
        if f.new.is_none() && !is_deleted {
            f.new = match &new {
                Some(Some(n)) => Some(strip(n, &pb).to_vec()),
                Some(None) => None,
                None => names.as_ref().map(|(_, b)| strip(b, &pb).to_vec()),
            };
        }
        if is_new {
            f.old = None;
        }
        if is_deleted {
            f.new = None;
        }
        if f.old.is_none() && f.new.is_none() {
            return Err(format!(
                "cannot read the file names of `{}`",
                String::from_utf8_lossy(line)
            ));
        }
        // Hunks.
        while i < lines.len() {
            let l = trim_eol(lines[i]);
            if l.starts_with(b"diff --git ") {
                break;
            }
            let Some((os, ol, nl)) = parse_hunk_header(l) else {
                i += 1;
                continue;
            };
            i += 1;
            let (mut o, mut n) = (0, 0);
            let mut body: Vec<u8> = Vec::new();
            while i < lines.len() && (o < ol || n < nl) {
                let l = lines[i];
                match l.first() {
                    Some(b' ') => {
                        o += 1;
                        n += 1;
                    }
                    Some(b'-') => o += 1,
                    Some(b'+') => n += 1,
                    Some(b'\\') => {}
                    // An empty line in a hunk is an empty context line (some tools strip the
                    // space).
                    Some(b'\n') | None => {
                        o += 1;
                        n += 1;
                    }
                    _ => return Err("a hunk ends before its line counts say".into()),
                }
                if l.first() != Some(&b'\\') {
                    body.push(match l.first() {
                        Some(b'\n') | None => b' ',
                        Some(c) => *c,
                    });
                }
                i += 1;
            }
            if i < lines.len() && lines[i].starts_with(b"\\") {
                i += 1;
            }
            let lead = body.iter().take_while(|&&c| c == b' ').count();
            let trail = if lead == body.len() {
                0
            } else {
                body.iter().rev().take_while(|&&c| c == b' ').count()
            };
            f.hunks.push(Hunk {
                old_start: os,
                old_len: ol,
                lead,
                trail,
            });
        }
        f.range.1 = offsets[i];
        // `--binary` gives binary sections full ids of their own: only other sections show
        // whether the diff was made with `--full-index`.
        if !f.binary_data {
            diff.full_index |= f.old_id.as_ref().is_some_and(|a| a.len() >= 40)
                && f.new_id.as_ref().is_some_and(|b| b.len() >= 40);
        }
        diff.files.push(f);
    }
    if !saw_any && !input.iter().all(u8::is_ascii_whitespace) {
        return Err("not a diff in git's format (no `diff --git` line)".into());
    }
    Ok(diff)
}

fn trim_eol(l: &[u8]) -> &[u8] {
    let l = l.strip_suffix(b"\n").unwrap_or(l);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// The prefixes of a pair of names: git's `a/`+`b/`, a mnemonic pair (`i/`, `w/`, `c/`,
/// `o/`), or none.
fn prefix_pair(a: &[u8], b: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let head = |p: &[u8]| -> Option<u8> {
        (p.len() > 2 && p[1] == b'/' && b"abciwo12".contains(&p[0])).then_some(p[0])
    };
    match (head(a), head(b)) {
        (Some(x), Some(y)) if x != y => (vec![x, b'/'], vec![y, b'/']),
        _ => (Vec::new(), Vec::new()),
    }
}

/// The number of context lines the diff was made with, when its hunks show it: `Some(n)`
/// from a hunk side that was not cut short by the start or end of the file (`old_lines`
/// gives each file's length before), else the largest context seen if it is more than
/// git's default.
pub fn context_lines(diff: &Diff, old_lines: &dyn Fn(usize) -> Option<usize>) -> Option<usize> {
    let mut exact = None;
    let mut seen = 0;
    for (k, f) in diff.files.iter().enumerate() {
        let Some(len) = old_lines(k) else { continue };
        for h in &f.hunks {
            if f.old.is_none() || f.new.is_none() {
                continue;
            }
            seen = seen.max(h.lead).max(h.trail);
            if h.old_start > 1 {
                exact = Some(exact.map_or(h.lead, |e: usize| e.max(h.lead)));
            }
            if h.old_len > 0 && h.old_start + h.old_len - 1 < len {
                exact = Some(exact.map_or(h.trail, |e: usize| e.max(h.trail)));
            }
        }
    }
    exact.or((seen > 3).then_some(seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_kind_of_header() {
        let d: Vec<u8> = [
            "diff --git a/pkg/m.py b/pkg/m.py",
            "index 1234567..89abcde 100644",
            "--- a/pkg/m.py",
            "+++ b/pkg/m.py",
            "@@ -1,3 +1,3 @@ def f():",
            " a",
            "-b",
            "+c",
            " d",
            "diff --git a/old name.py b/new name.py",
            "similarity index 90%",
            "rename from old name.py",
            "rename to new name.py",
            "diff --git a/n.py b/n.py",
            "new file mode 100755",
            "index 0000000..1111111",
            "--- /dev/null",
            "+++ b/n.py",
            "@@ -0,0 +1 @@",
            "+x",
            "\\ No newline at end of file",
            "diff --git a/gone.bin b/gone.bin",
            "deleted file mode 100644",
            "index 2222222..0000000",
            "Binary files a/gone.bin and /dev/null differ",
            "diff --git \"a/tab\\there\" \"b/tab\\there\"",
            "old mode 100644",
            "new mode 100755",
            "diff --git a/x b/y",
            "similarity index 100%",
            "copy from x",
            "copy to y",
        ]
        .map(|l| format!("{l}\n"))
        .concat()
        .into_bytes();
        let p = parse(&d).unwrap();
        let f = &p.files;
        assert_eq!(f.len(), 6);
        assert_eq!(f[0].old.as_deref(), Some(&b"pkg/m.py"[..]));
        assert_eq!(f[0].old_id.as_deref(), Some("1234567"));
        assert_eq!(f[0].new_mode.as_deref(), Some("100644"));
        assert_eq!(
            f[0].hunks,
            [Hunk {
                old_start: 1,
                old_len: 3,
                lead: 1,
                trail: 1
            }]
        );
        assert_eq!(f[1].old.as_deref(), Some(&b"old name.py"[..]));
        assert_eq!(f[1].new.as_deref(), Some(&b"new name.py"[..]));
        assert!(f[2].old.is_none() && f[2].new.as_deref() == Some(&b"n.py"[..]));
        assert_eq!(f[2].new_mode.as_deref(), Some("100755"));
        assert!(f[3].new.is_none() && f[3].old.as_deref() == Some(&b"gone.bin"[..]));
        assert_eq!(f[4].old.as_deref(), Some(&b"tab\there"[..]));
        assert_eq!(f[4].new_mode.as_deref(), Some("100755"));
        assert!(f[5].copy && f[5].new.as_deref() == Some(&b"y"[..]));
        assert!(p.has_renames() && p.has_copies() && !p.has_binary_data());
        assert_eq!(p.prefixes, (b"a/".to_vec(), b"b/".to_vec()));
    }

    #[test]
    fn no_prefix_and_refusals() {
        let p = parse(b"diff --git m.py m.py\n--- m.py\n+++ m.py\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
        assert_eq!(p.prefixes, (vec![], vec![]));
        assert_eq!(p.files[0].old.as_deref(), Some(&b"m.py"[..]));
        assert!(parse(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n").is_err());
        assert!(parse(b"").unwrap().files.is_empty());
        assert_eq!(unquote(b"\"a\\303\\251\""), Some("aé".as_bytes().to_vec()));
    }

    #[test]
    fn context_is_read_where_the_file_does_not_cut_it() {
        let d = parse(b"diff --git a/m b/m\n--- a/m\n+++ b/m\n@@ -3,3 +3,3 @@\n a\n-b\n+c\n d\n")
            .unwrap();
        // Starts after line 1 with one line of context, in a 10-line file: made with -U1.
        assert_eq!(context_lines(&d, &|_| Some(10)), Some(1));
        // A 4-line file: both sides are cut at the file's ends, so more context is possible.
        let d =
            parse(b"diff --git a/m b/m\n--- a/m\n+++ b/m\n@@ -1,4 +1,4 @@\n a\n-b\n+c\n d\n e\n")
                .unwrap();
        assert_eq!(context_lines(&d, &|_| Some(4)), None);
        let d =
            parse(b"diff --git a/m b/m\n--- a/m\n+++ b/m\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n").unwrap();
        assert_eq!(context_lines(&d, &|_| Some(2)), None);
    }
}
