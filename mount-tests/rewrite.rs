//! Level 4 through a real mount: function bodies are shown rewritten, Python runs the view
//! the same, and `sed -i` through the view changes only the edited function's lines of the
//! original, in the original's spelling everywhere else.

use std::fs;

use schrodinger::transform::rewrite::Rewriter;

use crate::harness::{python3, run_ok, sh_ok, Repo};

const CART: &str = "\
def total(items, discount=None):
    if discount is not None:
        rate = 1 - discount
    else:
        rate = 1
    return sum(p for p in items if p != 0) * rate


def label(kind):
    return 'sale' if kind == 'promo' else 'full'


def keep(code):
    return code not in ('x', 'y')
";

const CALLS: &str = "import shop.cart as c\n\
    print(c.total([1, 2, 0]), c.total([3], 0.5), c.label('promo'), c.label('x'), c.keep('x'), c.keep('z'))\n";

#[test]
fn rewritten_bodies_run_the_same_and_edits_land_minimal() {
    let test = "rewritten_bodies_run_the_same_and_edits_land_minimal";
    let repo = Repo::with_files(&[("shop/__init__.py", ""), ("shop/cart.py", CART)]);
    let Some(m) = repo.mount_with(test, "mnt", 5, &["--levels", "4", "--rewrite-share", "100"])
    else {
        return;
    };
    let r = Rewriter::new(5, 100);
    let module = m.path("shop/cart.py");
    let view = fs::read_to_string(&module).unwrap();
    assert_eq!(view.as_bytes(), r.apply(b"shop/cart.py", CART.as_bytes()));
    assert_ne!(view, CART, "seed 5 rewrites something in every function");

    let run =
        |root: &std::path::Path| run_ok(python3().current_dir(root).arg("-B").arg("-c").arg(CALLS));
    assert_eq!(run(&m.point), run(&repo.orig));

    // `sed -i` changes one string of `label` in the view; the view reads back what sed
    // wrote, and the original changes in that one line, in its own spelling.
    let (old, new) = if view.contains("\"full\"") {
        ("\"full\"", "\"part\"")
    } else {
        ("'full'", "'part'")
    };
    sh_ok(&m.point, &format!("sed -i 's/{old}/{new}/' shop/cart.py"));
    let written = fs::read_to_string(&module).unwrap();
    assert_eq!(written, view.replace(old, new));
    m.unmount();
    let after = fs::read_to_string(repo.orig.join("shop/cart.py")).unwrap();
    assert_eq!(after, CART.replace("'full'", "'part'"));
}

/// With renames and reordering too, the view still runs the same, and reading every file
/// and writing it back unchanged leaves the original as it was (law 1).
#[test]
fn levels_two_three_four_round_trip_and_run_the_same() {
    let test = "levels_two_three_four_round_trip_and_run_the_same";
    let repo = Repo::with_files(&[("shop/__init__.py", ""), ("shop/cart.py", CART)]);
    let Some(m) = repo.mount_with(
        test,
        "mnt",
        5,
        &["--levels", "2,3,4", "--rewrite-share", "100"],
    ) else {
        return;
    };
    let calls = repo.translate(5, "view", CALLS);
    let on_view = run_ok(python3().current_dir(&m.point).arg("-c").arg(&calls));
    let on_orig = run_ok(
        python3()
            .current_dir(&repo.orig)
            .arg("-B")
            .arg("-c")
            .arg(CALLS),
    );
    assert_eq!(on_view, on_orig);
    sh_ok(
        &m.point,
        "for f in $(find . -name '*.py' -not -path './.git/*'); do cat \"$f\" > /tmp/.l4rt && cat /tmp/.l4rt > \"$f\"; done",
    );
    m.unmount();
    assert_eq!(
        repo.status(),
        "",
        "writing the view back unchanged changes nothing"
    );
}

/// `--rewrite-regions` rewrites exactly the functions a region overlaps, even with no share
/// (an evaluator naming the functions of a gold patch); `map` counts them.
#[test]
fn regions_name_the_functions_that_are_rewritten() {
    let repo = Repo::with_files(&[("shop/__init__.py", ""), ("shop/cart.py", CART)]);
    let regions = repo.dir.path().join("regions.txt");
    // Line 10 is the body of `label`.
    fs::write(&regions, "# the gold patch\nshop/cart.py:10\n").unwrap();
    let out = repo.dir.path().join("view");
    let args = [
        "--seed",
        "5",
        "--levels",
        "4",
        "--rewrite-share",
        "0",
        "--rewrite-regions",
        regions.to_str().unwrap(),
    ];
    crate::harness::schrodinger_ok(
        &[
            &["export".as_ref()],
            &args.map(std::ffi::OsStr::new)[..],
            &[repo.orig.as_os_str(), out.as_os_str()],
        ]
        .concat(),
        b"",
    );
    let view = fs::read_to_string(out.join("shop/cart.py")).unwrap();
    let (o, v): (Vec<&str>, Vec<&str>) = (CART.lines().collect(), view.lines().collect());
    let changed: Vec<usize> = (0..o.len()).filter(|&i| o[i] != v[i]).collect();
    assert_eq!(changed, [9], "only label's body changes:\n{view}");
    let summary = String::from_utf8(crate::harness::schrodinger_ok(
        &[
            &["map".as_ref()],
            &args.map(std::ffi::OsStr::new)[..],
            &[repo.orig.as_os_str()],
        ]
        .concat(),
        b"",
    ))
    .unwrap();
    assert!(
        summary.contains("functions rewritten      1 of 3"),
        "{summary}"
    );
    // A region with no function in it is an error that says so.
    fs::write(&regions, "shop/cart.py:7\n").unwrap();
    let bad = crate::harness::schrodinger(
        &[
            &["map".as_ref()],
            &args.map(std::ffi::OsStr::new)[..],
            &[repo.orig.as_os_str()],
        ]
        .concat(),
        b"",
    );
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no function there"));
}
