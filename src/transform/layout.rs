//! Level 3, the layout half: a file's view as original line ranges in view order, rendering,
//! and the inverse that takes a written view back to the original.
//!
//! Guarantees:
//! - `render` only moves whole lines; every byte of every line (CRLF, a missing final
//!   newline, invalid UTF-8) is kept.
//! - Law 1: `inverse(o, l, render(o, l)) == (o, l)` for every layout `plan` returns (plan
//!   checks it) and every layout `inverse` returns.
//! - Law 2: `render(inverse(o, l, v)) == v` for any bytes `v`: the result is checked and, if
//!   it were ever wrong, replaced by the view itself in view order.
//! - Law 6: when the written view parses, the new original is the view with the units of each
//!   run put back in original order, or left in view order for a run where that would break a
//!   definition-time dependency; the result is re-parsed and checked (`validate`).
//! - Law 4: `LayoutStore` always inverts against the original it first saw for a file (the
//!   mount's base), not against its own last write, so the original depends only on the final
//!   view content.
//!
//! How: the new view is diffed line by line (patience diff) against the base view; matched
//! lines keep their original line, new lines go after the original line that precedes them in
//! the view. Those positions only serve as sort keys for the units of each run of the new
//! view; blank lines and anchors stay exactly where the view has them.

use std::collections::{BTreeMap, BTreeSet};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use similar::{Algorithm, DiffOp};

pub use super::lines::{render, split_lines, Layout};
use super::reorder::{self, Run};

/// For each line of `new`, the index of the line of `old` it is (patience diff), or `None`
/// for a new line. The one line matcher of Level 3's write path and of `patch`.
pub fn matched_lines(old: &[&[u8]], new: &[&[u8]]) -> Vec<Option<usize>> {
    let mut out = vec![None; new.len()];
    for op in similar::capture_diff_slices(Algorithm::Patience, old, new) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for t in 0..len {
                if let Some(k) = out.get_mut(new_index + t) {
                    *k = Some(old_index + t);
                }
            }
        }
    }
    out
}

/// Given the original and layout a view was rendered from, and new view bytes, the new
/// original and the layout under which it renders to exactly `new_view`.
pub fn inverse(base_original: &[u8], base_layout: &Layout, new_view: &[u8]) -> (Vec<u8>, Layout) {
    inverse_with(base_original, base_layout, new_view, true)
}

/// [`inverse`], with or without taking an identity mapping as its own answer (tests compare).
fn inverse_with(
    base_original: &[u8],
    base_layout: &Layout,
    new_view: &[u8],
    shortcut: bool,
) -> (Vec<u8>, Layout) {
    let base_lines = split_lines(base_original);
    let n = base_lines.len();
    let base_order = if base_layout.is_valid_for(n) {
        base_layout.order()
    } else {
        (0..n).collect()
    };
    let base_view: Vec<&[u8]> = base_order.iter().map(|&i| base_lines[i]).collect();
    let new_lines = split_lines(new_view);
    let m = new_lines.len();

    // Which original line each new view line is (None: new).
    let kept: Vec<Option<usize>> = matched_lines(&base_view, &new_lines)
        .into_iter()
        .map(|v| v.and_then(|v| base_order.get(v).copied()))
        .collect();
    // Mapped original: kept lines in original order, new lines after the original line that
    // precedes them in the view.
    let mut front: Vec<usize> = Vec::new();
    let mut at: Vec<Option<usize>> = vec![None; n];
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut last: Option<usize> = None;
    for (j, k) in kept.iter().enumerate() {
        match *k {
            Some(i) => {
                at[i] = Some(j);
                last = Some(i);
            }
            None => match last {
                Some(i) => after[i].push(j),
                None => front.push(j),
            },
        }
    }
    let mut mapped = front;
    for i in 0..n {
        mapped.extend(at[i]);
        mapped.extend(after[i].iter().copied());
    }
    // Every line already where the mapping puts it (a file shown in its own order, edited
    // without moving lines): each run's units then sort to view order, so the analysis
    // below could only give back the view itself, unmoved (`identity_mapping_skips_analysis`).
    if shortcut && mapped.iter().enumerate().all(|(p, &j)| p == j) {
        return (new_view.to_vec(), Layout::identity(m));
    }
    let mut mapped_pos = vec![0usize; m];
    for (p, &j) in mapped.iter().enumerate() {
        mapped_pos[j] = p;
    }

    let (seq, structural) = match reorder::analyze(new_view) {
        Ok(s) => {
            let seq = reorder::emit(m, &s.runs, &mut |run| {
                original_order(run, &kept, &mapped_pos)
            });
            (seq, true)
        }
        // Broken syntax has no definitions to protect: keep the mapped positions.
        Err(_) => (mapped, false),
    };
    let new_original: Vec<u8> = seq
        .iter()
        .flat_map(|&j| new_lines[j].iter().copied())
        .collect();
    let mut pos = vec![0usize; m];
    for (p, &j) in seq.iter().enumerate() {
        pos[j] = p;
    }
    let layout = Layout::from_order(&pos);

    let unchanged = new_original == base_original && &layout == base_layout;
    let ok = render(&new_original, &layout) == new_view
        && (!structural || unchanged || validate(&new_original, &layout).is_ok());
    if ok {
        (new_original, layout)
    } else {
        tracing::debug!("level 3: write-back kept in view order");
        (new_view.to_vec(), Layout::identity(m))
    }
}

/// Original order of a run of the new view: units sorted by where their lines map in the
/// original, unless that breaks a definition-time dependency the view has (then view order).
fn original_order(run: &Run, kept: &[Option<usize>], mapped_pos: &[usize]) -> Vec<usize> {
    // A wholly new unit follows the unit before it in the view (or opens the run): aligning
    // its lines alone would hang it on whichever blank line the diff happened to match.
    let mut keys: Vec<(usize, usize)> = Vec::with_capacity(run.units.len());
    for (i, u) in run.units.iter().enumerate() {
        let own = u
            .span
            .clone()
            .filter(|&j| kept.get(j).is_some_and(Option::is_some))
            .filter_map(|j| mapped_pos.get(j).copied())
            .min();
        let key = match (own, keys.last()) {
            (Some(p), _) => (p, i),
            (None, Some(&(p, _))) => (p, i),
            (None, None) => (0, i),
        };
        keys.push(key);
    }
    let k = run.units.len();
    let mut sigma: Vec<usize> = (0..k).collect();
    sigma.sort_by_key(|&u| keys[u]);
    let mut rank = vec![0usize; k];
    for (p, &u) in sigma.iter().enumerate() {
        rank[u] = p;
    }
    if reorder::constraints(run)
        .iter()
        .any(|&(a, b)| rank[a] > rank[b])
    {
        (0..k).collect()
    } else {
        sigma
    }
}

