use super::dynamic_tests::one_file;
use super::*;

fn set(xs: &[&str]) -> BTreeSet<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

/// packaging's marker tokenizer matches `platform[._](machine|release)` and looks the
/// matched text up in a dict keyed like the TypedDict field `platform_machine`: the words
/// the pattern spells stay, so the field, the key and the marker text keep them.
#[test]
fn words_a_regular_expression_spells_stay() {
    let src: &[u8] = br#"
import re
VARIABLE = re.compile(r"platform[._](machine|release)")

class Environment:
    platform_machine: str
    platform_release: str
    machine_word: str

def lookup(env, text):
    return env[VARIABLE.match(text).group().replace(".", "_")]
"#;
    let defined = set(&[
        "VARIABLE",
        "Environment",
        "platform_machine",
        "platform_release",
        "machine_word",
        "lookup",
    ]);
    let env = set(&["re", "compile", "match", "group", "replace", "platform"]);
    let f = analyze(&one_file(src, &env, &defined));
    assert_eq!(f.frozen_tokens.get("machine"), Some(&FreezeReason::Pattern));
    assert_eq!(f.frozen_tokens.get("release"), Some(&FreezeReason::Pattern));
    assert!(
        f.frozen_owned.contains("platform_machine"),
        "{:?}",
        f.owned_runs
    );
    // Other words of the same names are still renamed.
    assert!(f.owned_runs.contains("machine_word"));
    assert!(f.owned_tokens.contains("word"));
    // Without the pattern, the words are the repository's like any other.
    let plain = String::from_utf8_lossy(src).replace("re.compile(", "str(");
    let f = analyze(&one_file(plain.as_bytes(), &env, &defined));
    assert!(!f.frozen_tokens.contains_key("machine"));
    assert!(f.owned_runs.contains("platform_machine"));
}

/// typeguard's tests match messages with `"(Runtime|Static)Protocol"`, which spells the
/// names of two of its classes by an alternation: the classes keep their names. A class the
/// alternation does not spell is renamed.
#[test]
fn names_spelled_by_an_alternation_keep_their_names() {
    let src: &[u8] = br#"
class RuntimeProtocol: pass
class StaticProtocol: pass
class OtherProtocol: pass
class WKBReader: pass
# Public classes for (WKB|WKT)Reader: a comment spells nothing a program reads.
def check(): pass
def test_it():
    with raises(TypeError, match="is not a (Runtime|Static)Protocol because"):
        check()
"#;
    let defined = set(&[
        "RuntimeProtocol",
        "StaticProtocol",
        "OtherProtocol",
        "WKBReader",
        "check",
        "test_it",
    ]);
    let env = set(&["raises", "TypeError", "match"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    for run in ["RuntimeProtocol", "StaticProtocol"] {
        assert_eq!(
            f.frozen_runs.get(run),
            Some(&FreezeReason::Pattern),
            "{run}"
        );
        assert!(!f.owned_runs.contains(run));
    }
    assert!(
        f.owned_runs.contains("OtherProtocol"),
        "{:?}",
        f.frozen_runs
    );
    assert!(f.owned_runs.contains("WKBReader"), "{:?}", f.frozen_runs);
}
