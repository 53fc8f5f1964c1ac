//! Problem statements in Markdown, rendered in view names with the rule the view uses for
//! each kind of text (`translate --statement`).
//!
//! - Fenced code blocks of Python (tagged `python`, `py`, `pycon`, ... or untagged) and
//!   inline code spans: the code rule, as the view renders a `.py` file (names in code
//!   renamed, strings and comments by the string rule).
//! - Tracebacks (a block holding `Traceback (most recent call last):` or `File "...", line
//!   N` lines): each quoted source line by the code rule, every other line (paths, the
//!   exception message) by the prose rule.
//! - Other blocks (shell sessions, logs) and prose (paths, test ids): the prose rule of
//!   `Renamer::swap_text`, which keeps URLs, e-mail addresses, hostnames and versions.
//!
//! Every segment is swapped by an involution and the lexer finds the same runs in a swapped
//! segment (law 3), so each run of the input pairs with the run at the same index of the
//! output: that pairing is the report of what each mentioned name became.

use super::lexer::{self, Run};
use super::rename::Renamer;

/// The rule a piece of a statement is rendered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    Code,
    Prose,
}

/// A piece of the statement: byte range and rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub start: usize,
    pub end: usize,
    pub rule: Rule,
    /// Inside a fenced block (what a paraphrase must leave as it is).
    pub fenced: bool,
}

/// Fence languages read as Python.
const PYTHON_FENCES: &[&str] = &["", "python", "py", "python3", "py3", "pycon", "ipython"];

/// Split a Markdown statement into pieces, in order, covering every byte.
pub fn pieces(md: &str) -> Vec<Piece> {
    let b = md.as_bytes();
    let mut out = Vec::new();
    let mut prose_from = 0;
    let mut i = 0;
    while i < b.len() {
        let line_end = md[i..].find('\n').map_or(b.len(), |k| i + k + 1);
        let line = &md[i..line_end];
        let fence = fence_of(line);
        if let Some((ch, n, lang)) = fence {
            // A fenced block: up to the closing fence of the same character, at least as long.
            let body_start = line_end;
            let mut j = body_start;
            let mut close = None;
            while j < b.len() {
                let e = md[j..].find('\n').map_or(b.len(), |k| j + k + 1);
                if let Some((c2, n2, l2)) = fence_of(&md[j..e]) {
                    if c2 == ch && n2 >= n && l2.is_empty() {
                        close = Some((j, e));
                        break;
                    }
                }
                j = e;
            }
            let (body_end, after) = close.unwrap_or((b.len(), b.len()));
            push_prose(md, prose_from, line_end, &mut out);
            block(md, body_start, body_end, &lang, &mut out);
            push_prose(md, body_end, after, &mut out);
            prose_from = after;
            i = after;
            continue;
        }
        i = line_end;
    }
    push_prose(md, prose_from, b.len(), &mut out);
    out
}

/// `(fence character, length, language)` when `line` opens or closes a fence.
fn fence_of(line: &str) -> Option<(u8, usize, String)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let ch = *t.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = t.bytes().take_while(|&c| c == ch).count();
    if n < 3 {
        return None;
    }
    let info = t[n..].trim();
    if ch == b'`' && info.contains('`') {
        return None;
    }
    let lang = info
        .split(|c: char| c.is_whitespace() || c == '{')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    Some((ch, n, lang))
}

/// Prose between `from` and `to`, with its inline code spans cut out as code.
fn push_prose(md: &str, from: usize, to: usize, out: &mut Vec<Piece>) {
    let b = md.as_bytes();
    let mut i = from;
    let mut start = from;
    while i < to {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let n = b[i..to].iter().take_while(|&&c| c == b'`').count();
        let open_end = i + n;
        // The closing run of exactly n backticks.
        let mut j = open_end;
        let mut close = None;
        while j < to {
            if b[j] == b'`' {
                let m = b[j..to].iter().take_while(|&&c| c == b'`').count();
                if m == n {
                    close = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(c) => {
                piece(start, open_end, Rule::Prose, false, out);
                piece(open_end, c, Rule::Code, false, out);
                start = c;
                i = c + n;
            }
            None => i = open_end,
        }
    }
    piece(start, to, Rule::Prose, false, out);
}

fn piece(start: usize, end: usize, rule: Rule, fenced: bool, out: &mut Vec<Piece>) {
    if start < end {
        out.push(Piece {
            start,
            end,
            rule,
            fenced,
        });
    }
}

fn is_traceback(body: &str) -> bool {
    body.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("Traceback (most recent call last)")
            || (t.starts_with("File \"") && t.contains("\", line "))
    })
}

/// The pieces of a fenced block's body.
fn block(md: &str, from: usize, to: usize, lang: &str, out: &mut Vec<Piece>) {
    let body = &md[from..to];
    if is_traceback(body) || lang == "pytb" {
        // The line after a `File "...", line N` line is the source line it quotes.
        let mut i = from;
        let mut source_next = false;
        for line in body.split_inclusive('\n') {
            let rule = if source_next && line.starts_with("    ") {
                Rule::Code
            } else {
                Rule::Prose
            };
            let t = line.trim_start();
            source_next = t.starts_with("File \"") && t.contains("\", line ");
            piece(i, i + line.len(), rule, true, out);
            i += line.len();
        }
        return;
    }
    let rule = if PYTHON_FENCES.contains(&lang) {
        Rule::Code
    } else {
        Rule::Prose
    };
    piece(from, to, rule, true, out);
}