/// Checks law 6 for a layout: every line movement is a permutation of whole units inside runs
/// of `original`, and every definition-time dependency keeps its direction.
pub fn validate(original: &[u8], layout: &Layout) -> Result<(), String> {
    let n = split_lines(original).len();
    if !layout.is_valid_for(n) {
        return Err("layout is not a permutation of the file's lines".into());
    }
    if layout.is_identity() {
        return Ok(());
    }
    let structure = reorder::analyze(original)?;
    let order = layout.order();
    let mut vpos = vec![0usize; n];
    for (k, &i) in order.iter().enumerate() {
        vpos[i] = k;
    }
    let mut broken: Option<String> = None;
    let expected = reorder::emit(n, &structure.runs, &mut |run| {
        let mut slots: Vec<usize> = (0..run.units.len()).collect();
        slots.sort_by_key(|&u| vpos[run.units[u].span.start]);
        let mut rank = vec![0usize; slots.len()];
        for (p, &u) in slots.iter().enumerate() {
            rank[u] = p;
        }
        for (a, b) in reorder::constraints(run) {
            if rank[a] > rank[b] && broken.is_none() {
                broken = Some(format!(
                    "{} must stay before {}",
                    run.units[a].name, run.units[b].name
                ));
            }
        }
        slots
    });
    if let Some(b) = broken {
        return Err(b);
    }
    if expected != order {
        return Err("layout moves lines that are not whole units of one run".into());
    }
    Ok(())
}

/// The steps of [`LayoutStore::settle_step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleStep {
    Begin,
    Commit,
    Abort,
}

/// A settled original computed by [`LayoutStore::settle`], not yet remembered.
#[derive(Debug, Clone)]
pub struct Settled {
    /// Digest of the unsettled original it replaces.
    from: String,
    original: Vec<u8>,
    /// Digest of `original`.
    to: String,
    layout: Layout,
    anchor: Base,
    anchor_planned: bool,
}

impl Settled {
    /// The settled original's bytes.
    pub fn original(&self) -> &[u8] {
        &self.original
    }
}

/// The remembered layout of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileLayout {
    /// Path relative to the original root, in original names.
    pub path: Vec<u8>,
    /// SHA-256 (hex) of the original this layout belongs to.
    pub hash: String,
    pub layout: Layout,
    /// The original and layout first seen for this file, when writes have changed it since:
    /// every write is inverted against this, which makes the result path-independent.
    /// Written inline by older versions only; read for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<BaseFile>,
    /// The same base, saved out of line: the SHA-256 (hex) of its original bytes, which are
    /// kept apart under that name (see `LayoutStore::from_state`), and its layout. A base
    /// never changes once set, so each is written once, while the state that lists every
    /// edited file is written after every write-back: with the bytes inline it grew with
    /// each edited file and was written again whole each time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_blob: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_layout: Option<Layout>,
    /// The original is in the view's order, written by a write-back that left the inverse
    /// against the base for later (`LayoutStore::to_original_unsettled`); a later mount
    /// settles it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsettled: bool,
    /// Other versions of the original and their layouts (`Entry::aliases`). The state is
    /// saved before a write-back replaces the file, so a daemon killed in between leaves a
    /// state that knows both the bytes on disk and the bytes that were to replace them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<(String, Layout)>,
}

/// The original content and layout a file had before the first write through the view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaseFile {
    pub original: Vec<u8>,
    pub layout: Layout,
}

/// Everything a `LayoutStore` knows, for saving in a state directory.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LayoutState {
    pub seed: u64,
    pub files: Vec<FileLayout>,
    /// The generation of the journal of changes made after this snapshot (`fs::saved_state`);
    /// a journal of another generation is older than the snapshot and is not replayed.
    #[serde(default)]
    pub journal: u64,
}

/// One change of the saved state, as a journal holds it: what is saved for a path now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateChange {
    /// The path's remembered layout is this.
    Set(FileLayout),
    /// Nothing is remembered for the path any more (removed, moved away, planned afresh).
    Gone(Vec<u8>),
}

impl LayoutState {
    /// The state after `changes`, applied in order (a journal replayed onto its snapshot).
    /// Files stay sorted by path, as `LayoutStore::state` gives them.
    pub fn apply(&mut self, changes: impl IntoIterator<Item = StateChange>) {
        let mut files: BTreeMap<Vec<u8>, FileLayout> = std::mem::take(&mut self.files)
            .into_iter()
            .map(|f| (f.path.clone(), f))
            .collect();
        for c in changes {
            match c {
                StateChange::Set(f) => {
                    files.insert(f.path.clone(), f);
                }
                StateChange::Gone(p) => {
                    files.remove(&p);
                }
            }
        }
        self.files = files.into_values().collect();
    }
}

#[derive(Debug, Clone)]
struct Entry {
    hash: String,
    layout: Layout,
    base: Option<Base>,
    /// The layout is `plan(path, original)`: a fresh plan gives it again, so it need not be
    /// saved (the saved state holds only what writes and renames made).
    planned: bool,
    /// `Some(anchor_planned)` while the original is the view in its own order, written
    /// without the inverse (`to_original_unsettled`), until `settle` inverts it against
    /// `base`; `anchor_planned` says whether the base was a fresh plan.
    pending: Option<bool>,
    /// Other versions of the original (digest and layout, at most [`ALIASES`]) that a
    /// reader may still hold, since readers take no lock: the bytes a write-back replaced
    /// (shown as they were shown before it), and either side of a settle (`settle_step`;
    /// both show the same view). Without them such a reader's fresh plan would replace the
    /// entry, and the file written would lose its layout. Saved with the entry, for the
    /// same reason across a killed daemon: the state is saved before the file is replaced,
    /// so either version may be on disk at the next mount (`anchor_and_current`, `settle`).
    aliases: Vec<(String, Layout)>,
}

/// How many earlier versions of a file an entry keeps for readers (see `Entry::aliases`).
const ALIASES: usize = 2;

impl Entry {
    /// The layout for the original whose digest is `hash`, if this entry has one.
    fn layout_for(&self, hash: &str) -> Option<&Layout> {
        if self.hash == hash {
            return Some(&self.layout);
        }
        self.aliases.iter().find(|(h, _)| h == hash).map(|(_, l)| l)
    }

    /// The entry of `original` (digest `hash`), just inverted against `anchor` to `layout`,
    /// replacing the bytes whose digest is `replaced`. A file rewritten unchanged to its
    /// anchor's bytes and layout keeps no base, and counts as planned when the anchor was (so
    /// a tool rewriting files unchanged grows no saved state). A file changed back to them
    /// keeps the anchor and is saved: the state is saved before the file is replaced, and a
    /// daemon killed in between leaves the replaced bytes, which must still find their
    /// layout (an alias) and their base.
    fn inverted(
        anchor: Base,
        anchor_planned: bool,
        original: &[u8],
        (hash, replaced): (String, &str),
        layout: Layout,
    ) -> Entry {
        let pristine =
            original == anchor.file.original && layout == anchor.file.layout && replaced == hash;
        Entry {
            hash,
            layout,
            base: (!pristine).then_some(anchor),
            planned: pristine && anchor_planned,
            pending: None,
            aliases: Vec::new(),
        }
    }

    /// Keep `alias` for readers, first, with at most [`ALIASES`] in all.
    fn alias(&mut self, alias: (String, Layout)) {
        self.aliases.retain(|(h, _)| *h != alias.0);
        self.aliases.insert(0, alias);
        self.aliases.truncate(ALIASES);
    }
}

/// A base with the digest of its original bytes, the name it is saved under: a base never
/// changes once set, so the digest is taken once, when the base is.
#[derive(Debug, Clone)]
struct Base {
    file: BaseFile,
    sha: String,
}

