//! Law 10 for patches, as a property: random edit sequences made through the view's
//! transform exactly as the mount makes them (each write inverted against the original it
//! replaces, renames carrying their layout), then the view's `git diff` against its base,
//! translated `--to original`, is byte for byte the original's `git diff`; and the original's
//! diff translated `--to view` and back is itself again. With and without `--binary`, with
//! Level 2 alone and with Levels 2 and 3.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;

use schrodinger::bundle::{build_with_env, BuildOptions, EnvScan, Progress, Tree, TreeFile};
use schrodinger::cli::patch::{translate_patch, Coords};
use schrodinger::cli::{transform_of, Direction};
use schrodinger::transform::{Composite, Transform};

const LEDGER: &str = "\"\"\"Loans.\"\"\"\n\nimport os\n\n\nclass LoanLedger:\n    def __init__(self):\n        self.entries = []\n\n    def record_loan(self, shelf_code):\n        self.entries.append(shelf_code)\n        return len(self.entries)\n\n    def total_fines(self):\n        return sum(1 for _ in self.entries)\n\n\ndef open_ledger(path):\n    return LoanLedger()\n\n\ndef close_ledger(ledger):\n    return ledger.total_fines()\n\n\nLEDGER_PATH = os.path.join(\"data\", \"ledger.json\")\n";
const DESK: &str = "from .ledger import LoanLedger, open_ledger\n\n\ndef checkout_desk(shelf_code):\n    ledger = open_ledger(\"x\")\n    return ledger.record_loan(shelf_code)\n\n\ndef return_desk(shelf_code):\n    \"\"\"Give back shelf_code.\"\"\"\n    return shelf_code\n\n\nclass DeskClerk:\n    name = \"clerk\"\n\n    def greet(self):\n        return self.name\n";
const README: &str =
    "The LoanLedger keeps every loan.\nSee bookmobile/ledger.py and checkout_desk.\n";
const TEST: &str = "from bookmobile.desk import checkout_desk\n\n\ndef test_checkout_desk():\n    assert checkout_desk(\"A-1\") == 1\n";

fn tree() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("README.md", README.as_bytes().to_vec()),
        ("bookmobile/__init__.py", Vec::new()),
        ("bookmobile/ledger.py", LEDGER.as_bytes().to_vec()),
        ("bookmobile/desk.py", DESK.as_bytes().to_vec()),
        (
            "bookmobile/data/cover.bin",
            b"\x00\x01LoanLedger-free\xff".to_vec(),
        ),
        ("tests/test_desk.py", TEST.as_bytes().to_vec()),
    ]
}

fn composite(levels: Vec<u8>, seed: u64) -> Composite {
    let files = tree()
        .into_iter()
        .map(|(p, c)| TreeFile {
            rel: PathBuf::from(p),
            content: c,
        })
        .collect();
    let t = Tree {
        files,
        dirs: vec![
            PathBuf::from("bookmobile"),
            PathBuf::from("bookmobile/data"),
            PathBuf::from("tests"),
        ],
        generated: vec![],
    };
    let env = EnvScan {
        groups: [(
            String::new(),
            ["append", "join", "path", "sum", "len"]
                .map(String::from)
                .to_vec(),
        )]
        .into_iter()
        .collect(),
        modules: vec!["os".into()],
        builtins: vec!["len".into(), "sum".into()],
        ..EnvScan::default()
    };
    let opts = BuildOptions {
        seed,
        levels,
        python: PathBuf::from("python3"),
        freeze: vec![],
        cache_dir: None,
        rename_pure_locals: false,
        // With Level 4, every function rewritten: the most the patch has to see through.
        rewrite: schrodinger::bundle::RewriteOptions {
            share: 100,
            ..Default::default()
        },
    };
    let b = build_with_env(&t, &env, &opts, &Progress::hidden());
    assert!(!b.tokens.is_empty());
    transform_of(&b, None).unwrap()
}

fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    c
}

fn run(c: &mut Command) -> Vec<u8> {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{c:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Make `dir` hold exactly `files` (besides `.git`).
fn put_tree(dir: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) {
    if dir.exists() {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.file_name() != ".git" {
                let p = e.path();
                if p.is_dir() {
                    std::fs::remove_dir_all(p).unwrap();
                } else {
                    std::fs::remove_file(p).unwrap();
                }
            }
        }
    }
    for (rel, c) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, c).unwrap();
    }
}

