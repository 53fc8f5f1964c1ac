//! Property tests for Level 3: random small Python files (a tiny name alphabet, so
//! redefinitions and dependencies are common), random edit sequences on their view.
//!
//! Laws checked: 1 (round trip), 2 (read your writes, for any bytes), 4 (path independence
//! through `LayoutStore`, minimal patch for an edit inside a unit), 6 (a written view that
//! parses gives an original that is a valid unit permutation of it). Shrunk failures are kept
//! at the end as named regression tests.

use proptest::prelude::*;

use schrodinger::transform::layout::{self, LayoutStore, SettleStep};
use schrodinger::transform::reorder;

const NAMES: &[&str] = &["a", "b", "c", "d"];

#[derive(Debug, Clone)]
enum Item {
    Anchor(usize),
    LooseComment,
    Func {
        name: usize,
        comment: bool,
        decorator: Option<usize>,
        default: Option<usize>,
        body: usize,
    },
    Class {
        name: usize,
        base: Option<usize>,
        methods: Vec<(usize, Option<usize>, bool)>,
        attr: bool,
    },
}

fn item() -> impl Strategy<Value = Item> {
    let n = || 0..NAMES.len();
    prop_oneof![
        1 => n().prop_map(Item::Anchor),
        1 => Just(Item::LooseComment),
        5 => (n(), any::<bool>(), prop::option::of(n()), prop::option::of(n()), n()).prop_map(
            |(name, comment, decorator, default, body)| Item::Func { name, comment, decorator, default, body }
        ),
        3 => (
            n(),
            prop::option::of(n()),
            prop::collection::vec((n(), prop::option::of(n()), any::<bool>()), 0..4),
            any::<bool>()
        )
            .prop_map(|(name, base, methods, attr)| Item::Class { name, base, methods, attr }),
    ]
}

/// Lines without terminators; `file()` adds them.
fn item_lines(it: &Item) -> Vec<String> {
    match it {
        Item::Anchor(n) => vec![format!("{} = {}", NAMES[*n], 1)],
        Item::LooseComment => vec!["# loose".into()],
        Item::Func {
            name,
            comment,
            decorator,
            default,
            body,
        } => {
            let mut v = Vec::new();
            if *comment {
                v.push(format!("# about {}", NAMES[*name]));
            }
            if let Some(d) = decorator {
                v.push(format!("@{}", NAMES[*d]));
            }
            let def = default.map_or("None".to_string(), |d| NAMES[d].to_string());
            v.push(format!("def {}(x={def}):", NAMES[*name]));
            v.push(format!("    return {}", NAMES[*body]));
            v
        }
        Item::Class {
            name,
            base,
            methods,
            attr,
        } => {
            let mut v = vec![match base {
                Some(b) => format!("class {}({}):", NAMES[*name], NAMES[*b]),
                None => format!("class {}:", NAMES[*name]),
            }];
            if *attr || methods.is_empty() {
                v.push("    k = 1".into());
            }
            for (i, (m, dec, blank)) in methods.iter().enumerate() {
                if i > 0 && *blank {
                    v.push(String::new());
                }
                if let Some(d) = dec {
                    v.push(format!("    @{}", NAMES[*d]));
                }
                v.push(format!("    def {}(self):", NAMES[*m]));
                v.push(format!("        return {}", NAMES[*m]));
            }
            v
        }
    }
}

/// A file: items separated by 0..3 blank lines, LF or CRLF, maybe no final newline.
fn file() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((item(), 0..3usize), 1..9),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(items, crlf, final_newline)| {
            let mut lines: Vec<String> = Vec::new();
            for (it, blanks) in items {
                lines.extend(item_lines(&it));
                lines.extend(std::iter::repeat_n(String::new(), blanks));
            }
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut out = lines.join(eol);
            if final_newline {
                out.push_str(eol);
            }
            out.into_bytes()
        })
}

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, usize),
    Delete(usize),
    Replace(usize, usize),
    AddFunction(usize, usize, usize),
    RemoveRange(usize, usize),
    MoveRange(usize, usize, usize),
    ToggleFinalNewline,
}