impl Base {
    fn new(file: BaseFile) -> Base {
        let sha = digest(&file.original);
        Base { file, sha }
    }
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Per-file layouts, the state of Level 3. Paths are relative to the original root, in
/// original names (they seed the order).
#[derive(Debug, Default)]
pub struct LayoutStore {
    seed: u64,
    /// Names whose definitions keep their relative order (`reorder::seeded_order`); from
    /// the bundle, so not part of the saved state.
    ordered: BTreeSet<String>,
    /// Original paths of files shown in their own order (`pinned::recorded_files`); from
    /// the bundle too.
    pinned: BTreeSet<Vec<u8>>,
    files: Mutex<Files>,
    /// Fresh plans, shared with other stores of the same seed and `ordered` (`sharing_plans`).
    plans: Option<PlanCache>,
}

/// Fresh plans by path: the digest of the original each was made for, and the layout.
/// `plan` is a function of the path, the bytes, the seed and `ordered` alone, so stores that
/// agree on the last two may share what they planned: the mount renders the original's
/// `HEAD` for the view's `.git` through a store of its own (so as not to disturb the live
/// store's remembered layouts), and the live store's first write-back of each of those files
/// would otherwise plan it again (two parses of the file).
pub type PlanCache = std::sync::Arc<Mutex<std::collections::HashMap<Vec<u8>, (String, Layout)>>>;

/// The remembered entries, and the paths whose saved form changed since `changes` was last
/// asked (under one lock, so a change is never missed between the two).
#[derive(Debug, Default)]
struct Files {
    map: BTreeMap<Vec<u8>, Entry>,
    changed: BTreeSet<Vec<u8>>,
}

impl Files {
    fn get(&self, path: &[u8]) -> Option<&Entry> {
        self.map.get(path)
    }

    /// Set the entry of `path`, noting the path when what is saved for it changes.
    fn put(&mut self, path: Vec<u8>, e: Entry) {
        let before = self.map.get(&path).and_then(|old| saved_form(&path, old));
        if before != saved_form(&path, &e) {
            self.changed.insert(path.clone());
        }
        self.map.insert(path, e);
    }

    fn take(&mut self, path: &[u8]) -> Option<Entry> {
        let e = self.map.remove(path)?;
        if !e.planned {
            self.changed.insert(path.to_vec());
        }
        Some(e)
    }
}

/// What the saved state holds for an entry: nothing for a planned layout (a fresh plan gives
/// it again).
fn saved_form(path: &[u8], e: &Entry) -> Option<FileLayout> {
    (!e.planned).then(|| FileLayout {
        path: path.to_vec(),
        hash: e.hash.clone(),
        layout: e.layout.clone(),
        base: None,
        base_blob: e.base.as_ref().map(|b| b.sha.clone()),
        base_layout: e.base.as_ref().map(|b| b.file.layout.clone()),
        unsettled: e.pending.is_some(),
        aliases: e.aliases.clone(),
    })
}

impl LayoutStore {
    pub fn new(seed: u64) -> LayoutStore {
        LayoutStore {
            seed,
            ordered: BTreeSet::new(),
            pinned: BTreeSet::new(),
            files: Mutex::new(Files::default()),
            plans: None,
        }
    }

    /// Names whose definitions keep their relative order (see `keeping_order_of`).
    pub fn ordered(&self) -> &BTreeSet<String> {
        &self.ordered
    }

    /// The store, planning new layouts that keep the relative order of definitions named
    /// in `ordered` (the bundle's `ordered`).
    pub fn keeping_order_of(mut self, ordered: BTreeSet<String>) -> LayoutStore {
        self.ordered = ordered;
        self
    }

    /// The store, showing the files at `pinned` (original paths, the bundle's `pinned`) in
    /// their own order: the tree records their line numbers.
    pub fn keeping_lines_of(mut self, pinned: impl IntoIterator<Item = String>) -> LayoutStore {
        self.pinned = pinned.into_iter().map(String::into_bytes).collect();
        self
    }

    /// The store, taking fresh plans from `cache` and adding its own to it; every store
    /// sharing one cache must have the same seed and `ordered` (see `PlanCache`).
    pub fn sharing_plans(mut self, cache: PlanCache) -> LayoutStore {
        self.plans = Some(cache);
        self
    }

    /// `plan` of `original` (whose digest is `hash`), from the shared cache when it has it.
    fn plan_of(&self, path: &[u8], original: &[u8], hash: &str) -> Layout {
        if self.pinned.contains(path) {
            return Layout::identity(split_lines(original).len());
        }
        if let Some(cache) = &self.plans {
            if let Some((h, l)) = cache.lock().get(path) {
                if h == hash {
                    return l.clone();
                }
            }
        }
        let planned = plan(path, original, self.seed, &self.ordered);
        if let Some(cache) = &self.plans {
            cache
                .lock()
                .insert(path.to_vec(), (hash.to_string(), planned.clone()));
        }
        planned
    }

    /// The store a saved state describes. `blob` gives the bytes saved under a base's digest;
    /// a base whose bytes are missing or do not match their digest is dropped (logged): the
    /// file's next write is then inverted against its current original, as for a file never
    /// written.
    pub fn from_state(state: LayoutState, blob: &dyn Fn(&str) -> Option<Vec<u8>>) -> LayoutStore {
        let files = state
            .files
            .into_iter()
            .map(|f| {
                let base = match (f.base, f.base_blob, f.base_layout) {
                    (Some(b), _, _) => Some(Base::new(b)),
                    (None, Some(sha), Some(layout)) => match blob(&sha) {
                        Some(original) if digest(&original) == sha => Some(Base {
                            file: BaseFile { original, layout },
                            sha,
                        }),
                        _ => {
                            tracing::warn!(
                                path = %String::from_utf8_lossy(&f.path),
                                "level 3: the saved base {sha} is missing or damaged; dropped"
                            );
                            None
                        }
                    },
                    _ => None,
                };
                // Without its base an unsettled original cannot be settled: it stays in
                // the view's order, which is what the view shows.
                let pending = (f.unsettled && base.is_some()).then_some(false);
                (
                    f.path,
                    Entry {
                        hash: f.hash,
                        layout: f.layout,
                        base,
                        planned: false,
                        pending,
                        aliases: f.aliases,
                    },
                )
            })
            .collect();
        LayoutStore {
            seed: state.seed,
            ordered: BTreeSet::new(),
            pinned: BTreeSet::new(),
            files: Mutex::new(Files {
                map: files,
                changed: BTreeSet::new(),
            }),
            plans: None,
        }
    }

    /// A snapshot for persistence (sorted by path, so it is deterministic).
    pub fn state(&self) -> LayoutState {
        let files = self
            .files
            .lock()
            .map
            .iter()
            .filter_map(|(p, e)| saved_form(p, e))
            .collect();
        LayoutState {
            seed: self.seed,
            files,
            journal: 0,
        }
    }

    /// What changed in `state()` since the last call, in path order: replayed onto the
    /// state of that call (`LayoutState::apply`), they give `state()` now.
    pub fn changes(&self) -> Vec<StateChange> {
        let mut files = self.files.lock();
        let changed = std::mem::take(&mut files.changed);
        changed
            .into_iter()
            .map(
                |p| match files.map.get(&p).and_then(|e| saved_form(&p, e)) {
                    Some(f) => StateChange::Set(f),
                    None => StateChange::Gone(p),
                },
            )
            .collect()
    }