fn commit(dir: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) {
    std::fs::create_dir_all(dir).unwrap();
    put_tree(dir, files);
    run(git(dir).args(["init", "-q", "-b", "main"]));
    run(git(dir).args(["add", "-A"]));
    run(git(dir).args(["commit", "-q", "-m", "base"]));
}

fn staged_diff(dir: &Path, files: &BTreeMap<PathBuf, Vec<u8>>, binary: bool) -> Vec<u8> {
    put_tree(dir, files);
    run(git(dir).args(["add", "-A"]));
    let mut c = git(dir);
    c.args(["diff", "--cached"]);
    if binary {
        c.arg("--binary");
    }
    run(&mut c)
}

#[derive(Debug, Clone)]
enum Op {
    Insert { file: usize, at: usize, text: usize },
    Delete { file: usize, at: usize },
    Replace { file: usize, at: usize, text: usize },
    AppendFunction { file: usize, name: usize },
    NewFile { name: usize, text: usize },
    Remove { file: usize },
    Move { file: usize, name: usize },
    Binary { file: usize },
}

/// Lines an edit writes in the view: view words, new words, a broken line.
const TEXTS: &[&str] = &[
    "    # a note about the ledger",
    "    return None",
    "x = 1",
    "def helper_loan(shelf_code):",
    "        pass",
    "\"\"\"",
    "import json",
];
const NAMES: &[&str] = &["ledger_extra", "shelf_audit", "fresh"];

fn op() -> impl Strategy<Value = Op> {
    let f = || 0usize..16;
    let t = || 0..TEXTS.len();
    let n = || 0..NAMES.len();
    prop_oneof![
        4 => (f(), 0usize..40, t()).prop_map(|(file, at, text)| Op::Insert { file, at, text }),
        3 => (f(), 0usize..40).prop_map(|(file, at)| Op::Delete { file, at }),
        3 => (f(), 0usize..40, t()).prop_map(|(file, at, text)| Op::Replace { file, at, text }),
        2 => (f(), n()).prop_map(|(file, name)| Op::AppendFunction { file, name }),
        1 => (n(), t()).prop_map(|(name, text)| Op::NewFile { name, text }),
        1 => f().prop_map(|file| Op::Remove { file }),
        1 => (f(), n()).prop_map(|(file, name)| Op::Move { file, name }),
        1 => f().prop_map(|file| Op::Binary { file }),
    ]
}

/// The view path of an original path.
fn view_path(t: &Composite, orig: &Path) -> PathBuf {
    orig.components()
        .map(|c| t.name_to_view(c.as_os_str()))
        .collect()
}

fn orig_path(t: &Composite, view: &Path) -> PathBuf {
    view.components()
        .map(|c| t.name_to_original(c.as_os_str()).unwrap())
        .collect()
}

