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