    /// The layout `original` is shown with: the remembered one when it was made for exactly
    /// these bytes, else a fresh plan (remembered from now on).
    pub fn layout(&self, path: &[u8], original: &[u8]) -> Layout {
        let hash = digest(original);
        if let Some(l) = self
            .files
            .lock()
            .get(path)
            .and_then(|e| e.layout_for(&hash))
        {
            return l.clone();
        }
        // Planned without the lock (it parses the file); a layout stored for the same content
        // meanwhile (a rename carrying its layout, a write-back) wins over the fresh plan, or
        // a file moved while the background scan renders it would take the new path's order.
        let planned = self.plan_of(path, original, &hash);
        let mut files = self.files.lock();
        if let Some(l) = files.get(path).and_then(|e| e.layout_for(&hash)) {
            return l.clone();
        }
        files.put(
            path.to_vec(),
            Entry {
                hash,
                layout: planned.clone(),
                base: None,
                planned: true,
                pending: None,
                aliases: Vec::new(),
            },
        );
        planned
    }

    /// Original bytes -> view bytes.
    pub fn to_view(&self, path: &[u8], original: &[u8]) -> Vec<u8> {
        render(original, &self.layout(path, original))
    }

    /// View bytes -> original bytes. `base_original` is the file's current original (None
    /// for a new file). Remembers the new layout, so `to_view` of the result gives back
    /// exactly `view`.
    pub fn to_original(&self, path: &[u8], view: &[u8], base_original: Option<&[u8]>) -> Vec<u8> {
        let ((anchor, anchor_planned), shown) =
            self.anchor_and_current(path, base_original.unwrap_or(b""));
        self.inverted(path, anchor, anchor_planned, view, shown)
    }

    /// The base a write of `path`, whose original is now `current`, is inverted against
    /// (every write of a file against the first base, which makes the result
    /// path-independent), whether it is a fresh plan, and the digest and layout `current` is
    /// shown with now.
    fn anchor_and_current(&self, path: &[u8], current: &[u8]) -> ((Base, bool), (String, Layout)) {
        let hash = digest(current);
        // An alias: the state was saved for a write-back that a killed daemon never made
        // (or an outside writer put an earlier version back). Shown with its own layout and
        // inverted against the same base as the entry's bytes, as a write-back that did land.
        let known = self.files.lock().get(path).and_then(|e| {
            let planned = e.planned && e.hash == hash;
            e.layout_for(&hash)
                .map(|l| (l.clone(), e.base.clone(), planned))
        });
        let anchor = match known {
            Some((layout, Some(base), _)) => return ((base, false), (hash, layout)),
            // A base made here is the current original, whose digest is `hash`.
            Some((layout, None, planned)) => (
                Base {
                    file: BaseFile {
                        original: current.to_vec(),
                        layout,
                    },
                    sha: hash.clone(),
                },
                planned,
            ),
            // Never seen, or changed behind our back: start from what is there now.
            None => (
                Base {
                    file: BaseFile {
                        original: current.to_vec(),
                        layout: self.plan_of(path, current, &hash),
                    },
                    sha: hash.clone(),
                },
                true,
            ),
        };
        let shown = (hash, anchor.0.file.layout.clone());
        (anchor, shown)
    }

    /// The original of `view` inverted against `anchor`, its layout remembered.
    /// `replaced`: the digest and layout of the bytes being replaced (kept for readers).
    fn inverted(
        &self,
        path: &[u8],
        anchor: Base,
        anchor_planned: bool,
        view: &[u8],
        replaced: (String, Layout),
    ) -> Vec<u8> {
        let (original, layout) = inverse(&anchor.file.original, &anchor.file.layout, view);
        let hashes = (digest(&original), replaced.0.as_str());
        let e = Entry::inverted(anchor, anchor_planned, &original, hashes, layout);
        self.put_replacing(path, replaced, e);
        original
    }

    /// Set the entry of `path` to `e`, keeping the bytes it replaces (`replaced`, digest and
    /// layout) for a reader that read them before (see `Entry::aliases`).
    fn put_replacing(&self, path: &[u8], replaced: (String, Layout), mut e: Entry) {
        let mut files = self.files.lock();
        if let Some(old) = files.get(path) {
            e.aliases = old.aliases.clone();
        }
        if replaced.0 != e.hash {
            e.alias(replaced);
        }
        files.put(path.to_vec(), e);
    }

    /// [`LayoutStore::to_original`] without the inverse, for a write-back that must not wait
    /// for it (two parses of the file): the original takes the view's own order (an identity
    /// layout, so `to_view` gives back exactly `view`), and the entry keeps the base the
    /// inverse would use, so that [`LayoutStore::settle`] gives exactly what `to_original`
    /// would have given here (the inverse depends on the base and the final view alone).
    /// A view that is its base's view is its base's original at once.
    pub fn to_original_unsettled(
        &self,
        path: &[u8],
        view: &[u8],
        base_original: Option<&[u8]>,
    ) -> Vec<u8> {
        let ((anchor, anchor_planned), shown) =
            self.anchor_and_current(path, base_original.unwrap_or(b""));
        if render(&anchor.file.original, &anchor.file.layout) == view {
            // What the inverse gives for its base's own view (law 1, which `plan` checks for
            // every layout it returns and `inverse` keeps for every layout it returns).
            let original = anchor.file.original.clone();
            let (hash, layout) = (anchor.sha.clone(), anchor.file.layout.clone());
            let e = Entry::inverted(anchor, anchor_planned, &original, (hash, &shown.0), layout);
            self.put_replacing(path, shown, e);
            return original;
        }
        self.put_replacing(
            path,
            shown,
            Entry {
                hash: digest(view),
                layout: Layout::identity(split_lines(view).len()),
                base: Some(anchor),
                planned: false,
                pending: Some(anchor_planned),
                aliases: Vec::new(),
            },
        );
        view.to_vec()
    }

    /// The settled form of `path`, whose original now is `original`, when that is still what
    /// [`LayoutStore::to_original_unsettled`] wrote: what `to_original` gives for the same
    /// view (its new layout renders it to the same view, so the view does not change).
    /// Computed without changing the store (it parses the file); [`LayoutStore::settle_step`]
    /// puts it in place. `None` when there is nothing to settle.
    pub fn settle(&self, path: &[u8], original: &[u8]) -> Option<Settled> {
        let hash = digest(original);
        let (anchor, anchor_planned, from, shown) = {
            let files = self.files.lock();
            let e = files.get(path)?;
            let shown = match e.hash == hash {
                true => None,
                // An alias: a daemon killed between saving the state and replacing the file
                // (this write-back's or the settle's own): the file is settled to the view
                // its bytes show, which the view keeps showing.
                false => Some(e.layout_for(&hash)?.clone()),
            };
            (e.base.clone()?, e.pending?, e.hash.clone(), shown)
        };
        // The identity layout of an unsettled original: the view (in original names) is the
        // original itself.
        let view = match &shown {
            None => std::borrow::Cow::Borrowed(original),
            Some(layout) => std::borrow::Cow::Owned(render(original, layout)),
        };
        let (settled, layout) = inverse(&anchor.file.original, &anchor.file.layout, &view);
        Some(Settled {
            from,
            to: digest(&settled),
            original: settled,
            layout,
            anchor,
            anchor_planned,
        })
    }

