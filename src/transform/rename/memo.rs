//! A memo of what each run becomes (`Renamer::swap_run`).
//!
//! Guarantee: a lookup gives exactly what `swap_run` gives. `swap_run` is a function of the
//! run, its class and the map alone (no bytes around the run, no state), so its answer can be
//! kept; the map changes only through `&mut self` methods and builders, which clear the memo
//! (`Renamer::forget`). Keeping the answers is worth it because a tree says the same names
//! again and again: most runs of a file were decided in an earlier file, and each decision
//! splits the run into tokens and asks several sets about the run and its image.
//!
//! The memo is sharded behind short locks so that the background scan's threads and the
//! FUSE threads share it, and a shard that grows past `SHARD_LIMIT` entries starts again
//! empty, so its memory stays bounded whatever text is written through the view.

use std::collections::HashMap;

use parking_lot::Mutex;

use super::Class;

const SHARDS: usize = 16;
const SHARD_LIMIT: usize = 1 << 12;
/// `Class` has six variants; each run keeps one answer per class.
const CLASSES: usize = 6;

/// One run's answers by class: `None` not asked yet, `Some(None)` stays, `Some(Some(x))` is x.
type Answers = [Option<Option<Box<str>>>; CLASSES];

type Shard = Mutex<HashMap<Box<str>, Answers>>;

pub(super) struct Memo {
    shards: Box<[Shard]>,
    /// Decide every run afresh: for a map about to change thousands of times (the bundle's
    /// order repair), where a kept answer is forgotten before it is asked again.
    off: bool,
}

/// The shard of a run: any spread will do, and this one costs less than the map's own hash.
fn shard_of(run: &str) -> usize {
    run.bytes().fold(run.len(), |h, b| {
        h.wrapping_mul(31).wrapping_add(usize::from(b))
    }) % SHARDS
}

fn slot(class: Class) -> usize {
    match class {
        Class::Code => 0,
        Class::String => 1,
        Class::Comment => 2,
        Class::Text => 3,
        Class::Fixed => 4,
        Class::Dist => 5,
    }
}

impl Memo {
    /// What `run` becomes in `class`: the kept answer, or `decide`'s, which is then kept.
    pub(super) fn get_or(
        &self,
        run: &str,
        class: Class,
        decide: impl FnOnce() -> Option<String>,
    ) -> Option<String> {
        if self.off {
            return decide();
        }
        let shard = &self.shards[shard_of(run)];
        let k = slot(class);
        if let Some(Some(known)) = shard.lock().get(run).map(|a| a[k].clone()) {
            return known.map(String::from);
        }
        // Decided outside the lock: two threads may decide one run at once, and both get the
        // same answer.
        let answer = decide();
        let mut map = shard.lock();
        if map.len() >= SHARD_LIMIT {
            map.clear();
        }
        map.entry(run.into()).or_default()[k] = Some(answer.as_deref().map(Box::from));
        answer
    }

    /// Forget every answer (the map changed). A new memo rather than emptied maps: the
    /// bundle's order repair changes the map thousands of times with a few answers kept in
    /// between, and emptying a map costs its whole capacity.
    pub(super) fn clear(&mut self) {
        *self = Memo {
            off: self.off,
            ..Memo::default()
        };
    }

    /// Keep answers (`true`, the default) or decide every run afresh.
    pub(super) fn set_on(&mut self, on: bool) {
        self.off = !on;
        self.clear();
    }
}

impl Default for Memo {
    fn default() -> Self {
        Memo {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            off: false,
        }
    }
}

/// A copy of a renamer starts with an empty memo: the copy may be changed on its own.
impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n: usize = self.shards.iter().map(|s| s.lock().len()).sum();
        write!(f, "Memo({n} runs)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn an_answer_is_decided_once_per_run_and_class() {
        let memo = Memo::default();
        let calls = Cell::new(0);
        let decide = |x: Option<&str>| {
            calls.set(calls.get() + 1);
            x.map(String::from)
        };
        assert_eq!(
            memo.get_or("alpha", Class::Code, || decide(Some("beta")))
                .as_deref(),
            Some("beta")
        );
        assert_eq!(
            memo.get_or("alpha", Class::Code, || decide(None))
                .as_deref(),
            Some("beta")
        );
        assert_eq!(memo.get_or("alpha", Class::String, || decide(None)), None);
        assert_eq!(
            memo.get_or("alpha", Class::String, || decide(Some("x"))),
            None
        );
        assert_eq!(calls.get(), 2);
    }

    #[test]
    fn a_memo_switched_off_decides_every_time_and_keeps_nothing() {
        let mut memo = Memo::default();
        memo.get_or("alpha", Class::Code, || Some("beta".into()));
        memo.set_on(false);
        let calls = Cell::new(0);
        for _ in 0..3 {
            let got = memo.get_or("alpha", Class::Code, || {
                calls.set(calls.get() + 1);
                Some("gamma".into())
            });
            assert_eq!(got.as_deref(), Some("gamma"));
        }
        assert_eq!(calls.get(), 3);
        memo.clear();
        assert_eq!(memo.get_or("x", Class::Code, || None), None);
        assert!(
            memo.shards.iter().all(|s| s.lock().is_empty()),
            "cleared, still off"
        );
        memo.set_on(true);
        memo.get_or("alpha", Class::Code, || Some("beta".into()));
        assert_eq!(
            memo.get_or("alpha", Class::Code, || None).as_deref(),
            Some("beta")
        );
    }

    #[test]
    fn a_full_shard_starts_again_and_still_answers_right() {
        let memo = Memo::default();
        for i in 0..SHARD_LIMIT * SHARDS * 2 {
            let run = format!("r{i}");
            let want = format!("w{i}");
            assert_eq!(
                memo.get_or(&run, Class::Text, || Some(want.clone())),
                Some(want)
            );
        }
        let total: usize = memo.shards.iter().map(|s| s.lock().len()).sum();
        assert!(total <= SHARD_LIMIT * SHARDS, "{total} entries kept");
        assert_eq!(
            memo.get_or("r7", Class::Text, || Some("w7".into()))
                .as_deref(),
            Some("w7")
        );
    }
}
