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

/// icalendar's `CaselessDict` upper-cases its keys: a test's `{"byday": "su"}` reaches the
/// rule type kept under `"BYDAY"` (an outside word), so the lower case stays with it, even
/// though the test also names a parameter `byday`.
#[test]
fn a_lower_case_string_whose_upper_case_stays_stays() {
    let src: &[u8] = br#"
TYPES = {"BYDAY": 1, "BYWHEN": 2}

def check(byday, bywhen):
    return TYPES[byday.upper()], {"byday": "su", "bywhen": 1}
"#;
    let defined = set(&["TYPES", "check", "byday", "bywhen", "BYWHEN"]);
    let env = set(&["BYDAY", "upper"]);
    let f = analyze(&one_file(src, &env, &defined));
    assert!(f.frozen_owned.contains("byday"), "{:?}", f.owned_runs);
    assert_eq!(f.frozen_runs.get("byday"), Some(&FreezeReason::Outside));
    // Its upper case is the repository's own: renamed with it.
    assert!(f.owned_runs.contains("bywhen"), "{:?}", f.owned_runs);
    // Held only as a name, the lower case is renamed like any other.
    let no_data = String::from_utf8_lossy(src).replace("\"byday\": \"su\", ", "");
    let f = analyze(&one_file(no_data.as_bytes(), &env, &defined));
    assert!(f.owned_runs.contains("byday"), "{:?}", f.owned_runs);
}