    /// One step of putting a settled form in place, which the caller does around replacing
    /// the original's bytes (under its write-back lock): `Begin` before (the settled bytes
    /// get their layout as an alias, for a reader that reads them before `Commit`), `Commit`
    /// after (the settled form is the file's, the unsettled bytes its alias, for a reader
    /// that read them before), `Abort` when the bytes could not be replaced. Whether the
    /// step was taken: false when a write-back changed the file since `settle`.
    pub fn settle_step(&self, path: &[u8], s: &Settled, step: SettleStep) -> bool {
        let mut files = self.files.lock();
        let Some(e) = files
            .map
            .get_mut(path)
            .filter(|e| e.hash == s.from && e.pending.is_some())
        else {
            return false;
        };
        match step {
            SettleStep::Begin => {
                e.alias((s.to.clone(), s.layout.clone()));
                files.changed.insert(path.to_vec());
            }
            SettleStep::Abort => {
                e.aliases.retain(|(h, _)| *h != s.to);
                files.changed.insert(path.to_vec());
            }
            SettleStep::Commit => {
                let unsettled = (e.hash.clone(), e.layout.clone());
                let mut next = Entry::inverted(
                    s.anchor.clone(),
                    s.anchor_planned,
                    &s.original,
                    (s.to.clone(), &unsettled.0),
                    s.layout.clone(),
                );
                next.aliases = e.aliases.clone();
                next.aliases.retain(|(h, _)| *h != s.to);
                next.alias(unsettled);
                files.put(path.to_vec(), next);
            }
        }
        true
    }

    /// Whether the original of `path` waits for [`LayoutStore::settle`].
    pub fn is_unsettled(&self, path: &[u8]) -> bool {
        self.files
            .lock()
            .get(path)
            .is_some_and(|e| e.pending.is_some())
    }

    /// Paths whose originals wait for [`LayoutStore::settle`].
    pub fn unsettled(&self) -> Vec<Vec<u8>> {
        let files = self.files.lock();
        files
            .map
            .iter()
            .filter(|(_, e)| e.pending.is_some())
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// The digests of the bases the saved state refers to (`FileLayout::base_blob`).
    pub fn base_blobs(&self) -> Vec<String> {
        self.files
            .lock()
            .map
            .values()
            .filter(|e| !e.planned)
            .filter_map(|e| e.base.as_ref().map(|b| b.sha.clone()))
            .collect()
    }

    /// The original bytes of the base with this digest, for saving them.
    pub fn base_blob(&self, sha: &str) -> Option<Vec<u8>> {
        self.files
            .lock()
            .map
            .values()
            .find_map(|e| e.base.as_ref().filter(|b| b.sha == sha))
            .map(|b| b.file.original.clone())
    }

    /// Whether any write or rename left a layout (the saved state is not empty).
    pub fn remembers_any(&self) -> bool {
        self.files.lock().map.values().any(|e| !e.planned)
    }

    /// Whether a write or a rename left a layout for `path` (one a fresh plan need not give).
    pub fn remembers(&self, path: &[u8]) -> bool {
        self.files.lock().get(path).is_some_and(|e| !e.planned)
    }

    /// The file is gone from the original.
    pub fn forget(&self, path: &[u8]) {
        self.files.lock().take(path);
    }

    /// A file or directory moved in the original: the remembered layouts and bases of the
    /// file, or of every file below the directory, move with it (the view of a moved file
    /// does not change, though its path seeds the order).
    pub fn rename(&self, from: &[u8], to: &[u8]) {
        let mut files = self.files.lock();
        for k in files.under(from) {
            if let Some(mut e) = files.take(&k) {
                // The old path seeded this layout; the new path would plan another one.
                e.planned = false;
                files.put(moved_path(&k, from, to), e);
            }
        }
    }

    /// Before the move of [`LayoutStore::rename`]: the entries below `from` are copied below
    /// `to` as well, so a state saved now shows the file alike at either path (a daemon
    /// killed before or after the move; the copies left at the path without the file are
    /// never read, and go with its next removal or rename there).
    pub fn rename_begin(&self, from: &[u8], to: &[u8]) {
        let mut files = self.files.lock();
        for k in files.under(from) {
            if let Some(mut e) = files.get(&k).cloned() {
                e.planned = false;
                files.put(moved_path(&k, from, to), e);
            }
        }
    }

    /// The move after [`LayoutStore::rename_begin`] failed: the copies go.
    pub fn rename_abort(&self, from: &[u8], to: &[u8]) {
        let mut files = self.files.lock();
        for k in files.under(from) {
            files.take(&moved_path(&k, from, to));
        }
    }
}

/// Path `k` below `from`, moved below `to`.
fn moved_path(k: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    [to, &k[from.len()..]].concat()
}

impl Files {
    /// The paths of the entries for `path` and below it.
    fn under(&self, path: &[u8]) -> Vec<Vec<u8>> {
        let prefix = [path, b"/"].concat();
        self.map
            .keys()
            .filter(|k| k.as_slice() == path || k.starts_with(&prefix))
            .cloned()
            .collect()
    }
}

/// Whether a file name is Python source, the only kind Level 3 reorders.
pub fn is_python_name(name: &[u8]) -> bool {
    name.ends_with(b".py") || name.ends_with(b".pyi") || name.ends_with(b".pyw")
}

/// The seeded layout of an original file; the identity layout when it does not parse or when
/// the planned layout would not survive its own round trip (checked, law 1).
pub fn plan(path: &[u8], original: &[u8], seed: u64, ordered: &BTreeSet<String>) -> Layout {
    let n = split_lines(original).len();
    let structure = match reorder::analyze(original) {
        Ok(s) => s,
        Err(why) => {
            tracing::debug!(path = %String::from_utf8_lossy(path), %why, "level 3: served in original order");
            return Layout::identity(n);
        }
    };
    let order = reorder::emit(n, &structure.runs, &mut |run| {
        reorder::seeded_order(run, seed, path, ordered)
    });
    let planned = Layout::from_order(&order);
    if planned.is_identity() {
        return planned;
    }
    let view = render(original, &planned);
    let (back, back_layout) = inverse(original, &planned, &view);
    if back != original || back_layout != planned {
        tracing::debug!(path = %String::from_utf8_lossy(path), "level 3: planned layout does not round-trip; served in original order");
        return Layout::identity(n);
    }
    planned
}

/// Files of three definitions for tests, here and in `fs`: their definitions put in
/// another order by hand, one that no fresh plan gives.
#[cfg(test)]
pub(crate) mod three_defs {
    /// A file of three definitions a, b, c.
    pub const SRC: &[u8] =
        b"def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";

    /// Every order of three definitions.
    pub const ORDERS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [2, 0, 1],
        [1, 2, 0],
        [2, 1, 0],
        [0, 2, 1],
        [1, 0, 2],
    ];