/// Apply `ops` to the view as the mount would; returns (original before, view before,
/// original after, view after), keyed by each side's paths.
type Trees = BTreeMap<PathBuf, Vec<u8>>;
fn session(t: &Composite, ops: &[Op]) -> (Trees, Trees, Trees, Trees) {
    let mut orig: Trees = tree()
        .into_iter()
        .map(|(p, c)| (PathBuf::from(p), c))
        .collect();
    let view_of = |o: &Trees| -> Trees {
        o.iter()
            .map(|(p, c)| (view_path(t, p), t.content_to_view(p, c)))
            .collect()
    };
    let orig0 = orig.clone();
    let view0 = view_of(&orig);
    for op in ops {
        let keys: Vec<PathBuf> = orig.keys().cloned().collect();
        let pick = |i: usize| keys[i % keys.len()].clone();
        match op {
            Op::Insert { file, at, text } | Op::Replace { file, at, text } => {
                let rel = pick(*file);
                let view = t.content_to_view(&rel, &orig[&rel]);
                if view.contains(&0) {
                    continue;
                }
                let mut lines: Vec<String> = String::from_utf8_lossy(&view)
                    .split_inclusive('\n')
                    .map(str::to_string)
                    .collect();
                let k = at % (lines.len() + 1);
                let line = format!("{}\n", TEXTS[*text]);
                if matches!(op, Op::Replace { .. }) && k < lines.len() {
                    lines[k] = line;
                } else {
                    lines.insert(k, line);
                }
                let new_view = lines.concat().into_bytes();
                let new = t.content_to_original(&rel, &new_view, Some(&orig[&rel]));
                orig.insert(rel, new);
            }
            Op::Delete { file, at } => {
                let rel = pick(*file);
                let view = t.content_to_view(&rel, &orig[&rel]);
                if view.contains(&0) {
                    continue;
                }
                let mut lines: Vec<&[u8]> = view.split_inclusive(|&b| b == b'\n').collect();
                if lines.is_empty() {
                    continue;
                }
                lines.remove(at % lines.len());
                let new = t.content_to_original(&rel, &lines.concat(), Some(&orig[&rel]));
                orig.insert(rel, new);
            }
            Op::AppendFunction { file, name } => {
                let rel = pick(*file);
                let view = t.content_to_view(&rel, &orig[&rel]);
                if view.contains(&0) {
                    continue;
                }
                let word = t.name_to_view(std::ffi::OsStr::new("shelf_code"));
                let new_view = [
                    &view[..],
                    format!(
                        "\n\ndef {}({}):\n    return {}\n",
                        NAMES[*name],
                        word.to_string_lossy(),
                        word.to_string_lossy()
                    )
                    .as_bytes(),
                ]
                .concat();
                let new = t.content_to_original(&rel, &new_view, Some(&orig[&rel]));
                orig.insert(rel, new);
            }
            Op::NewFile { name, text } => {
                let vrel = PathBuf::from(format!("bookmobile/{}.py", NAMES[*name]));
                let rel = orig_path(t, &vrel);
                if orig.contains_key(&rel) {
                    continue;
                }
                let content = format!("{}\n", TEXTS[*text]);
                let new = t.content_to_original(&rel, content.as_bytes(), None);
                orig.insert(rel, new);
            }
            Op::Remove { file } => {
                if orig.len() > 2 {
                    orig.remove(&pick(*file));
                }
            }
            Op::Move { file, name } => {
                let from = pick(*file);
                let ext = from
                    .extension()
                    .map(|e| format!(".{}", e.to_string_lossy()))
                    .unwrap_or_default();
                let vto = view_path(t, from.parent().unwrap())
                    .join(format!("{}_moved{ext}", NAMES[*name]));
                let to = orig_path(t, &vto);
                if orig.contains_key(&to) {
                    continue;
                }
                // As ViewFs::rename: the view bytes are carried, the layout moves.
                let view = t.content_to_view(&from, &orig[&from]);
                let bytes = orig.remove(&from).unwrap();
                t.renamed(&from, &to);
                let new = t.content_to_original(&to, &view, Some(&bytes));
                orig.insert(to, new);
            }
            Op::Binary { file } => {
                let rel = pick(*file);
                if orig[&rel].contains(&0) {
                    let mut b = orig[&rel].clone();
                    b.push(7);
                    orig.insert(rel, b);
                }
            }
        }
    }
    let view1 = view_of(&orig);
    (orig0, view0, orig, view1)
}

