//! Level 3 through a real mount: the default view really reorders definitions (so the other
//! mount tests exercise the inverse), and a method edited through the view changes only that
//! method's lines in the original.

use std::fs;

use crate::harness::{git, run_ok, Repo};

/// Top-level `def`/`class` names and methods of a Python text, in order.
fn def_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let rest = t
                .strip_prefix("def ")
                .or_else(|| t.strip_prefix("class "))?;
            Some(rest.split(['(', ':']).next().unwrap_or("").to_string())
        })
        .collect()
}

#[test]
fn view_reorders_and_method_edit_stays_local() {
    let test = "view_reorders_and_method_edit_stays_local";
    let seed = 51;
    let repo = Repo::sample();
    let files = [
        "bookmobile/catalog.py",
        "bookmobile/desk.py",
        "bookmobile/ledger.py",
        "bookmobile/patrons.py",
        "bookmobile/rules/fines.py",
    ];
    let view_paths = repo.translate_many(seed, "view", &files);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    // Some file shows its definitions in another order (names translated back to compare).
    let mut reordered = None;
    for (orig_rel, view_rel) in files.iter().zip(&view_paths) {
        let orig = fs::read_to_string(repo.orig.join(orig_rel)).unwrap();
        let view = fs::read_to_string(m.path(view_rel)).unwrap();
        let back = repo.translate(seed, "original", &view);
        let (a, b) = (def_names(&orig), def_names(&back));
        let (mut sa, mut sb) = (a.clone(), b.clone());
        sa.sort();
        sb.sort();
        assert_eq!(
            sa, sb,
            "{orig_rel}: the view must hold the same definitions"
        );
        if a != b && reordered.is_none() {
            reordered = Some((orig_rel.to_string(), view_rel.clone(), view));
        }
    }
    let (orig_rel, view_rel, view) =
        reordered.expect("no sample file is reordered in the default view");

    // Edit the body of the first method whose `def` line is followed by a body line: append a
    // comment line after its `def` line, through the view.
    let lines: Vec<&str> = view.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.trim_start().starts_with("def "))
        .expect("a def in the view");
    let indent = lines[i + 1].len() - lines[i + 1].trim_start().len();
    // Translated now: the bundle is tied to the tree as it is before the edit.
    let def_line = repo.translate(seed, "original", lines[i]);
    let mut edited: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    edited.insert(
        i + 1,
        format!("{}# checked by the mount test", " ".repeat(indent)),
    );
    let mut text = edited.join("\n");
    text.push('\n');
    fs::write(m.path(&view_rel), &text).unwrap();
    assert_eq!(fs::read_to_string(m.path(&view_rel)).unwrap(), text);
    m.unmount();

    // The original changes by exactly that one added line, right after the same `def` line.
    let diff = run_ok(git(&repo.orig).args(["diff", "-U0", "--", &orig_rel]));
    let added: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect();
    let removed: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .collect();
    assert_eq!(added.len(), 1, "{diff}");
    assert!(removed.is_empty(), "{diff}");
    let after = fs::read_to_string(repo.orig.join(&orig_rel)).unwrap();
    let al: Vec<&str> = after.lines().collect();
    let k = al
        .iter()
        .position(|l| l.trim_end() == def_line.trim_end())
        .unwrap_or_else(|| panic!("`{def_line}` not in the original after the edit"));
    assert_eq!(al[k + 1].trim(), "# checked by the mount test", "{diff}");
}

/// Law 2 across a remount with the same `--state`: a function moved through the view stays
/// where the agent put it, though the original keeps its own order and a fresh plan of the
/// original would show another one.
#[test]
fn moved_function_reads_back_after_remount() {
    let test = "moved_function_reads_back_after_remount";
    let seed = 52;
    let repo = Repo::sample();
    let rel = "bookmobile/rules/fines.py";
    let view_rel = repo.view_path(seed, rel);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let view = fs::read_to_string(m.path(&view_rel)).unwrap();
    let text = last_function_first(&view);
    assert_ne!(text, view);
    fs::write(m.path(&view_rel), &text).unwrap();
    assert_eq!(fs::read_to_string(m.path(&view_rel)).unwrap(), text);
    m.unmount();
    // The original is still valid Python.
    run_ok(
        std::process::Command::new("python3")
            .args(["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())"])
            .arg(repo.orig.join(rel)),
    );
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    assert_eq!(
        fs::read_to_string(m.path(&view_rel)).unwrap(),
        text,
        "the remounted view does not show what was written"
    );
    m.unmount();
}