    /// The definitions of `view` (separated by two blank lines) in `order`.
    pub fn in_order(view: &[u8], order: [usize; 3]) -> Vec<u8> {
        let text = String::from_utf8_lossy(view);
        let defs: Vec<&str> = text.trim_end().split("\n\n\n").collect();
        format!("{}\n", order.map(|i| defs[i]).join("\n\n\n")).into_bytes()
    }

    /// The definitions of `view` in an order that is neither `view`'s nor `other`'s.
    pub fn moved(view: &[u8], other: &[u8]) -> Vec<u8> {
        ORDERS
            .iter()
            .map(|&p| in_order(view, p))
            .find(|t| t != view && t != other)
            .expect("three definitions have six orders")
    }
}

#[cfg(test)]
mod tests {
    use super::three_defs::{self, SRC};
    use super::*;

    /// A store whose seed shows `SRC` in another order.
    fn reordering_store() -> LayoutStore {
        (0..64)
            .map(LayoutStore::new)
            .find(|s| s.to_view(b"m.py", SRC) != SRC)
            .expect("a seed that reorders")
    }

    #[test]
    fn layouts_are_canonical_and_checked() {
        assert_eq!(Layout::identity(3).segments(), &[(0, 3)]);
        assert!(Layout::identity(0).segments().is_empty());
        let l = Layout::from_order(&[2, 3, 0, 1]);
        assert_eq!(l.segments(), &[(2, 4), (0, 2)]);
        assert!(l.is_valid_for(4) && !l.is_valid_for(5) && !l.is_identity());
        assert!(!Layout::from_order(&[0, 0]).is_valid_for(2));
    }

    #[test]
    fn render_keeps_bytes_and_ignores_layouts_that_do_not_fit() {
        let text = b"a\r\nb\n\xffc";
        assert_eq!(
            render(text, &Layout::from_order(&[1, 0, 2])),
            b"b\na\r\n\xffc"
        );
        assert_eq!(render(text, &Layout::from_order(&[1, 0])), text);
    }

    /// Laws 1, 2 and 4 with names whose order is kept (`keeping_order_of`): the view keeps
    /// their relative order under every seed, the view goes back to the original byte for
    /// byte, an edit inside one of them goes back as that one-line change, and reading back
    /// gives what was written.
    #[test]
    fn a_store_keeping_order_round_trips_and_keeps_patches_minimal() {
        let src = b"def t_b(t):\n    return 1\n\n\ndef other(x):\n    return 2\n\n\ndef t_a(t):\n    return 3\n\n\ndef more(x):\n    return 4\n\n\ndef t_c(t):\n    return 5\n";
        let ordered: BTreeSet<String> = ["t_b", "t_a", "t_c"].map(String::from).into();
        let mut moved = 0;
        for seed in 0..24 {
            let store = LayoutStore::new(seed).keeping_order_of(ordered.clone());
            let view = store.to_view(b"lex.py", src);
            let text = String::from_utf8(view.clone()).unwrap();
            let at = |n: &str| text.find(&format!("def {n}(")).unwrap();
            assert!(
                at("t_b") < at("t_a") && at("t_a") < at("t_c"),
                "seed {seed}: {text}"
            );
            moved += usize::from(view != src.to_vec());
            assert_eq!(store.to_original(b"lex.py", &view, Some(src)), src.to_vec());
            let edited = text.replace("return 3", "return 33").into_bytes();
            let back = store.to_original(b"lex.py", &edited, Some(src));
            let want = String::from_utf8(src.to_vec())
                .unwrap()
                .replace("return 3", "return 33");
            assert_eq!(
                String::from_utf8(back.clone()).unwrap(),
                want,
                "seed {seed}"
            );
            assert_eq!(store.to_view(b"lex.py", &back), edited, "seed {seed}");
        }
        assert!(moved > 0, "no seed moved anything: the test shows nothing");
    }

    /// Law 2 for a reader that read a file just before a write-back or a settle replaced it
    /// (readers take no lock): its bytes still show what they showed, and asking does not
    /// take the layout away from the bytes written, nor the first base from the next write.
    #[test]
    fn a_reader_of_replaced_bytes_leaves_the_written_layout_alone() {
        let src = SRC;
        let store = reordering_store();
        let view = store.to_view(b"m.py", src);
        // Edited, and the definitions put in an order that is neither the view's nor the
        // original's: a layout no fresh plan gives.
        let edited = [b"# x\n".as_slice(), &three_defs::moved(&view, src)].concat();
        let o = store.to_original(b"m.py", &edited, Some(src));
        assert_ne!(
            plan(b"m.py", &o, store.seed, &BTreeSet::new()),
            store.layout(b"m.py", &o)
        );
        assert_eq!(store.to_view(b"m.py", src), view, "the replaced bytes");
        assert_eq!(store.to_view(b"m.py", &o), edited, "the written bytes");
        // The same around an unsettled write and its settle.
        let twice = [b"# y\n".as_slice(), &edited].concat();
        let fast = store.to_original_unsettled(b"m.py", &twice, Some(&o));
        assert_eq!(store.to_view(b"m.py", &o), edited);
        assert_eq!(store.to_view(b"m.py", &fast), twice);
        let s = store.settle(b"m.py", &fast).expect("unsettled");
        assert!(store.settle_step(b"m.py", &s, SettleStep::Begin));
        assert_eq!(store.to_view(b"m.py", s.original()), twice);
        assert_eq!(store.to_view(b"m.py", &fast), twice);
        assert!(store.settle_step(b"m.py", &s, SettleStep::Commit));
        assert_eq!(store.to_view(b"m.py", &fast), twice);
        assert_eq!(store.to_view(b"m.py", s.original()), twice);
        // What a store without readers and settles gives, the next write included (still
        // inverted against the first base).
        let alone = LayoutStore::new(store.seed);
        alone.to_view(b"m.py", src);
        let o_alone = alone.to_original(b"m.py", &edited, Some(src));
        assert_eq!(o_alone, o);
        let twice_alone = alone.to_original(b"m.py", &twice, Some(&o_alone));
        assert_eq!(s.original(), twice_alone.as_slice());
        let thrice = [b"# z\n".as_slice(), &twice].concat();
        assert_eq!(
            store.to_original(b"m.py", &thrice, Some(s.original())),
            alone.to_original(b"m.py", &thrice, Some(&twice_alone))
        );
        // Alike but for the other versions each remembers (readers and settles differ).
        let versions = |mut st: LayoutState| {
            st.files.iter_mut().for_each(|f| f.aliases.clear());
            st
        };
        assert_eq!(versions(store.state()), versions(alone.state()));
    }

    #[test]
    fn store_survives_a_save_and_reload() {
        let store = LayoutStore::new(5);
        let src = b"import x\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
        let view = store.to_view(b"m.py", src);
        let edited = [&view[..], b"\n\ndef d():\n    return 4\n"].concat();
        let o = store.to_original(b"m.py", &edited, Some(src));
        let json = serde_json::to_string(&store.state()).unwrap();
        let back = LayoutStore::from_state(serde_json::from_str(&json).unwrap(), &|n| {
            store.base_blob(n)
        });
        assert_eq!(back.to_view(b"m.py", &o), edited);
        assert_eq!(back.to_original(b"m.py", &edited, Some(&o)), o);
    }