/// Swap one piece by its rule.
pub fn swap_piece(r: &Renamer, text: &str, rule: Rule) -> String {
    match rule {
        Rule::Prose => r.swap_text(text),
        Rule::Code => {
            let out = r.swap_content(b"statement.py", text.as_bytes());
            String::from_utf8(out.into_owned()).unwrap_or_else(|_| text.to_string())
        }
    }
}

/// The runs of a piece, as its rule lexes them.
pub fn runs_of(text: &str, rule: Rule) -> Vec<Run> {
    match rule {
        Rule::Prose => lexer::text_runs(text.as_bytes()),
        Rule::Code => lexer::python_runs(text.as_bytes()),
    }
}

/// One name as the statement has it and as it was rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendering {
    pub input: String,
    pub output: String,
    pub rule: Rule,
}

/// The statement rendered, with every run's rendering (in order).
pub struct Rendered {
    pub text: String,
    pub runs: Vec<Rendering>,
    /// The rendered fenced blocks (bodies), in order.
    pub fenced: Vec<String>,
}

/// Render `md` with `r` (an involution: the same call takes a view statement back).
pub fn render(md: &str, r: &Renamer) -> Rendered {
    let mut text = String::with_capacity(md.len() + 64);
    let mut runs = Vec::new();
    for p in pieces(md) {
        let src = &md[p.start..p.end];
        let out = swap_piece(r, src, p.rule);
        let a = runs_of(src, p.rule);
        let b = runs_of(&out, p.rule);
        for (x, y) in a.iter().zip(b.iter()) {
            runs.push(Rendering {
                input: src[x.start..x.end].to_string(),
                output: out[y.start..y.end].to_string(),
                rule: p.rule,
            });
        }
        text.push_str(&out);
    }
    // Read back from the output the way a paraphrase of it is read (`fenced_bodies`).
    let fenced = fenced_bodies(&text);
    Rendered { text, runs, fenced }
}

/// The fenced block bodies of a statement, in order (to check that a paraphrase kept them).
pub fn fenced_bodies(md: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last_end = None;
    for p in pieces(md).into_iter().filter(|p| p.fenced) {
        if last_end == Some(p.start) {
            if let Some(f) = out.last_mut() {
                f.push_str(&md[p.start..p.end]);
            }
        } else {
            out.push(md[p.start..p.end].to_string());
        }
        last_end = Some(p.end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamer() -> Renamer {
        Renamer::new(
            [
                ("cart", "plum"),
                ("item", "brook"),
                ("shop", "tide"),
                ("total", "hinge"),
            ],
            ["call", "last"],
            ["Cart", "add_item", "shop", "cart", "total"],
        )
        .unwrap()
    }

    const STATEMENT: &str = "\
# `Cart.add_item()` loses the total

Calling `cart.add_item(x)` in shop/cart.py twice resets the total; see
https://github.com/shop/cart and the test tests/test_cart.py::test_total.

```python
cart = Cart()
cart.add_item(\"total\")  # the item count
```

```
Traceback (most recent call last):
  File \"/testbed/shop/cart.py\", line 3, in add_item
    self.total = total_of(item)
NameError: name 'total_of' is not defined
```

```console
$ python -m shop.cart
```
";

    #[test]
    fn each_kind_of_text_gets_its_rule() {
        let out = render(STATEMENT, &renamer());
        let t = &out.text;
        // Inline code and Python blocks: code rule.
        assert!(t.contains("`Plum.add_brook()`"), "{t}");
        assert!(t.contains("`plum.add_brook(x)`"), "{t}");
        assert!(
            t.contains("plum = Plum()\nplum.add_brook(\"hinge\")  # the item count"),
            "{t}"
        );
        // Prose: paths and test ids by the prose rule; a plain word the code does not use as
        // a name stays ("the item count" in a comment, "total" as a word is a code name).
        assert!(t.contains("in tide/plum.py twice resets the hinge;"), "{t}");
        assert!(t.contains("tests/test_plum.py::test_hinge"), "{t}");
        // URLs on real hosts are never renamed.
        assert!(t.contains("https://github.com/shop/cart"), "{t}");
        // A traceback: its source line by the code rule, the rest by the prose rule.
        assert!(
            t.contains("File \"/testbed/tide/plum.py\", line 3, in add_brook"),
            "{t}"
        );
        assert!(t.contains("    self.hinge = hinge_of(brook)\n"), "{t}");
        assert!(t.contains("Traceback (most recent call last):"), "{t}");
        assert!(t.contains("$ python -m tide.plum"), "{t}");
        // The swap is an involution: rendering the view statement gives the original back.
        assert_eq!(render(t, &renamer()).text, STATEMENT);
    }

    #[test]
    fn every_run_pairs_with_its_rendering() {
        let out = render(STATEMENT, &renamer());
        let add = out
            .runs
            .iter()
            .find(|x| x.input == "add_item")
            .expect("add_item mentioned");
        assert_eq!(add.output, "add_brook");
        assert_eq!(add.rule, Rule::Code);
        assert!(out
            .runs
            .iter()
            .any(|x| x.input == "cart" && x.output == "plum" && x.rule == Rule::Prose));
        assert_eq!(out.fenced.len(), 3);
        assert_eq!(fenced_bodies(&out.text), out.fenced);
    }

    #[test]
    fn unclosed_fences_and_backticks_are_safe() {
        for md in [
            "```python\ncart = 1\n",
            "`cart",
            "``",
            "~~~\n~~",
            "text ``` `x` ```",
        ] {
            let out = render(md, &renamer());
            assert_eq!(render(&out.text, &renamer()).text, md);
        }
    }
}