const POOL: &[&[u8]] = &[
    b"def z():\n",
    b"    return a\n",
    b"x = a()\n",
    b"\n",
    b"# c\n",
    b"class K(a):\n",
    b"@b\n",
    b"def broken(:\n",
    b"\xff\xfe junk\n",
    b"    pass\n",
    b"        return 9\n",
    b"y = b\r\n",
];

fn edit() -> impl Strategy<Value = Edit> {
    let p = || 0..64usize;
    prop_oneof![
        3 => (p(), 0..POOL.len()).prop_map(|(a, b)| Edit::Insert(a, b)),
        2 => p().prop_map(Edit::Delete),
        2 => (p(), 0..POOL.len()).prop_map(|(a, b)| Edit::Replace(a, b)),
        2 => (p(), 0..NAMES.len(), 0..NAMES.len()).prop_map(|(a, b, c)| Edit::AddFunction(a, b, c)),
        1 => (p(), 1..6usize).prop_map(|(a, b)| Edit::RemoveRange(a, b)),
        2 => (p(), 1..6usize, p()).prop_map(|(a, b, c)| Edit::MoveRange(a, b, c)),
        1 => Just(Edit::ToggleFinalNewline),
    ]
}

/// The store a remount gets: `store`'s state through its saved form, bases by digest.
fn reloaded(store: &LayoutStore) -> LayoutStore {
    let saved = serde_json::to_vec(&store.state()).unwrap();
    LayoutStore::from_state(serde_json::from_slice(&saved).unwrap(), &|n| {
        store.base_blob(n)
    })
}

/// `state` without the other versions each file had (which depend on the path taken).
fn without_aliases(mut state: layout::LayoutState) -> layout::LayoutState {
    for f in &mut state.files {
        f.aliases.clear();
    }
    state
}

fn apply(view: &[u8], e: &Edit) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = layout::split_lines(view)
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect();
    let n = lines.len();
    let at = |i: usize| if n == 0 { 0 } else { i % (n + 1) };
    match *e {
        Edit::Insert(i, w) => lines.insert(at(i), POOL[w].to_vec()),
        Edit::Delete(i) if n > 0 => {
            lines.remove(i % n);
        }
        Edit::Replace(i, w) if n > 0 => lines[i % n] = POOL[w].to_vec(),
        Edit::AddFunction(i, name, dep) => {
            let at = at(i);
            let f = format!("def {}(x={}):\n    return 0\n\n", NAMES[name], NAMES[dep]);
            for (k, l) in layout::split_lines(f.as_bytes()).into_iter().enumerate() {
                lines.insert(at + k, l.to_vec());
            }
        }
        Edit::RemoveRange(i, len) if n > 0 => {
            let s = i % n;
            lines.drain(s..(s + len).min(n));
        }
        Edit::MoveRange(i, len, to) if n > 0 => {
            let s = i % n;
            let moved: Vec<Vec<u8>> = lines.drain(s..(s + len).min(n)).collect();
            let to = to % (lines.len() + 1);
            for (k, l) in moved.into_iter().enumerate() {
                lines.insert(to + k, l);
            }
        }
        Edit::ToggleFinalNewline => {
            if let Some(last) = lines.last_mut() {
                if last.ends_with(b"\n") {
                    last.pop();
                    if last.ends_with(b"\r") {
                        last.pop();
                    }
                } else {
                    last.push(b'\n');
                }
            }
        }
        _ => {}
    }
    // Only the last line may lack its newline, or the edit would have merged lines.
    let k = lines.len();
    for l in lines.iter_mut().take(k.saturating_sub(1)) {
        if !l.ends_with(b"\n") {
            l.push(b'\n');
        }
    }
    lines.concat()
}