    /// The state names each base by the digest of its bytes and holds no bytes itself; the
    /// bytes come back through the lookup, a damaged one is dropped, and a state of an older
    /// version (bases inline) still loads.
    #[test]
    fn bases_are_saved_apart_and_read_back() {
        let store = LayoutStore::new(5);
        let src =
            b"def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
        let view = store.to_view(b"m.py", src);
        let edited = [&view[..], b"\n\ndef d():\n    return 4\n"].concat();
        let o = store.to_original(b"m.py", &edited, Some(src));
        let st = store.state();
        let f = &st.files[0];
        assert!(f.base.is_none());
        assert_eq!(f.base_blob.as_deref(), Some(digest(src).as_str()));
        assert_eq!(store.base_blobs(), [digest(src)]);
        assert_eq!(store.base_blob(&digest(src)).as_deref(), Some(&src[..]));
        let json = serde_json::to_string(&st).unwrap();
        assert!(!json.contains("\"original\""), "{json}");
        // Read back with the bytes: the next write inverts against the same base.
        let again = [&edited[..], b"\n\ndef e():\n    return 5\n"].concat();
        let want = store.to_original(b"m.py", &again, Some(&o));
        let found = |n: &str| (n == digest(src)).then(|| src.to_vec());
        let back = LayoutStore::from_state(serde_json::from_str(&json).unwrap(), &found);
        assert_eq!(back.to_original(b"m.py", &again, Some(&o)), want);
        // Damaged bytes: the base is dropped, the layout kept.
        let damaged = |_: &str| Some(b"something else".to_vec());
        let back = LayoutStore::from_state(serde_json::from_str(&json).unwrap(), &damaged);
        assert_eq!(back.to_view(b"m.py", &o), edited);
        assert!(back.base_blobs().is_empty());
        // An older state with the base inline.
        let mut legacy = st.clone();
        legacy.files[0].base = Some(BaseFile {
            original: src.to_vec(),
            layout: legacy.files[0].base_layout.take().unwrap(),
        });
        legacy.files[0].base_blob = None;
        let back = LayoutStore::from_state(legacy, &|_| None);
        assert_eq!(back.to_original(b"m.py", &again, Some(&o)), want);
    }

    #[test]
    fn saved_state_holds_what_writes_and_renames_made_and_nothing_else() {
        let a =
            b"def a_one():\n    pass\n\n\ndef a_two():\n    pass\n\n\ndef a_three():\n    pass\n";
        let b = b"def b_one():\n    pass\n\n\ndef b_two():\n    pass\n";
        let store = LayoutStore::new(5);
        let va = store.to_view(b"a.py", a);
        let vb = store.to_view(b"b.py", b);
        assert!(store.state().files.is_empty(), "fresh plans are not saved");
        // Written back unchanged (`sed -i` that changes nothing): still a fresh plan.
        assert_eq!(store.to_original(b"b.py", &vb, Some(b)), b);
        assert!(
            store.state().files.is_empty(),
            "an unchanged write-back is not saved"
        );
        // A write that moves a function: kept in the view's order, saved.
        let mut lines: Vec<&[u8]> = split_lines(&va);
        let last = lines.pop().unwrap();
        let edited: Vec<u8> = [last, b"\n\n", &lines.concat()].concat();
        let orig = store.to_original(b"a.py", &edited, Some(a));
        // A rename carries a layout planned for another path: saved.
        store.rename(b"b.py", b"c.py");
        let st = store.state();
        let paths: Vec<&[u8]> = st.files.iter().map(|f| f.path.as_slice()).collect();
        assert_eq!(paths, [&b"a.py"[..], b"c.py"]);
        let back = LayoutStore::from_state(st, &|n| store.base_blob(n));
        assert_eq!(back.to_view(b"a.py", &orig), store.to_view(b"a.py", &orig));
        assert_eq!(back.to_view(b"c.py", b), store.to_view(b"c.py", b));
    }

    /// A write that changes a file back to its first original (an edit undone) is saved
    /// with its base and the bytes it replaces: the state is saved before the file is
    /// replaced, and a daemon killed in between leaves the edited bytes, which must still
    /// show as they were shown and be inverted against the first original. (A rewrite that
    /// changes nothing is still not saved:
    /// `saved_state_holds_what_writes_and_renames_made_and_nothing_else`.)
    #[test]
    fn an_undone_edit_saved_before_its_replacement_keeps_the_edited_bytes_shown() {
        let src = SRC;
        let store = reordering_store();
        let view = store.to_view(b"m.py", src);
        // Edited with the definitions moved to an order no plan gives, then undone.
        let edited = three_defs::moved(&view, src);
        let o = store.to_original(b"m.py", &edited, Some(src));
        assert_eq!(store.to_original(b"m.py", &view, Some(&o)), src, "undone");
        let saved = LayoutStore::from_state(store.state(), &|n| store.base_blob(n));
        assert_eq!(
            saved.to_view(b"m.py", &o),
            edited,
            "killed before the replacement"
        );
        assert_eq!(saved.to_view(b"m.py", src), view, "killed after it");
        // Every order of the three definitions, written next: inverted against the first
        // original, as after the undo had landed.
        for p in three_defs::ORDERS {
            let again = [b"# x\n".as_slice(), &three_defs::in_order(&view, p)].concat();
            let from_edited = LayoutStore::from_state(store.state(), &|n| store.base_blob(n));
            let direct = LayoutStore::new(store.seed);
            direct.to_view(b"m.py", src);
            assert_eq!(
                from_edited.to_original(b"m.py", &again, Some(&o)),
                direct.to_original(b"m.py", &again, Some(src)),
                "the next write ({p:?}) is inverted against the first original"
            );
        }
    }

    /// Between `rename_begin` and the move, the saved state shows each file below the moved
    /// directory alike at the old and the new path (a killed daemon leaves the tree either
    /// way), with the layout the view showed, which a fresh plan at the new path would not
    /// give; an aborted move leaves the store as before, a completed one as a plain move.
    #[test]
    fn a_state_saved_before_a_move_shows_the_file_at_either_path() {
        let src = SRC;
        let (old, new) = (&b"p/m.py"[..], &b"q/m.py"[..]);
        let seed = (0..64)
            .find(|&s| plan(old, src, s, &BTreeSet::new()) != plan(new, src, s, &BTreeSet::new()))
            .expect("a seed that orders the file by its path");
        let store = LayoutStore::new(seed);
        let shown = store.to_view(old, src);
        let before = store.state();
        store.rename_begin(b"p", b"q");
        let saved = LayoutStore::from_state(store.state(), &|n| store.base_blob(n));
        assert_eq!(saved.to_view(old, src), shown, "killed before the move");
        assert_eq!(saved.to_view(new, src), shown, "killed after the move");
        store.rename_abort(b"p", b"q");
        assert_eq!(store.state(), before);
        assert_eq!(store.to_view(old, src), shown);
        let plain = LayoutStore::new(seed);
        plain.to_view(old, src);
        plain.rename(b"p", b"q");
        store.rename_begin(b"p", b"q");
        store.rename(b"p", b"q");
        assert_eq!(store.state(), plain.state());
        assert_eq!(store.to_view(new, src), shown);
    }

