//! Spans of text that are never renamed, in every kind of text (Python strings and comments,
//! text files, free text): URLs, e-mail addresses, hostnames, versions and file extensions
//! the tree itself uses. Their runs become `Class::Fixed`; code runs are never touched (a
//! name in code is code, `a@b.c` there is a matrix product).
//!
//! Involution: a span is found from the bytes between runs, from words that start with a
//! digit (never runs, so never swapped) and from letters asked through [`Ask`] (the same
//! answer for a run and its image). Everything a span covers stays as it is, so the view
//! shows the same span and the same decisions are made there.
//!
//! - URL: from a scheme (`https://`, `git+ssh://`: the letters, digits, `+ . -` right before
//!   `://`) to the end of its chunk (the next whitespace, quote, backtick, bracket or `\`).
//!   Found from `://` alone, whatever the scheme's letters are. A scheme of one word that is
//!   none of [`KNOWN_SCHEMES`] (asked) is the program's own (marshmallow's tests register
//!   `schemes=["marshmallow"]` and load `"marshmallow://app/x"`; pyotp builds
//!   `"otpauth://{0}/..."` from its `"totp"`): such a URL is the program's data, renamed
//!   like the words elsewhere, and no span. On a local host (`localhost`, `testserver`, asked;
//!   `127.0.0.1`) or a name reserved for examples and tests (`example.com`, `x.test`) only up
//!   to the path, which is the program's own route or data. The user information before an
//!   `@` in the authority (`http://userinfo@host/`) is never part of the span.
//! - `www.`: a chunk from a run that is `www` (asked) followed by a dot.
//! - e-mail: a chunk holding `@` with something before it and a dot after it.
//! - hostname: `label.label.tld` at a word boundary, whose last label is one of
//!   [`TOP_LEVEL`] (asked), up to the end of its chunk (`pypi.org/project/x`); a name
//!   reserved for examples (`www.example.com`) only up to its last label, as in a URL.
//! - version: a run right after `<number>.` (`dev0` in `1.0.dev0`, `post1`, `rc1`), where
//!   the dotted chain before it is numbers only (`seq.2.name` holds an index, not a version).
//! - extension: the last dot-separated parts of a path-like word (`data/x.toml`, `*.tar.gz`,
//!   `".toml"`) that are extensions of files in the tree (asked), as file names keep theirs.
//! - character reference: a run between `&` and `;` (`&apos;`, `&xyzzy;`), the name of an
//!   HTML or XML entity, which parsers look up in their own tables.

use super::Ask;
use crate::transform::lexer::{self, is_word_at, Class, Run};

/// URI schemes that outside programs define (registered ones and those of common clients and
/// databases): a URL with one of them is outside data from its first byte. Any other scheme
/// of one word is named by the program itself.
#[rustfmt::skip]
pub const KNOWN_SCHEMES: &[&str] = &[
    "about", "afp", "amqp", "amqps", "bzr", "cifs", "chrome", "dat", "data", "dav", "doi", "file",
    "ftp", "ftps", "gemini", "git", "gopher", "gs", "hdfs", "hg", "http", "https", "imap", "imaps",
    "ipfs", "ipns", "irc", "ircs", "jar", "jdbc", "kafka", "ldap", "ldaps", "magnet", "mailto",
    "mariadb", "memcache", "memcached", "mongodb", "mqtt", "mssql", "mysql", "news", "nfs", "nntp",
    "odbc", "oracle", "pop", "pop3", "postgres", "postgresql", "redis", "rediss", "resource",
    "rsync", "rtmp", "rtsp", "s3", "sftp", "sip", "sips", "smb", "smtp", "smtps", "snmp", "sqlite",
    "sqlite3", "ssh", "svn", "tcp", "tel", "telnet", "udp", "unix", "urn", "vnc", "webcal", "ws",
    "wss", "xmpp", "zmq",
];

/// Top-level domains the hostname rule recognises. The three-letter ones are frozen tokens
/// (`super::FROZEN_TOKENS`), so in a real bundle no run ever becomes or stops being one.
pub const TOP_LEVEL: &[&str] = &["com", "org", "net", "edu", "gov", "io"];

/// Bytes that end a chunk (a URL, an address, a path-like word).
fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'\x0b'
            | b'\x0c'
            | b'"'
            | b'\''
            | b'`'
            | b'('
            | b')'
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'<'
            | b'>'
            | b'\\'
    )
}