fn check_write(base: &[u8], l: &layout::Layout, view: &[u8]) -> Result<(), TestCaseError> {
    let (o, nl) = layout::inverse(base, l, view);
    // Law 2.
    prop_assert_eq!(layout::render(&o, &nl), view.to_vec());
    // Law 1 on what the inverse returns.
    let (o2, l2) = layout::inverse(&o, &nl, view);
    prop_assert!(o2 == o && l2 == nl, "inverse output does not round-trip");
    // Law 6.
    if reorder::analyze(view).is_ok() {
        prop_assert!(
            reorder::analyze(&o).is_ok(),
            "view parses but the original does not"
        );
        if let Err(e) = layout::validate(&o, &nl) {
            return Err(TestCaseError::fail(format!("law 6: {e}")));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("L3_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(160), ..ProptestConfig::default() })]

    #[test]
    fn law1_plan_round_trips(src in file(), seed in 0..6u64) {
        let l = layout::plan(b"m.py", &src, seed, &Default::default());
        prop_assert!(layout::validate(&src, &l).is_ok());
        let view = layout::render(&src, &l);
        let (o, l2) = layout::inverse(&src, &l, &view);
        prop_assert_eq!(o, src.clone());
        prop_assert_eq!(l2, l);
        let store = LayoutStore::new(seed);
        let v = store.to_view(b"m.py", &src);
        prop_assert_eq!(store.to_original(b"m.py", &v, Some(&src)), src);
    }

    #[test]
    fn law2_and_law6_after_edits(src in file(), seed in 0..6u64, edits in prop::collection::vec(edit(), 1..6)) {
        let l = layout::plan(b"m.py", &src, seed, &Default::default());
        let mut view = layout::render(&src, &l);
        for e in &edits {
            view = apply(&view, e);
            check_write(&src, &l, &view)?;
        }
    }

    #[test]
    fn law4_path_independence_through_the_store(src in file(), seed in 0..6u64, edits in prop::collection::vec(edit(), 1..6)) {
        let store = LayoutStore::new(seed);
        let mut disk = src.clone();
        let mut view = store.to_view(b"m.py", &disk);
        for e in &edits {
            let (before_view, before_disk) = (view.clone(), disk.clone());
            view = apply(&view, e);
            disk = store.to_original(b"m.py", &view, Some(&disk));
            // Law 2 through the store, and after a save/load of its state (remount).
            prop_assert_eq!(store.to_view(b"m.py", &disk), view.clone());
            // The state goes through its saved form; bases come back by digest.
            let reloaded = reloaded(&store);
            prop_assert_eq!(reloaded.to_view(b"m.py", &disk), view.clone());
            if disk != before_disk {
                // The state is saved before the file is replaced: a daemon killed in
                // between leaves the old bytes under the new state, which shows them as
                // they were shown and inverts the next write against the same base.
                prop_assert_eq!(reloaded.to_view(b"m.py", &before_disk), before_view);
                let next = apply(&view, e);
                let crashed = reloaded.to_original(b"m.py", &next, Some(&before_disk));
                let landed = self::reloaded(&store).to_original(b"m.py", &next, Some(&disk));
                prop_assert_eq!(crashed, landed);
            }
        }
        let direct = LayoutStore::new(seed);
        direct.to_view(b"m.py", &src);
        prop_assert_eq!(direct.to_original(b"m.py", &view, Some(&src)), disk);
    }

    /// A write-back left unsettled (`to_original_unsettled`, the view's own order) shows
    /// what was written at every step, survives a save and reload of the state, and once
    /// settled is byte for byte, with the same saved state, what inverting each write at
    /// once gives (laws 1, 2 and 4 through `fs/settle.rs`'s path).
    #[test]
    fn law4_settled_write_backs_equal_inverted_ones(
        src in file(),
        seed in 0..6u64,
        edits in prop::collection::vec((edit(), any::<bool>()), 1..6),
    ) {
        let now = LayoutStore::new(seed);
        let later = LayoutStore::new(seed);
        let (mut disk_now, mut disk_later) = (src.clone(), src.clone());
        let mut view = now.to_view(b"m.py", &src);
        prop_assert_eq!(later.to_view(b"m.py", &src), view.clone());
        let settle = |store: &LayoutStore, disk: &mut Vec<u8>| -> Result<(), TestCaseError> {
            if let Some(s) = store.settle(b"m.py", disk) {
                let before = disk.clone();
                let shown = store.to_view(b"m.py", &before);
                prop_assert!(store.settle_step(b"m.py", &s, SettleStep::Begin));
                // The state is saved here, before the file is replaced: a daemon killed
                // either side of the replacement leaves a state that shows the bytes on
                // disk as they were shown, and settles them to the same bytes.
                for on_disk in [&before, s.original()] {
                    let r = reloaded(store);
                    prop_assert_eq!(r.to_view(b"m.py", on_disk), shown.clone());
                    let again = r.settle(b"m.py", on_disk).expect("still unsettled");
                    prop_assert_eq!(again.original(), s.original());
                    prop_assert!(r.settle_step(b"m.py", &again, SettleStep::Begin));
                    prop_assert!(r.settle_step(b"m.py", &again, SettleStep::Commit));
                    prop_assert!(r.unsettled().is_empty());
                    prop_assert_eq!(r.to_view(b"m.py", s.original()), shown.clone());
                }
                // Both versions show the view while the file is replaced, and after.
                prop_assert_eq!(store.to_view(b"m.py", s.original()), store.to_view(b"m.py", &before));
                prop_assert!(store.settle_step(b"m.py", &s, SettleStep::Commit));
                prop_assert_eq!(store.to_view(b"m.py", &before), store.to_view(b"m.py", s.original()));
                *disk = s.original().to_vec();
            }
            Ok(())
        };
        for (e, settle_here) in &edits {
            view = apply(&view, e);
            disk_now = now.to_original(b"m.py", &view, Some(&disk_now));
            disk_later = later.to_original_unsettled(b"m.py", &view, Some(&disk_later));
            prop_assert_eq!(later.to_view(b"m.py", &disk_later), view.clone());
            // A remount before the settle: the reloaded store shows the same view and
            // settles to the same bytes.
            let reloaded = reloaded(&later);
            prop_assert_eq!(reloaded.to_view(b"m.py", &disk_later), view.clone());
            let mut reloaded_disk = disk_later.clone();
            settle(&reloaded, &mut reloaded_disk)?;
            prop_assert_eq!(&reloaded_disk, &disk_now);
            if *settle_here {
                settle(&later, &mut disk_later)?;
                prop_assert_eq!(later.to_view(b"m.py", &disk_later), view.clone());
            }
        }
        settle(&later, &mut disk_later)?;
        prop_assert!(later.unsettled().is_empty());
        prop_assert_eq!(String::from_utf8_lossy(&disk_later), String::from_utf8_lossy(&disk_now));
        prop_assert_eq!(later.to_view(b"m.py", &disk_later), view);
        prop_assert_eq!(without_aliases(later.state()), without_aliases(now.state()));
    }

    #[test]
    fn law4_edit_inside_a_unit_changes_only_its_line(src in file(), seed in 0..6u64, pick in 0..64usize) {
        let l = layout::plan(b"m.py", &src, seed, &Default::default());
        let view = layout::render(&src, &l);
        let lines = layout::split_lines(&view);
        let bodies: Vec<usize> = (0..lines.len())
            .filter(|&k| lines[k].trim_ascii_start().starts_with(b"return ") && lines[k].ends_with(b"\n"))
            .collect();
        prop_assume!(!bodies.is_empty());
        let k = bodies[pick % bodies.len()];
        let indent = lines[k].len() - lines[k].trim_ascii_start().len();
        let eol: &[u8] = if lines[k].ends_with(b"\r\n") { b"\r\n" } else { b"\n" };
        let mut new_line = lines[k][..indent].to_vec();
        new_line.extend_from_slice(b"return 42");
        new_line.extend_from_slice(eol);
        let mut new_view: Vec<u8> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            new_view.extend_from_slice(if i == k { &new_line } else { line });
        }
        let (o, _) = layout::inverse(&src, &l, &new_view);
        let orig_line = l.order()[k];
        let mut expected: Vec<u8> = Vec::new();
        for (i, line) in layout::split_lines(&src).iter().enumerate() {
            expected.extend_from_slice(if i == orig_line { &new_line } else { line });
        }
        prop_assert_eq!(String::from_utf8_lossy(&o), String::from_utf8_lossy(&expected));
    }

    #[test]
    fn law2_for_arbitrary_bytes(src in file(), seed in 0..6u64, junk in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), Just(b' '), Just(0xffu8), Just(b'#'), Just(b':')], 0..80)) {
        let l = layout::plan(b"m.py", &src, seed, &Default::default());
        let (o, nl) = layout::inverse(&src, &l, &junk);
        prop_assert_eq!(layout::render(&o, &nl), junk);
    }
}