    /// The journal's contract: after any sequence of writes, replans, renames and removals,
    /// the changes drained so far, replayed in order onto the first state, give `state()`;
    /// and a step that leaves the saved state as it was drains nothing.
    #[test]
    fn changes_replayed_onto_the_last_state_give_the_state() {
        let src = |n: u8| -> Vec<u8> {
            format!("def a{n}():\n    pass\n\n\ndef b{n}():\n    pass\n\n\ndef c{n}():\n    pass\n")
                .into_bytes()
        };
        let store = LayoutStore::new(9);
        let mut replayed = store.state();
        let mut check = |store: &LayoutStore, what: &str| {
            replayed.apply(store.changes());
            assert_eq!(replayed.files, store.state().files, "after {what}");
        };
        let (a, b) = (src(1), src(2));
        let va = store.to_view(b"p/a.py", &a);
        store.to_view(b"p/b.py", &b);
        check(&store, "plans");
        let edited = [&va[..], b"\n\ndef d():\n    return 4\n"].concat();
        let a2 = store.to_original(b"p/a.py", &edited, Some(&a));
        check(&store, "an edit");
        // Written back as it now shows: nothing to save.
        store.to_original(b"p/a.py", &edited, Some(&a2));
        assert!(
            store.changes().is_empty(),
            "an unchanged write-back drained a change"
        );
        store.rename_begin(b"p", b"r");
        check(&store, "a move begun");
        store.rename_abort(b"p", b"r");
        check(&store, "a move undone");
        store.rename_begin(b"p", b"q");
        check(&store, "a move begun again");
        store.rename(b"p", b"q");
        check(&store, "a directory moved");
        // The original changed behind the store's back: a fresh plan, no longer saved.
        store.to_view(b"q/a.py", &src(3));
        check(&store, "a replan");
        store.forget(b"q/b.py");
        check(&store, "a removal");
        assert!(store.changes().is_empty());
    }

    /// Stores sharing a plan cache plan each file once between them, and show what an
    /// unshared store shows.
    #[test]
    fn stores_sharing_plans_plan_a_file_once_and_agree() {
        let src =
            b"def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
        let seed = (0..)
            .find(|&s| LayoutStore::new(s).to_view(b"m.py", src) != src)
            .unwrap();
        let alone = LayoutStore::new(seed).to_view(b"m.py", src);
        let cache = PlanCache::default();
        let fresh = LayoutStore::new(seed).sharing_plans(cache.clone());
        let live = LayoutStore::new(seed).sharing_plans(cache.clone());
        assert_eq!(fresh.to_view(b"m.py", src), alone);
        assert_eq!(cache.lock().len(), 1);
        // The live store's first write-back inverts against the shared plan: an unchanged
        // view gives the original back, an edit lands as in an unshared store.
        assert_eq!(live.to_original(b"m.py", &alone, Some(src)), src);
        let edited = [&alone[..], b"\n\ndef d():\n    return 4\n"].concat();
        let want = LayoutStore::new(seed).to_original(b"m.py", &edited, Some(src));
        let live = LayoutStore::new(seed).sharing_plans(cache.clone());
        assert_eq!(live.to_original(b"m.py", &edited, Some(src)), want);
        // It is the cache that answers: a layout put there for these bytes is the one used.
        let planted = PlanCache::default();
        let n = split_lines(src).len();
        planted
            .lock()
            .insert(b"m.py".to_vec(), (digest(src), Layout::identity(n)));
        let store = LayoutStore::new(seed).sharing_plans(planted);
        assert_eq!(store.to_view(b"m.py", src), src);
    }

    /// Lines a generated file is made of: units that may move, anchors, comments, blank
    /// lines, and lines that break the syntax or the indentation.
    const LINES: &[&str] = &[
        "def f(x):\n",
        "def g(y=f):\n",
        "    return x\n",
        "    pass\n",
        "class C(B):\n",
        "    def m(self):\n",
        "        return 1\n",
        "@register\n",
        "# note\n",
        "\n",
        "\n",
        "X = f(1)\n",
        "import os\n",
        "s = '''\n",
        "'''\n",
        "def broken(:\n",
        "  odd\n",
    ];

    fn text_of(picks: &[usize]) -> Vec<u8> {
        picks.iter().flat_map(|&i| LINES[i].bytes()).collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The shortcut of `inverse`: when every line of the new view maps to where it
        /// already is, the answer is the view itself, unmoved. The same answer as running
        /// the analysis, for any file, any seeded layout (or none), and any edit.
        #[test]
        fn identity_mapping_skips_analysis(
            base in proptest::collection::vec(0usize..LINES.len(), 0..24),
            seed in 0u64..6,
            planned in proptest::bool::ANY,
            edits in proptest::collection::vec((0usize..4, 0usize..32, 0usize..LINES.len()), 0..4),
        ) {
            let original = text_of(&base);
            let n = split_lines(&original).len();
            // The seeded order itself, not `plan` (which checks it with `inverse`).
            let layout = match reorder::analyze(&original) {
                Ok(s) if planned => Layout::from_order(&reorder::emit(n, &s.runs, &mut |run| {
                    reorder::seeded_order(run, seed, b"p.py", &BTreeSet::new())
                })),
                _ => Layout::identity(n),
            };
            let view = render(&original, &layout);
            let mut lines: Vec<Vec<u8>> = split_lines(&view).iter().map(|l| l.to_vec()).collect();
            for (op, at, pick) in edits {
                let at = at % (lines.len() + 1);
                let line = LINES[pick].as_bytes().to_vec();
                match op {
                    0 => lines.insert(at, line),
                    1 if at < lines.len() => {
                        lines.remove(at);
                    }
                    2 if at < lines.len() => lines[at] = line,
                    3 if at + 1 < lines.len() => {
                        // A line moved to the end: the mapping is no longer the identity.
                        let l = lines.remove(at);
                        lines.push(l);
                    }
                    _ => {}
                }
            }
            let new_view = lines.concat();
            let fast = inverse_with(&original, &layout, &new_view, true);
            let full = inverse_with(&original, &layout, &new_view, false);
            proptest::prop_assert_eq!(&fast, &full);
            proptest::prop_assert_eq!(render(&fast.0, &fast.1), new_view);
        }
    }

    /// The shortcut's two sides. In a file shown in its own order, a diff matches lines in
    /// order, so every edit maps to the identity and gives the view back as the original,
    /// a unit moved included (the diff sees it removed and added). In a file whose view is
    /// reordered, an edit still puts the units back in original order.
    #[test]
    fn identity_mapping_is_taken_and_moves_still_go_back() {
        let original =
            b"def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
        let id = Layout::identity(split_lines(original).len());
        let moved =
            b"def b():\n    return 2\n\n\ndef a():\n    return 1\n\n\ndef c():\n    return 3\n";
        assert_eq!(
            inverse(original, &id, moved),
            (moved.to_vec(), Layout::identity(10))
        );
        let layout = (0..64)
            .map(|seed| plan(b"m.py", original, seed, &BTreeSet::new()))
            .find(|l| !l.is_identity())
            .unwrap();
        let view = render(original, &layout);
        let edited = [&b"# new\n"[..], &view].concat();
        let (back, back_layout) = inverse(original, &layout, &edited);
        assert_eq!(back, [&b"# new\n"[..], &original[..]].concat());
        assert_eq!(render(&back, &back_layout), edited);
    }
}