fn is_label_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// Make `Fixed` every non-code run of `runs` (sorted, from `s`) that lies in a protected span.
pub fn protect(s: &[u8], runs: &mut [Run], ask: &dyn Ask) {
    if runs.is_empty() {
        return;
    }
    let mut fixed: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if is_delim(s[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < s.len() && !is_delim(s[i]) {
            i += 1;
        }
        chunk(s, start, i, runs, ask, &mut fixed);
    }
    // Versions and extensions are decided per run. A run lies in a protected span when some
    // span starting before its end ends after its start: with the spans sorted by start,
    // the furthest end among those starting before the run's end says it (a file with
    // thousands of URLs and runs would otherwise compare every pair).
    fixed.sort_unstable();
    let furthest: Vec<usize> = fixed
        .iter()
        .scan(0, |m, &(_, b)| {
            *m = b.max(*m);
            Some(*m)
        })
        .collect();
    for r in runs.iter_mut() {
        if r.class == Class::Code || r.class == Class::Fixed {
            continue;
        }
        let before_end = fixed.partition_point(|&(a, _)| a < r.end);
        if (before_end > 0 && furthest[before_end - 1] > r.start)
            || after_number_dot(s, r.start)
            || is_entity_name(s, r)
        {
            r.class = Class::Fixed;
        }
    }
    extensions(s, runs, ask);
}

/// The run of `runs` that spans exactly `s[a..b]`, as a string.
fn run_at<'s>(s: &'s [u8], runs: &[Run], a: usize, b: usize) -> Option<&'s str> {
    let k = runs.partition_point(|r| r.start < a);
    let r = runs.get(k)?;
    (r.start == a && r.end == b)
        .then(|| std::str::from_utf8(&s[a..b]).ok())
        .flatten()
}

/// Hosts that serve the program under test (a test client's `localhost` and `testserver`,
/// loopback addresses): the path of a URL on one of them is the program's own route
/// (flask's `@app.route("/meh")` answers `http://localhost/meh`), so only the scheme, host
/// and port are protected.
const LOCAL_HOSTS: &[&str] = &["localhost", "testserver"];

/// Last labels of the names reserved for examples and tests (RFC 2606, RFC 6761): nothing
/// outside lives at `x.test`, and neither at `example.com`, `example.org` or `example.net`
/// ([`EXAMPLE_LABEL`] before one of [`EXAMPLE_TOP`]). A URL there is the program's own data
/// (markdown's wiki links render `[[WikiLink]]` as `http://example.com/WikiLink.html`), so
/// it counts as on a local host.
const RESERVED_TOP: &[&str] = &["example", "test", "invalid", "localhost"];
const EXAMPLE_LABEL: &str = "example";
const EXAMPLE_TOP: &[&str] = &["com", "org", "net"];

/// The end of the scheme, host and port of a URL whose host (from `h` to the next `/` before
/// `b`) is a local or reserved host, else `None`. The host's labels are runs asked through
/// [`Ask`], or a loopback address of digits and punctuation (never runs), so the view makes
/// the same decision.
fn local_url_end(s: &[u8], h: usize, b: usize, runs: &[Run], ask: &dyn Ask) -> Option<usize> {
    let end = s[h..b].iter().position(|&x| x == b'/').map_or(b, |k| h + k);
    let host_end = s[h..end]
        .iter()
        .position(|&x| x == b':')
        .map_or(end, |k| h + k);
    let host = &s[h..host_end];
    let mut labels = Vec::new();
    let mut at = h;
    for part in host.split(|&x| x == b'.') {
        labels.push(run_at(s, runs, at, at + part.len()));
        at += part.len() + 1;
    }
    let last = labels.last().copied().flatten();
    let before_last = labels.len().checked_sub(2).and_then(|k| labels[k]);
    let local = matches!(host, b"127.0.0.1" | b"0.0.0.0")
        || (labels.len() == 1 && last.is_some_and(|w| ask.is_one_of(w, LOCAL_HOSTS)))
        || is_reserved(last, before_last, ask);
    local.then_some(end)
}

