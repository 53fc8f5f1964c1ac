//! The transform's state on disk (Level 3 layouts and bases), saved after every write-back
//! without writing all of it each time.
//!
//! Guarantees: whatever point a killed daemon stopped at, the state directory describes a
//! state the layout store had after some completed save (so a remount reads back what was
//! written, law 2, and inverts against the same bases, law 4); a save never names a base
//! blob that is not on disk.
//!
//! How: a snapshot (`layouts.json`, replaced atomically) names a journal generation `N`; the
//! journal `layouts.journal.N` holds the changes made since, one JSON line each
//! (`LayoutStore::changes`, drained and appended under one lock, so in the order they were
//! made). Loading replays the journal onto its snapshot and stops at a line that does not
//! parse (the tail of an append a kill cut short; only the last line can be one). A
//! daemon's first save, a save after a failed one, and every save after `COMPACT_AFTER`
//! lines write a new snapshot under the next generation and then remove the old journal: a
//! kill between the two leaves a journal no snapshot names, never one replayed onto a newer
//! snapshot. Blobs are saved before the snapshot or line that names them. A write-back thus
//! appends one line instead of rewriting a state that grows with every edited file.

use std::fs;
use std::io::{self, BufRead, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::transform::layout::{LayoutState, StateChange};

use super::content::{write_atomic, Durability};

/// File in the state directory holding the snapshot of the transform's state.
pub const TRANSFORM_STATE_FILE: &str = "layouts.json";
/// Directory in the state directory holding the blobs the transform's state refers to
/// (Level 3's bases, one file per digest).
pub const TRANSFORM_BLOBS_DIR: &str = "layout-bases";

/// Lines a journal may reach before the next save writes a snapshot instead.
pub const COMPACT_AFTER: usize = 1024;

/// The journal of generation `generation` in `state_dir`.
pub fn journal_path(state_dir: &Path, generation: u64) -> PathBuf {
    state_dir.join(format!("layouts.journal.{generation}"))
}

/// The snapshot of `state_dir`, if it has a readable one (its journal not replayed).
fn read_snapshot(state_dir: &Path) -> Option<LayoutState> {
    let bytes = fs::read(state_dir.join(TRANSFORM_STATE_FILE)).ok()?;
    match serde_json::from_slice(&bytes) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!("{TRANSFORM_STATE_FILE} does not parse ({e}); ignored");
            None
        }
    }
}

/// The saved state of `state_dir`: its snapshot with its journal replayed, if it has one.
pub fn load(state_dir: &Path) -> Option<LayoutState> {
    let mut state = read_snapshot(state_dir)?;
    if let Ok(f) = fs::File::open(journal_path(state_dir, state.journal)) {
        let changes = io::BufReader::new(f)
            .split(b'\n')
            .map_while(|line| serde_json::from_slice::<StateChange>(&line.ok()?).ok());
        state.apply(changes);
    }
    Some(state)
}

