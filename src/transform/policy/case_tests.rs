use super::dynamic_tests::one_file;
use super::*;

fn set(xs: &[&str]) -> BTreeSet<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

/// humanize looks its enum up by `Unit[minimum_unit.upper()]`, with the default
/// `minimum_unit="seconds"`: `seconds` is an outside name (`timedelta.seconds`), which
/// strings keep, so the member `SECONDS` keeps its name too.
#[test]
fn an_upper_case_run_whose_lower_case_stays_stays() {
    let src: &[u8] = br#"
class Unit(Enum):
    SECONDS = 2
    WEEKDAYS = 3

def naturaldelta(value, minimum_unit="seconds"):
    return Unit[minimum_unit.upper()]
"#;
    let defined = set(&[
        "Unit",
        "SECONDS",
        "WEEKDAYS",
        "naturaldelta",
        "minimum_unit",
    ]);
    let env = set(&["Enum", "seconds", "upper", "value"]);
    let f = analyze(&one_file(src, &env, &defined));
    assert_eq!(f.frozen_runs.get("SECONDS"), Some(&FreezeReason::Outside));
    assert!(f.frozen_owned.contains("SECONDS"));
    // An upper-case run whose lower case is the repository's own is renamed.
    assert!(f.owned_runs.contains("WEEKDAYS"), "{:?}", f.owned_runs);
    // Without the outside lower case, or without the string, the member is renamed like
    // any other.
    let f = analyze(&one_file(src, &set(&["Enum", "upper", "value"]), &defined));
    assert!(f.owned_runs.contains("SECONDS"));
    let no_data = String::from_utf8_lossy(src).replace("\"seconds\"", "None");
    let f = analyze(&one_file(no_data.as_bytes(), &env, &defined));
    assert!(f.owned_runs.contains("SECONDS"));
}
