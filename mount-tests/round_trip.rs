//! Law 1 (round trip) and law 8 (determinism) on real mounts.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::process::Command;

use crate::harness::{git, run_ok, show, walk, Entry, Repo, BIN};

/// Reading every file of the view and writing the same bytes back leaves the original clean.
#[test]
fn rewrite_every_file_keeps_original_clean() {
    let test = "rewrite_every_file_keeps_original_clean";
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", 14) else {
        return;
    };
    let tree = walk(&m.point, &[]);
    let mut files = 0;
    for (rel, e) in &tree {
        if let Entry::File(content) = e {
            let p = m.point.join(std::ffi::OsStr::from_bytes(rel));
            fs::write(&p, content).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
            assert_eq!(
                &fs::read(&p).unwrap(),
                content,
                "read after write differs: {}",
                show(rel)
            );
            files += 1;
        }
    }
    assert!(files >= 15, "only {files} files in the view");
    m.unmount();
    assert_eq!(
        repo.status(),
        "",
        "git status after rewriting the view unchanged"
    );
}

fn first_difference(
    a: &std::collections::BTreeMap<Vec<u8>, Entry>,
    b: &std::collections::BTreeMap<Vec<u8>, Entry>,
) -> Option<String> {
    let ka: Vec<_> = a.keys().collect();
    let kb: Vec<_> = b.keys().collect();
    if ka != kb {
        let only_a: Vec<String> = a
            .keys()
            .filter(|k| !b.contains_key(*k))
            .map(|k| show(k))
            .collect();
        let only_b: Vec<String> = b
            .keys()
            .filter(|k| !a.contains_key(*k))
            .map(|k| show(k))
            .collect();
        return Some(format!(
            "names differ: only in first {only_a:?}, only in second {only_b:?}"
        ));
    }
    a.iter()
        .find(|(k, e)| b[*k] != **e)
        .map(|(k, _)| format!("content of {} differs", show(k)))
}