/// Breaking the syntax, saving, then repairing gives the same original as the direct edit.
#[test]
fn broken_intermediate_then_fixed_equals_direct_edit() {
    let src = b"import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n\n\ndef d():\n    return 4\n";
    let mut shuffled = 0;
    for seed in 0..8u64 {
        let store = LayoutStore::new(seed);
        let view = store.to_view(b"m.py", src);
        shuffled += usize::from(view != src);
        let fixed = String::from_utf8(view.clone())
            .unwrap()
            .replace("return 2", "return 22");
        let broken = fixed.replace("def c():", "def c(:");
        let o1 = store.to_original(b"m.py", broken.as_bytes(), Some(src));
        assert_eq!(store.to_view(b"m.py", &o1), broken.as_bytes());
        let o2 = store.to_original(b"m.py", fixed.as_bytes(), Some(&o1));
        let expected = String::from_utf8(src.to_vec())
            .unwrap()
            .replace("return 2", "return 22");
        assert_eq!(String::from_utf8(o2).unwrap(), expected, "seed {seed}");
    }
    assert!(shuffled > 0);
}

/// A new statement that uses a unit defined above it in the view but below it in the original
/// keeps the view's order for that run (law 6).
#[test]
fn new_dependency_keeps_view_order_for_its_run() {
    let src = b"import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n";
    // Find a seed whose view puts b first.
    let seed = (0..64u64)
        .find(|&s| {
            let v = layout::render(src, &layout::plan(b"m.py", src, s, &Default::default()));
            v.starts_with(b"import os\n\n\ndef b")
        })
        .expect("some seed swaps a and b");
    let l = layout::plan(b"m.py", src, seed, &Default::default());
    let view = String::from_utf8(layout::render(src, &l)).unwrap();
    // A new decorator on a that reads b: b must stay above a in the original.
    let new_view = view.replace("def a():", "@b\ndef a():");
    let (o, nl) = layout::inverse(src, &l, new_view.as_bytes());
    assert_eq!(String::from_utf8(o.clone()).unwrap(), new_view);
    assert!(nl.is_identity());
    // Without the dependency, the original keeps its own order.
    let plain = view.replace("return 1", "return 11");
    let (o, _) = layout::inverse(src, &l, plain.as_bytes());
    assert_eq!(
        o,
        b"import os\n\n\ndef a():\n    return 11\n\n\ndef b():\n    return 2\n"
    );
}

/// New lines land after the original line that precedes them in the view.
#[test]
fn new_function_lands_after_its_view_predecessor() {
    let src = b"import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
    let mut shuffled = 0;
    for seed in 0..16u64 {
        let l = layout::plan(b"m.py", src, seed, &Default::default());
        shuffled += usize::from(!l.is_identity());
        let view = String::from_utf8(layout::render(src, &l)).unwrap();
        let new_view = view.replace(
            "    return 2\n",
            "    return 2\n\n\ndef n():\n    return 0\n",
        );
        let (o, nl) = layout::inverse(src, &l, new_view.as_bytes());
        assert_eq!(layout::render(&o, &nl), new_view.as_bytes());
        let o = String::from_utf8(o).unwrap();
        assert!(
            o.contains("def b():\n    return 2\n\n\ndef n():\n    return 0\n"),
            "seed {seed}:\n{o}"
        );
    }
    assert!(shuffled > 0);
}
