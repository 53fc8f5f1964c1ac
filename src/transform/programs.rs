//! The outside programs a Python file starts by name.
//!
//! A test that runs `openssl pkcs8 -outform der` speaks the program's language: its options,
//! formats and names (`der`, the curve `secp112r1`) are the program's, whatever the
//! repository calls its own module `der.py`; and the program's output (`openssl ecparam
//! -list_curves`) is compared with the repository's literals. A program is outside code, so
//! the words it holds are outside names (`policy`, `FreezeReason::Program`); this module only
//! finds which programs a file runs, the caller reads them.
//!
//! Found: the first argument of a process call (`subprocess.Popen`, `run`, `call`,
//! `check_call`, `check_output`, `getoutput`, `getstatusoutput`, the bare names
//! `Popen`, `check_call`, `check_output` imported from it, `os.system`, `os.popen`,
//! `os.exec*`, `os.spawn*`, asyncio's `create_subprocess_exec` and `_shell`) when it is
//! - a list whose first item is a string literal (`["git", "log"]`): that literal;
//! - a string literal (`os.system("less -R")`): its first word;
//! - a list whose first item is a plain name (`[OPENSSL] + cmd.split()`) that the file binds
//!   to a string literal (`OPENSSL = "openssl"`): that literal.
//!
//! The name returned is the program's file name (a path keeps its last component). Anything
//! else (a name built at run time, `sys.executable`, an attribute) is not followed: a program
//! missed keeps its words renamable, as before this rule.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::bytes::Regex;

/// The process calls, each with the word boundaries it needs: `\b` before a name,
/// `(?:^|[^.\w])` before a bare imported one.
const CALLS: [(&str, &str); 4] = [
    (
        r"\b",
        r"subprocess\s*\.\s*(?:Popen|run|call|check_call|check_output|getoutput|getstatusoutput)",
    ),
    (r"(?:^|[^.\w])", r"(?:Popen|check_call|check_output)"),
    (r"\b", r"os\s*\.\s*(?:system|popen|exec\w*|spawn\w*)"),
    (r"\b", r"create_subprocess_(?:exec|shell)"),
];

/// The alternatives of [`CALLS`], with their boundaries or without, up to the first argument.
fn calls_pattern(bounded: bool) -> String {
    let alternatives: Vec<String> = CALLS
        .iter()
        .map(|(before, call)| format!("{}{call}", if bounded { *before } else { "" }))
        .collect();
    format!(r"(?:{})\s*\(\s*", alternatives.join("|"))
}

/// A process call up to its first argument.
static CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&calls_pattern(true)).expect("a valid pattern"));

/// `CALL` without the word boundaries: a file with no match of this has none of `CALL`.
/// Unicode word boundaries keep the regex engine off its fast automata for text outside
/// ASCII, and most files start no program, so they are ruled out by this first.
static CALL_ANYWHERE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&calls_pattern(false)).expect("a valid pattern"));

/// What follows the call's `(`: a list opening with a literal or a name, or a literal.
static FIRST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?x)^(?:
            \[\s*[rRbBuU]{0,2}(?:"(?P<item>[^"\s]+)"|'(?P<item2>[^'\s]+)')
          | \[\s*(?P<name>[A-Za-z_]\w*)\s*[\],]
          | [rRbBuU]{0,2}(?:"\(?(?P<cmd>[^"\s(){}]+)|'\(?(?P<cmd2>[^'\s(){}]+))
        )"#,
    )
    .expect("a valid pattern")
});

/// `NAME = "literal"` at the start of a line.
static BINDING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?m)^[ \t]*(?P<name>[A-Za-z_]\w*)[ \t]*=[ \t]*[rRbBuU]{0,2}(?:"(?P<v>[^"\s]+)"|'(?P<v2>[^'\s]+)')[ \t]*(?:#.*)?$"#)
        .expect("a valid pattern")
});

/// The file names of the programs `src` starts by name, in sorted order.
pub fn programs_run(src: &[u8]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut names: BTreeSet<&[u8]> = BTreeSet::new();
    if !CALL_ANYWHERE.is_match(src) {
        return out;
    }
    for m in CALL.find_iter(src) {
        let Some(c) = FIRST.captures(&src[m.end()..]) else {
            continue;
        };
        let literal = ["item", "item2", "cmd", "cmd2"]
            .iter()
            .find_map(|g| c.name(g));
        match (literal, c.name("name")) {
            (Some(l), _) => add(&mut out, l.as_bytes()),
            (None, Some(n)) => {
                names.insert(n.as_bytes());
            }
            _ => {}
        }
    }
    if !names.is_empty() {
        for c in BINDING.captures_iter(src) {
            if names.contains(&c["name"]) {
                if let Some(v) = c.name("v").or_else(|| c.name("v2")) {
                    add(&mut out, v.as_bytes());
                }
            }
        }
    }
    out
}

/// Keep a program's file name when it is one a program on `PATH` could have.
fn add(out: &mut BTreeSet<String>, spelled: &[u8]) {
    let base = spelled.rsplit(|&b| b == b'/').next().unwrap_or(spelled);
    let plausible = !base.is_empty()
        && base[0].is_ascii_alphabetic()
        && base
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+'));
    if plausible {
        if let Ok(s) = std::str::from_utf8(base) {
            out.insert(s.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(src: &str) -> Vec<String> {
        programs_run(src.as_bytes()).into_iter().collect()
    }

    #[test]
    fn a_list_opening_with_a_literal() {
        assert_eq!(
            found("out = check_output(['git', 'log', '--format=%aN'], cwd=root)"),
            ["git"]
        );
        assert_eq!(
            found("subprocess.check_call([\"/usr/bin/dot\", \"-Tsvg\", p])"),
            ["dot"]
        );
    }

    #[test]
    fn a_command_string_gives_its_first_word() {
        assert_eq!(found("if os.system('(less) 2>/dev/null') == 0:"), ["less"]);
        assert_eq!(found("os.popen(\"tput cols\").read()"), ["tput"]);
    }

    #[test]
    fn a_name_bound_to_a_literal_in_the_file() {
        // ecdsa's tests: the program held in a local, the command split from a string.
        let src = "def run_openssl(cmd):\n    OPENSSL = \"openssl\"\n    p = subprocess.Popen(\n        [OPENSSL] + cmd.split(),\n        stdout=subprocess.PIPE,\n    )\n";
        assert_eq!(found(src), ["openssl"]);
    }

    #[test]
    fn what_is_built_at_run_time_is_not_followed() {
        assert!(found("subprocess.run([sys.executable, '-c', code])").is_empty());
        assert!(found("subprocess.Popen(f'{editor} \"{filename}\"', shell=True)").is_empty());
        assert!(found("subprocess.run(args, check=True)").is_empty());
        // A name nothing binds to a literal.
        assert!(found("subprocess.Popen([command] + args)").is_empty());
    }

    #[test]
    fn text_outside_ascii_does_not_hide_a_call() {
        // The quick check that rules files out must not miss a call in such a file.
        assert_eq!(
            found("# r\u{e9}sum\u{e9}: \u{00e9}t\u{00e9}\nsubprocess.run([\"git\", \"log\"])"),
            ["git"]
        );
        // A word character before the name still makes it another name.
        assert!(found("\u{e9}Popen(['git'])").is_empty());
    }

    #[test]
    fn other_calls_named_alike_are_not_process_calls() {
        assert!(found("runner.run(['git'])").is_empty());
        assert!(found("self.check_output(escape, 'x')").is_empty());
        assert!(found("loop.call(['git'])").is_empty());
    }
}