/// Two mounts with the same seed show byte-identical trees (and `export` writes the same
/// bytes); another seed shows a different tree.
#[test]
fn same_seed_same_tree_other_seed_other_tree() {
    let test = "same_seed_same_tree_other_seed_other_tree";
    let repo = Repo::sample();
    let Some(a) = repo.mount(test, "a", 21) else {
        return;
    };
    let Some(b) = repo.mount(test, "b", 21) else {
        return;
    };
    let Some(c) = repo.mount(test, "c", 22) else {
        return;
    };
    let ta = walk(&a.point, &[]);
    let tb = walk(&b.point, &[]);
    let tc = walk(&c.point, &[]);
    a.unmount();
    b.unmount();
    c.unmount();
    assert!(ta.len() >= 20, "{} entries", ta.len());
    if let Some(d) = first_difference(&ta, &tb) {
        panic!("two mounts with seed 21 differ: {d}");
    }
    let d = first_difference(&ta, &tc).expect("seeds 21 and 22 give the same tree");
    assert!(d.starts_with("names differ"), "{d}");
    let differing = ta.iter().filter(|(k, e)| tc.get(*k) != Some(*e)).count();
    assert!(
        differing > ta.len() / 2,
        "seeds 21 and 22 differ in only {differing} entries"
    );

    let out = repo.dir.path().join("export-21");
    run_ok(
        Command::new(BIN)
            .args(["export", "--seed", "21"])
            .arg(&repo.orig)
            .arg(&out),
    );
    // An export is the work tree only: the shadow `.git` belongs to a mount.
    let work_tree = |t: &std::collections::BTreeMap<Vec<u8>, crate::harness::Entry>| {
        t.iter()
            .filter(|(k, _)| !(k.as_slice() == b".git" || k.starts_with(b".git/")))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    if let Some(d) = first_difference(&work_tree(&ta), &walk(&out, &[])) {
        panic!("export --seed 21 differs from the mount: {d}");
    }
}

/// A view mounted again with the same state directory serves the views its first scan
/// stored (`STATE/rendered`, `src/fs/rendered.rs`): every file reads back exactly as it did
/// in the first mount, and the daemon's log says how many stored views it loaded.
#[test]
fn a_remount_serves_the_views_the_first_mount_rendered() {
    let test = "a_remount_serves_the_views_the_first_mount_rendered";
    let seed = 29;
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let stored = m.state.join("rendered");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !stored.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(stored.exists(), "the first scan stored no views");
    let read_all = |root: &std::path::Path| walk(root, &[".git"]);
    let first = read_all(&m.point);
    assert!(first.len() > 10, "{first:?}");
    assert!(first.values().any(|e| matches!(e, Entry::File(_))));
    m.unmount();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let again = read_all(&m.point);
    let log = std::fs::read_to_string(m.state.join("schrodinger.log")).unwrap();
    m.unmount();
    assert_eq!(again, first, "the remounted view serves other bytes");
    assert!(
        log.contains("views rendered before, reused on first touch"),
        "{log}"
    );
}

/// `mount --prepare` mounts nothing and leaves a state directory that a later mount with the
/// same arguments serves at once: the saved bundle, the view's `.git`, and every file's view
/// rendered; the view it serves is byte for byte the one a first mount serves.
#[test]
fn a_prepared_state_directory_serves_the_same_view() {
    let test = "a_prepared_state_directory_serves_the_same_view";
    let seed = 31;
    let repo = Repo::sample();
    let point = repo.dir.path().join("prepared");
    let state = repo.dir.path().join("prepared.state");
    fs::create_dir_all(&point).unwrap();
    run_ok(
        Command::new(BIN)
            .args(["mount", "--prepare", "--seed", &seed.to_string(), "--state"])
            .arg(&state)
            .arg(&repo.orig)
            .arg(&point),
    );
    assert!(
        fs::read_dir(&point).unwrap().next().is_none(),
        "--prepare mounted something"
    );
    for f in ["bundle.json", "rendered", "scratch/.git/HEAD"] {
        assert!(state.join(f).exists(), "{f} missing after --prepare");
    }
    let Some(fresh) = repo.mount(test, "fresh", seed) else {
        return;
    };
    let want = walk(&fresh.point, &[".git"]);
    fresh.unmount();
    let Some(m) = repo.mount(test, "prepared", seed) else {
        return;
    };
    let got = walk(&m.point, &[".git"]);
    let status = run_ok(git(&m.point).args(["status", "--porcelain"]));
    let log = fs::read_to_string(m.state.join("schrodinger.log")).unwrap();
    m.unmount();
    assert_eq!(got, want, "the prepared view differs from a first mount's");
    assert_eq!(status, "", "git status in the prepared view");
    assert!(
        log.contains("views rendered before, reused on first touch"),
        "{log}"
    );
}

/// A symlink of the tree whose target names renamed files (docutils's test data links to its
/// writers' stylesheets) is written by `export` as the mount shows it: the target translated
/// component by component, so the export's link resolves as the mount's does and shows no
/// original name.
#[test]
fn export_writes_links_as_the_mount_shows_them() {
    let test = "export_writes_links_as_the_mount_shows_them";
    let repo = Repo::with_files(&[
        (
            "stylekit/writers/lantern/lantern.css",
            "body { color: black }\n",
        ),
        (
            "stylekit/writers/lantern/__init__.py",
            "from stylekit.writers.lantern import lantern_writer\n\ndef lantern_writer():\n    return 'lantern.css'\n",
        ),
        ("stylekit/__init__.py", "LANTERN_LEVEL = 1\n"),
    ]);
    fs::create_dir_all(repo.orig.join("data")).unwrap();
    std::os::unix::fs::symlink(
        "../stylekit/writers/lantern/lantern.css",
        repo.orig.join("data/lantern.css"),
    )
    .unwrap();
    run_ok(git(&repo.orig).args(["add", "-A"]));
    run_ok(git(&repo.orig).args(["commit", "-q", "-m", "link"]));
    let Some(m) = repo.mount(test, "m", 5) else {
        return;
    };
    let mounted = walk(&m.point, &[".git"]);
    m.unmount();
    let out = repo.dir.path().join("export-5");
    run_ok(
        Command::new(BIN)
            .args(["export", "--seed", "5"])
            .arg(&repo.orig)
            .arg(&out),
    );
    let exported = walk(&out, &[]);
    let link = exported
        .iter()
        .find_map(|(_, e)| match e {
            Entry::Symlink(t) => Some(String::from_utf8_lossy(t).into_owned()),
            _ => None,
        })
        .expect("the export holds the link");
    assert!(
        !link.contains("lantern") && !link.contains("stylekit"),
        "the exported link shows original names: {link}"
    );
    if let Some(d) = first_difference(&mounted, &exported) {
        panic!("export differs from the mount: {d}");
    }
    // The link resolves in the export as in the mount.
    let (path, _) = exported
        .iter()
        .find(|(_, e)| matches!(e, Entry::Symlink(_)))
        .unwrap();
    let p = out.join(std::ffi::OsStr::from_bytes(path));
    assert_eq!(fs::read(&p).unwrap(), b"body { color: black }\n");
}