fn check(levels: Vec<u8>, seed: u64, ops: &[Op], binary: bool) -> Result<(), TestCaseError> {
    let t = composite(levels, seed);
    let (o0, v0, o1, v1) = session(&t, ops);
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    let view = dir.path().join("view");
    commit(&orig, &o0);
    commit(&view, &v0);
    let view_patch = staged_diff(&view, &v1, binary);
    let orig_patch = staged_diff(&orig, &o1, binary);
    let c = Coords {
        original: &orig,
        transform: &t,
        seed,
    };
    let got = translate_patch(&c, &view_patch, Direction::Original)
        .map_err(|e| TestCaseError::fail(format!("--to original: {e}")))?;
    prop_assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&orig_patch),
        "view patch:\n{}",
        String::from_utf8_lossy(&view_patch)
    );
    let to_view = translate_patch(&c, &orig_patch, Direction::View)
        .map_err(|e| TestCaseError::fail(format!("--to view: {e}")))?;
    let back = translate_patch(&c, &to_view, Direction::Original)
        .map_err(|e| TestCaseError::fail(format!("back: {e}")))?;
    prop_assert_eq!(
        String::from_utf8_lossy(&back),
        String::from_utf8_lossy(&orig_patch),
        "--to view gave:\n{}",
        String::from_utf8_lossy(&to_view)
    );
    // The view patch of the original's diff applies to the view's base (git applies no
    // `Binary files differ` section, which carries no data).
    let no_data = to_view
        .split(|&b| b == b'\n')
        .any(|l| l.starts_with(b"Binary files "));
    if !to_view.is_empty() && !no_data {
        let p = dir.path().join("to_view.patch");
        std::fs::write(&p, &to_view).unwrap();
        run(git(&view).args(["reset", "-q", "--hard", "HEAD"]));
        run(git(&view).args(["clean", "-q", "-fd"]));
        run(git(&view).arg("apply").arg(&p));
    }
    Ok(())
}

proptest! {
    // A fixed seed in CI, so a run tests what the last one did; `scripts/soak.sh` sets
    // PATCH_PROPS_RANDOM=1 for fresh cases (which found the known gap below).
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: if std::env::var_os("PATCH_PROPS_RANDOM").is_some() {
            proptest::test_runner::RngSeed::Random
        } else {
            proptest::test_runner::RngSeed::Fixed(0x5c4e_d123)
        },
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_view_patch_translates_to_the_original_diff(
        ops in prop::collection::vec(op(), 1..8),
        seed in 0u64..50,
        which in 0..3usize,
        binary in any::<bool>(),
    ) {
        let levels = [vec![2], vec![2, 3], vec![2, 3, 4]][which].clone();
        check(levels, seed, &ops, binary)?;
    }
}

/// A function appended at the end of a file the view shows in another order lands
/// elsewhere in the original: the patch must say where the mount put it.
#[test]
fn an_appended_function_in_a_reordered_file() {
    // Sorted original paths: README.md, bookmobile/__init__.py, bookmobile/data/cover.bin,
    // bookmobile/desk.py, bookmobile/ledger.py, tests/test_desk.py.
    let ops = [
        Op::AppendFunction { file: 4, name: 0 },
        Op::Insert {
            file: 3,
            at: 3,
            text: 0,
        },
    ];
    let mut reordered = 0;
    for seed in 0..6 {
        let t = composite(vec![2, 3], seed);
        let ledger = Path::new("bookmobile/ledger.py");
        let view = t.content_to_view(ledger, LEDGER.as_bytes());
        let renamed_only = composite(vec![2], seed).content_to_view(ledger, LEDGER.as_bytes());
        reordered += usize::from(view != renamed_only);
        check(vec![2, 3], seed, &ops, false).unwrap();
    }
    assert!(
        reordered > 0,
        "no seed reorders the file: the test would test nothing"
    );
}

/// A known gap, shrunk from the property (random cases): a function appended to a reordered
/// file plus a module-level statement inserted in the middle of its view. The original diff
/// cannot be turned into a view patch: no view the search tries writes back to the patched
/// original exactly. The tool must refuse, saying so, rather than give a wrong patch.
#[test]
fn known_gap_an_appended_function_and_an_inserted_statement_are_refused() {
    let ops = [
        Op::AppendFunction { file: 15, name: 0 },
        Op::Insert {
            file: 15,
            at: 28,
            text: 2,
        },
    ];
    let err = check(vec![2, 3], 25, &ops, false).expect_err("a known gap: see the comment");
    assert!(
        err.to_string()
            .contains("no view of the patched file writes back to it exactly"),
        "{err}"
    );
}

/// Shrunk from the property: with `--binary`, git gives full ids to binary sections only;
/// a text section of the same diff keeps abbreviated ids.
#[test]
fn binary_data_beside_a_text_edit() {
    let ops = [
        Op::Insert {
            file: 3,
            at: 0,
            text: 0,
        },
        Op::Binary { file: 14 },
    ];
    check(vec![2], 0, &ops, true).unwrap();
    check(vec![2], 0, &ops, false).unwrap();
}