/// Copy the saved state of `from` (snapshot, its journal, blobs) into `to`.
pub fn copy(from: &Path, to: &Path) -> io::Result<()> {
    if let Some(st) = read_snapshot(from) {
        fs::copy(
            from.join(TRANSFORM_STATE_FILE),
            to.join(TRANSFORM_STATE_FILE),
        )?;
        let journal = journal_path(from, st.journal);
        if journal.exists() {
            fs::copy(&journal, journal_path(to, st.journal))?;
        }
    }
    if let Ok(rd) = fs::read_dir(from.join(TRANSFORM_BLOBS_DIR)) {
        let dir = to.join(TRANSFORM_BLOBS_DIR);
        fs::create_dir_all(&dir)?;
        for e in rd {
            let e = e?;
            fs::copy(e.path(), dir.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// Where a daemon's saves stand.
#[derive(Debug, Default)]
pub struct Saver {
    /// The generation this daemon's last snapshot named; `None` until it wrote one, and
    /// after a save that failed (the next save writes a whole snapshot again).
    generation: Option<u64>,
    /// Lines in that generation's journal.
    lines: usize,
    /// Lines appended since the journal was last synced.
    unsynced: bool,
}

impl Saver {
    /// Whether the next save must write a snapshot.
    pub fn snapshot_due(&self) -> bool {
        self.generation.is_none() || self.lines >= COMPACT_AFTER
    }

    /// A save failed before it wrote anything: the next one writes a whole snapshot.
    pub fn fail(&mut self) {
        self.generation = None;
    }

    /// Write `state` as the snapshot of the next generation, then remove the journal it
    /// replaces (and, on a daemon's first snapshot, the one the old snapshot named).
    pub fn write_snapshot(
        &mut self,
        state_dir: &Path,
        mut state: LayoutState,
        durability: Durability,
    ) -> io::Result<()> {
        let old = match self.generation {
            Some(g) => Some(g),
            None => read_snapshot(state_dir).map(|s| s.journal),
        };
        let generation = old.map_or(1, |g| g.wrapping_add(1));
        state.journal = generation;
        let bytes = serde_json::to_vec(&state).map_err(io::Error::other)?;
        self.generation = None;
        write_atomic(
            &state_dir.join(TRANSFORM_STATE_FILE),
            &bytes,
            0o600,
            None,
            durability,
            None,
        )?;
        self.generation = Some(generation);
        self.lines = 0;
        self.unsynced = false;
        if let Some(g) = old {
            // Stale now: no snapshot names it.
            let _ = fs::remove_file(journal_path(state_dir, g));
        }
        Ok(())
    }

    /// Append `changes` to the current journal (a snapshot must have been written).
    pub fn append(
        &mut self,
        state_dir: &Path,
        changes: &[StateChange],
        durability: Durability,
    ) -> io::Result<()> {
        let Some(generation) = self.generation else {
            return Err(io::Error::other("no snapshot to append to"));
        };
        if changes.is_empty() && !(durability == Durability::Synced && self.unsynced) {
            return Ok(());
        }
        let mut lines = Vec::new();
        for c in changes {
            serde_json::to_writer(&mut lines, c).map_err(io::Error::other)?;
            lines.push(b'\n');
        }
        let result = (|| {
            let mut f = fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(journal_path(state_dir, generation))?;
            if !lines.is_empty() {
                f.write_all(&lines)?;
                self.lines += changes.len();
                self.unsynced = true;
            }
            if durability == Durability::Synced && self.unsynced {
                f.sync_data()?;
                self.unsynced = false;
            }
            Ok(())
        })();
        if result.is_err() {
            // What reached the journal is unknown: the next save writes it all again.
            self.generation = None;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::layout::{FileLayout, Layout};

    fn file(path: &str, hash: &str) -> FileLayout {
        FileLayout {
            path: path.as_bytes().to_vec(),
            hash: hash.to_string(),
            layout: Layout::identity(1),
            base: None,
            base_blob: None,
            base_layout: None,
            unsettled: false,
            aliases: Vec::new(),
        }
    }

    fn state(files: Vec<FileLayout>) -> LayoutState {
        LayoutState {
            seed: 5,
            files,
            journal: 0,
        }
    }

    #[test]
    fn a_journal_replays_onto_its_snapshot_and_a_torn_tail_ends_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Saver::default();
        s.write_snapshot(
            dir.path(),
            state(vec![file("a.py", "1")]),
            Durability::KillSafe,
        )
        .unwrap();
        s.append(
            dir.path(),
            &[
                StateChange::Set(file("b.py", "2")),
                StateChange::Gone(b"a.py".to_vec()),
            ],
            Durability::Synced,
        )
        .unwrap();
        s.append(
            dir.path(),
            &[StateChange::Set(file("c.py", "3"))],
            Durability::KillSafe,
        )
        .unwrap();
        let got = load(dir.path()).unwrap();
        let want = state(vec![file("b.py", "2"), file("c.py", "3")]);
        assert_eq!(got.files, want.files);
        // A kill in the middle of an append: the cut line and nothing after it is replayed.
        let journal = journal_path(dir.path(), got.journal);
        let mut bytes = fs::read(&journal).unwrap();
        let full = bytes.len();
        bytes.extend_from_slice(br#"{"set":{"path":[100,46,112,121],"ha"#);
        fs::write(&journal, &bytes).unwrap();
        assert_eq!(load(dir.path()).unwrap().files, want.files);
        bytes.truncate(full - 5);
        fs::write(&journal, &bytes).unwrap();
        assert_eq!(
            load(dir.path()).unwrap().files,
            state(vec![file("b.py", "2")]).files,
            "the cut last line is not replayed"
        );
    }

    #[test]
    fn a_new_snapshot_leaves_the_old_journal_unread() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = Saver::default();
        first
            .write_snapshot(dir.path(), state(vec![]), Durability::KillSafe)
            .unwrap();
        first
            .append(
                dir.path(),
                &[StateChange::Set(file("a.py", "1"))],
                Durability::KillSafe,
            )
            .unwrap();
        let old = journal_path(dir.path(), load(dir.path()).unwrap().journal);
        // A later daemon's first save: a snapshot of the next generation.
        let mut second = Saver::default();
        assert!(second.snapshot_due());
        second
            .write_snapshot(
                dir.path(),
                state(vec![file("a.py", "2")]),
                Durability::KillSafe,
            )
            .unwrap();
        assert!(!old.exists(), "the replaced journal is removed");
        // Were it still there (a kill before its removal), no snapshot names it.
        fs::write(&old, br#"{"gone":[97,46,112,121]}"#).unwrap();
        assert_eq!(
            load(dir.path()).unwrap().files,
            vec![file("a.py", "2")],
            "a stale journal was replayed"
        );
        assert!(!second.snapshot_due());
        second.lines = COMPACT_AFTER;
        assert!(
            second.snapshot_due(),
            "a long journal is folded into a snapshot"
        );
    }

    #[test]
    fn an_append_without_a_snapshot_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Saver::default();
        assert!(s
            .append(
                dir.path(),
                &[StateChange::Gone(b"a".to_vec())],
                Durability::KillSafe
            )
            .is_err());
        assert!(load(dir.path()).is_none());
    }
}