/// Whether a host whose last two labels are these runs is reserved for examples and tests
/// (`x.test`, `example.com`).
fn is_reserved(last: Option<&str>, before_last: Option<&str>, ask: &dyn Ask) -> bool {
    last.is_some_and(|w| ask.is_one_of(w, RESERVED_TOP))
        || (last.is_some_and(|w| ask.is_one_of(w, EXAMPLE_TOP))
            && before_last.is_some_and(|w| ask.is_one_of(w, &[EXAMPLE_LABEL])))
}

/// Spans of the chunk `s[a..b]` (no delimiter inside).
fn chunk(s: &[u8], a: usize, b: usize, runs: &[Run], ask: &dyn Ask, out: &mut Vec<(usize, usize)>) {
    let c = &s[a..b];
    // URL: the scheme is the `[A-Za-z0-9+.-]` bytes right before `://`.
    if let Some(p) = c.windows(3).position(|w| w == b"://") {
        let mut st = a + p;
        while st > a
            && (s[st - 1].is_ascii_alphanumeric() || matches!(s[st - 1], b'+' | b'.' | b'-'))
        {
            st -= 1;
        }
        if st < a + p {
            let own = run_at(s, runs, st, a + p).is_some_and(|w| !ask.is_one_of(w, KNOWN_SCHEMES));
            if !own {
                // The user information before `@` (`http://userinfo@host/`) is the data of
                // whoever wrote the URL, never a host's: tests compare it with the same words
                // spelled alone (`parsed.userinfo == "userinfo"`).
                let h = a + p + 3;
                let authority = s[h..b]
                    .iter()
                    .position(|&x| matches!(x, b'/' | b'?' | b'#'))
                    .map_or(b, |k| h + k);
                let (from, host) = match s[h..authority].iter().rposition(|&x| x == b'@') {
                    Some(k) => {
                        out.push((st, h));
                        (h + k + 1, h + k + 1)
                    }
                    None => (st, h),
                };
                out.push((from, local_url_end(s, host, b, runs, ask).unwrap_or(b)));
            }
            return;
        }
    }
    // E-mail address.
    if let Some(at) = c.iter().position(|&x| x == b'@') {
        if at > 0
            && c[at + 1..]
                .windows(2)
                .any(|w| w[0] == b'.' && is_label_byte(w[1]))
        {
            out.push((a, b));
            return;
        }
    }
    // `www.` and hostnames: dotted label sequences at a word boundary.
    let mut i = a;
    while i < b {
        if !is_label_byte(s[i])
            || (i > a && (is_word_at(s, i - 1) || matches!(s[i - 1], b'.' | b'@' | b'-')))
        {
            i += 1;
            continue;
        }
        // Labels from i: the first, the last and how many (this runs for every dotted word
        // of every text, so nothing is collected).
        let mut j = i;
        let mut first = None;
        let mut last: (usize, usize) = (i, i);
        let mut before_last: Option<(usize, usize)>;
        let mut count = 0;
        loop {
            let ls = j;
            while j < b && is_label_byte(s[j]) {
                j += 1;
            }
            before_last = (count > 0).then_some(last);
            last = (ls, j);
            first.get_or_insert(last);
            count += 1;
            if j + 1 < b && s[j] == b'.' && is_label_byte(s[j + 1]) {
                j += 1;
                continue;
            }
            break;
        }
        // The host must end at a word boundary (`x.org_name` is no host).
        let ends_clean = j >= b || !is_word_at(s, j);
        if let (true, true, Some((fa, fb))) = (count >= 2, ends_clean, first) {
            let (la, lb) = last;
            let www = run_at(s, runs, fa, fb).is_some_and(|w| ask.is_one_of(w, &["www"]));
            let tld = run_at(s, runs, la, lb).is_some_and(|t| ask.is_one_of(t, TOP_LEVEL));
            if www || tld {
                // A name reserved for examples (`www.example.com`) is no outside host: what
                // follows it is the program's own data, as in a URL on it
                // (`"http%3A%2F%2Fwww.example.com%2F%3Fnext%3D%2Fbaz"`, quoted).
                let reserved = is_reserved(
                    run_at(s, runs, la, lb),
                    before_last.and_then(|(pa, pb)| run_at(s, runs, pa, pb)),
                    ask,
                );
                out.push((i, if reserved { j } else { b }));
                return;
            }
        }
        i = j.max(i + 1);
    }
}

