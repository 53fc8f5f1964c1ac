//! Level 4 keeps behaviour: a program whose values log every truth test, equality and
//! containment asked of them prints the same under many seeds, with every function
//! rewritten, while the rewritten text differs from the original.

use std::path::PathBuf;

use schrodinger::transform::rewrite::Rewriter;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/level4")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn run(src: &[u8]) -> (bool, Vec<u8>, Vec<u8>) {
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(std::str::from_utf8(src).unwrap())
        .output()
        .expect("python3 runs");
    (out.status.success(), out.stdout, out.stderr)
}

#[test]
fn logged_dunders_are_called_the_same_under_every_seed() {
    let orig = fixture("logged.py");
    let want = run(&orig);
    assert!(want.0, "{}", String::from_utf8_lossy(&want.2));
    let mut views = std::collections::BTreeSet::new();
    for seed in 0..24u64 {
        let r = Rewriter::new(seed, 100);
        let view = r.apply(b"pkg/logged.py", &orig);
        assert_eq!(
            r.apply(b"pkg/logged.py", &view),
            orig,
            "seed {seed}: involution"
        );
        let got = run(&view);
        assert_eq!(
            (got.0, &got.1),
            (want.0, &want.1),
            "seed {seed}:\n{}\n{}",
            String::from_utf8_lossy(&view),
            String::from_utf8_lossy(&got.2)
        );
        views.insert(view);
    }
    assert!(!views.contains(&orig) || views.len() > 1);
    assert!(
        views.len() > 12,
        "only {} distinct views of 24 seeds",
        views.len()
    );
    // With every rule on every function, each rule has sites here.
    let all = Rewriter::new(0, 100).forcing(
        [(
            b"pkg/logged.py".to_vec(),
            [
                "branch",
                "branch_negated",
                "branch_not",
                "nested",
                "equalities",
                "negations",
                "loop_conditions",
                "compare_many",
                "conditionals",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        )]
        .into(),
    );
    let view = String::from_utf8(all.apply(b"pkg/logged.py", &orig)).unwrap();
    for needle in [
        "if not c:\n        log.append('else')",
        "[1 == x, 1 != x, x == 's', x != None, x == 2.5, x == True]",
        "[x is not None, not x is y, x not in y, not x in y]",
        "while not a or not b:",
        "while not (a and b):",
        "out.append('f' if not x else 't')",
        "out.append(None if x else x)",
        "out.append(2 if not (x in [0, 1, 'a']) else 1)",
        "out.append(4 if not (not x in (None, 2.5)) else 3)",
    ] {
        assert!(view.contains(needle), "{needle} missing in\n{view}");
    }
    assert_eq!(run(view.as_bytes()).1, want.1);
}