/// The view with its last top-level function moved before the first one.
fn last_function_first(view: &str) -> String {
    let lines: Vec<&str> = view.lines().collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("def "))
        .collect();
    assert!(starts.len() >= 2, "the file needs two functions:\n{view}");
    let (first, last) = (starts[0], starts[starts.len() - 1]);
    let trim = |v: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        while v.last().is_some_and(|l| l.trim().is_empty()) {
            v.pop();
        }
        v
    };
    let mut moved: Vec<String> = lines[..first].iter().map(|s| s.to_string()).collect();
    moved.extend(trim(&lines[last..]));
    moved.push(String::new());
    moved.push(String::new());
    moved.extend(trim(&lines[first..last]));
    let mut text = moved.join("\n");
    text.push('\n');
    text
}

/// The same across several write-backs of one mount: the first saves a snapshot of the
/// layouts, the later ones append to its journal (`fs::saved_state`); a remount replays both
/// and every file reads back as last written.
#[test]
fn edits_after_the_first_read_back_after_remount() {
    let test = "edits_after_the_first_read_back_after_remount";
    let seed = 53;
    let repo = Repo::sample();
    let rels = ["bookmobile/rules/fines.py", "bookmobile/rules/policies.py"];
    let view_rels: Vec<String> = rels.iter().map(|r| repo.view_path(seed, r)).collect();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let mut written = Vec::new();
    for v in &view_rels {
        let view = fs::read_to_string(m.path(v)).unwrap();
        let text = last_function_first(&view);
        assert_ne!(text, view);
        fs::write(m.path(v), &text).unwrap();
        written.push(text);
    }
    // The first file again, moved once more: its journal line is replayed after its first.
    let again = last_function_first(&written[0]);
    assert_ne!(again, written[0]);
    fs::write(m.path(&view_rels[0]), &again).unwrap();
    written[0] = again;
    m.unmount();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    for (v, text) in view_rels.iter().zip(&written) {
        assert_eq!(
            &fs::read_to_string(m.path(v)).unwrap(),
            text,
            "the remounted view of {v} does not show what was written"
        );
    }
    m.unmount();
}

/// Laws 4 and 9 through `fs/settle.rs`, as `sed -i` and editors save (a temp file renamed
/// over the file): the write-back of a reordered file may leave it in the view's order, and an
/// fsync of the file settles it before returning, so the original then differs from its
/// commit by exactly the added line, with the view unmounted or not; the view shows what was
/// written throughout.
#[test]
fn a_saved_edit_is_settled_when_fsync_returns() {
    let test = "a_saved_edit_is_settled_when_fsync_returns";
    let seed = 51;
    let repo = Repo::sample();
    let rel = "bookmobile/rules/fines.py";
    let view_rel = repo.view_path(seed, rel);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let view = fs::read_to_string(m.path(&view_rel)).unwrap();
    let back = repo.translate(seed, "original", &view);
    let orig = fs::read_to_string(repo.orig.join(rel)).unwrap();
    assert_ne!(
        def_names(&back),
        def_names(&orig),
        "{rel} must be reordered in the view under seed {seed}"
    );
    let text = format!("# saved through the view\n{view}");
    let tmp = m.path(&view_rel).with_extension("tmp-save");
    fs::write(&tmp, &text).unwrap();
    fs::rename(&tmp, m.path(&view_rel)).unwrap();
    assert_eq!(fs::read_to_string(m.path(&view_rel)).unwrap(), text);
    fs::File::open(m.path(&view_rel))
        .unwrap()
        .sync_all()
        .unwrap();
    let diff = repo.diff();
    assert_eq!(
        (&diff.removed, &diff.added),
        (&vec![], &vec!["# saved through the view".to_string()]),
        "{}",
        diff.raw
    );
    assert_eq!(fs::read_to_string(m.path(&view_rel)).unwrap(), text);
    m.unmount();
    assert_eq!(repo.diff(), diff);
}