/// Whether a run is the name of a character reference: `&` right before it, `;` right after.
fn is_entity_name(s: &[u8], r: &Run) -> bool {
    r.start >= 1 && s[r.start - 1] == b'&' && s.get(r.end) == Some(&b';')
}

/// Whether the byte before `start` is a dot after a chain of dot-separated words that each
/// start with a digit (`1.0.` before `dev0`, `2.` before `post1`). A number inside a dotted
/// path of names is an index, not a version (colander's flattened keys
/// `"schema.seq.2.tupstring"`, a JSON path `items.0.name`): the name after it is the
/// program's, renamed like the name it spells.
fn after_number_dot(s: &[u8], start: usize) -> bool {
    if start < 2 || s[start - 1] != b'.' {
        return false;
    }
    let mut dot = start - 1;
    let mut numbers = 0;
    loop {
        let mut k = dot;
        while k > 0 && is_word_at(s, k - 1) {
            k -= 1;
        }
        if k == dot || !s[k].is_ascii_digit() {
            // The chain must hold a number, and a word that opens it is no version.
            return numbers > 0 && k == dot;
        }
        numbers += 1;
        if k == 0 || s[k - 1] != b'.' {
            return true;
        }
        dot = k - 1;
    }
}

/// Keep the extension parts of path-like words: from the end of a word of `[A-Za-z0-9_*.-]`
/// bytes, each dot-separated part that is a whole run and a tree extension stays, back to the
/// first part that is not (the first part of the word is never an extension, except after a
/// leading dot: `".toml"`).
fn extensions(s: &[u8], runs: &mut [Run], ask: &dyn Ask) {
    let path_byte = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'*' | b'.' | b'-');
    for word in lexer::spans_of(s, path_byte) {
        let (a, i) = (word.start, word.end);
        // A word glued to non-ASCII bytes is not a path word of its own.
        if (a > 0 && s[a - 1] >= 0x80) || (i < s.len() && s[i] >= 0x80) {
            continue;
        }
        let mut end = i;
        while end > a && s[end - 1] == b'.' {
            end -= 1;
        }
        // Parts from the end.
        let mut e = end;
        while e > a {
            let Some(dot) = s[a..e].iter().rposition(|&x| x == b'.').map(|p| a + p) else {
                break;
            };
            let (ps, pe) = (dot + 1, e);
            let k = runs.partition_point(|r| r.start < ps);
            let Some(r) = runs.get(k).copied() else { break };
            if r.start != ps || r.end != pe || r.class == Class::Code {
                break;
            }
            let Ok(word) = std::str::from_utf8(&s[ps..pe]) else {
                break;
            };
            if !ask.is_extension(word) {
                break;
            }
            runs[k].class = Class::Fixed;
            e = dot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::formats::Plain;
    use crate::transform::lexer::text_runs;
    use std::collections::BTreeSet;

    fn fixed(t: &str, exts: &[&str]) -> Vec<String> {
        let set: BTreeSet<String> = exts.iter().map(|e| e.to_string()).collect();
        let ask = Plain {
            extensions: Some(&set),
        };
        let mut runs = text_runs(t.as_bytes());
        protect(t.as_bytes(), &mut runs, &ask);
        runs.iter()
            .filter(|r| r.class == Class::Fixed)
            .map(|r| t[r.start..r.end].to_string())
            .collect()
    }

    #[test]
    fn urls_from_any_scheme_to_the_chunk_end() {
        assert_eq!(
            fixed(
                "see https://docs.python.org/3/library (query) and git+ssh://host/repo.git x",
                &[]
            ),
            ["https", "docs", "python", "org", "library", "git", "ssh", "host", "repo", "git"]
        );
        assert_eq!(fixed("\"ftp://a/b\" query", &[]), ["ftp", "a", "b"]);
    }

    /// A URL whose scheme no outside program defines is the program's own data: nothing of
    /// it is kept. A scheme of several words stays whole.
    #[test]
    fn a_url_of_the_programs_own_scheme_is_not_protected() {
        assert_eq!(
            fixed("\"ledger://app/discounts\" redis://cache/0", &[]),
            ["redis", "cache"]
        );
        assert_eq!(
            fixed("ledger+ssh://host/x", &[]),
            ["ledger", "ssh", "host", "x"]
        );
    }

    /// The user information of a URL is the writer's data, not the host's: renamed like the
    /// same word alone, while the scheme, host and path stay.
    #[test]
    fn user_information_of_urls_is_not_protected() {
        assert_eq!(
            fixed(
                "http://query@svc.python.org:5432/a https://query:x@localhost/query http://q@",
                &[]
            ),
            [
                "http",
                "svc",
                "python",
                "org",
                "a",
                "https",
                "localhost",
                "http"
            ]
        );
        // An `@` after the authority is the path's.
        assert_eq!(
            fixed("https://pypi.org/query@x", &[]),
            ["https", "pypi", "org", "query", "x"]
        );
    }

    /// A URL on the host a test client serves the program under test from: its path is the
    /// program's route, renamed like the route's own string.
    #[test]
    fn paths_of_urls_on_local_hosts_are_not_protected() {
        assert_eq!(
            fixed(
                "http://localhost/meh http://testserver:80/query/x https://127.0.0.1:5000/query",
                &[]
            ),
            ["http", "localhost", "http", "testserver", "https"]
        );
        assert_eq!(
            fixed("http://localhosts/meh http://examples.com/query", &[]),
            [
                "http",
                "localhosts",
                "meh",
                "http",
                "examples",
                "com",
                "query"
            ]
        );
    }

    /// A URL on a name reserved for examples and tests is the program's data: its path is
    /// renamed like the words it is built from. Real hosts and look-alikes keep theirs.
    #[test]
    fn paths_of_urls_on_reserved_hosts_are_not_protected() {
        assert_eq!(
            fixed(
                "http://example.com/WikiLink.html https://www.example.org:8/a/b http://svc.test/q",
                &[]
            ),
            ["http", "example", "com", "https", "www", "example", "org", "http", "svc", "test"]
        );
        assert_eq!(
            fixed("http://example.io/q http://example.com.evil.net/r", &[]),
            ["http", "example", "io", "q", "http", "example", "com", "evil", "net", "r"]
        );
    }

    /// A bare host reserved for examples keeps only its own labels, as a URL on it does: a
    /// quoted URL (`%2F` for `/`, no `://`) holds its path as the program's data.
    #[test]
    fn paths_after_bare_reserved_hosts_are_not_protected() {
        assert_eq!(
            fixed(
                "http%3A%2F%2Fwww.example.com%2F%3Fnext%3D%2Fquery www.example.org/query",
                &[]
            ),
            ["www", "example", "com", "www", "example", "org"]
        );
        assert_eq!(
            fixed("www.example.io/query svc.example.com.org/query", &[]),
            ["www", "example", "io", "query", "svc", "example", "com", "org", "query"]
        );
    }

    #[test]
    fn emails_and_hostnames() {
        assert_eq!(
            fixed("mail dev_team@example.com now", &[]),
            ["dev_team", "example", "com"]
        );
        assert_eq!(
            fixed("pypi.org/project/query www.query.example fine.query", &[]),
            ["pypi", "org", "project", "query", "www", "query", "example"]
        );
        // Not hosts: no top-level domain, glued to a word, or a decorator.
        assert!(fixed("pkg.mod.query x.org_name @query.org", &[]).is_empty());
    }

    #[test]
    fn versions_after_a_number_and_a_dot() {
        assert_eq!(
            fixed("1.0.dev0 2.post1 v1.query 3.rc1", &[]),
            ["dev0", "post1", "rc1"]
        );
        // An index in a dotted path of names is no version.
        assert!(fixed("seq.2.query items.0.1.query", &[]).is_empty());
        assert_eq!(fixed("(1.2.query)", &[]), ["query"]);
    }

    /// pyparsing's tests spell `"Don&apos;t"` while its code has a name `APOS`: the entity
    /// stays, whatever the code calls its words.
    #[test]
    fn names_of_character_references() {
        assert_eq!(
            fixed("Don&apos;t &amp;&query; & query; &query query;", &[]),
            ["apos", "amp", "query"]
        );
    }

    #[test]
    fn tree_extensions_at_the_end_of_path_words() {
        assert_eq!(
            fixed(
                "data/query.toml *.tar.gz \".toml\" toml x.toml.query cfg.mod",
                &["toml", "tar", "gz"]
            ),
            ["toml", "tar", "gz", "toml"]
        );
    }
}
