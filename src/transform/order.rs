//! Law 5: in every directory the view's names sort as the original's do.
//!
//! Test runners run files in the order of their names: pytest sorts each directory's entries
//! by name, `unittest` discovery sorts `os.listdir`, and code that walks `sorted(glob(...))`
//! does the same. A suite whose modules leak state into the ones that run after them (a
//! cache, a registry, a recursion that only a warm cache avoids) then gives other outcomes
//! when renamed files sort in another order. So after the seeded draw, words move between
//! tokens until every directory sorts the same.
//!
//! How: for two names whose views sort the other way, the first word the two differ in (in
//! the original or in the view) decides. Renamed words of one length exchange (an exchange
//! lowers the number of out-of-order token pairs, so exchanges alone always end). Then, per
//! directory, the longest run of names already in order is kept, a name shown unrenamed
//! always, and every other name's deciding token takes a spare word that puts it between its
//! neighbours (found by bisection over the sorted spare words; when no spare word of the
//! token's length fits there, a word of that length made from one that does, since code pads
//! and slices names by their lengths). Rounds end when one mends
//! nothing more. What is left out of order (a token kept whole in one name and renamed in its
//! neighbour's compound, pulled both ways; names outside ASCII) is counted, not hidden.
//!
//! Deterministic: directories, pairs and spare words are visited in a fixed order.

use rayon::prelude::*;

use super::lexicon::runner_prefix;
use super::rename::Renamer;
use super::tokens::{self, Piece};

/// What the repair did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Repair {
    /// Pairs of renamed tokens that exchanged words.
    pub exchanged: usize,
    /// Tokens given a spare word.
    pub redrawn: usize,
    /// Pairs of neighbours in all directories.
    pub pairs: usize,
    /// Neighbours out of order after the draw.
    pub drawn_out_of_order: usize,
    /// Neighbours still out of order at the end.
    pub left: usize,
}

/// How far apart (in the original's order) two names may be to exchange their words.
const EXCHANGE_WINDOW: usize = 32;

/// Rounds of repair before giving up on what spare words cannot settle.
const ROUNDS: usize = 64;

/// Move words between the renamed tokens of `renamer` until each directory of `dirs` (the
/// original names of one directory's entries) sorts the same in the view. `spare` holds
/// unused words in the seeded order they may be taken; `free` says whether a word made up
/// for a redraw may become an image (no token of the repository, no word of an outside name;
/// the map and the spare words are checked here).
pub fn keep_sibling_order(
    renamer: &mut Renamer,
    dirs: &[Vec<String>],
    spare: &[String],
    free: &dyn Fn(&str) -> bool,
) -> Repair {
    // Every move changes the map, which empties the renamer's memo: kept answers would be
    // forgotten before they are asked again.
    renamer.memoize(false);
    let repair = repair_order(renamer, dirs, spare, free);
    renamer.memoize(true);
    repair
}

fn repair_order(
    renamer: &mut Renamer,
    dirs: &[Vec<String>],
    spare: &[String],
    free: &dyn Fn(&str) -> bool,
) -> Repair {
    let mut names: Vec<&str> = dirs.iter().flatten().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let id = |n: &str| names.binary_search(&n).unwrap_or_default();
    let dirs: Vec<Vec<usize>> = dirs
        .iter()
        .map(|d| {
            let mut d: Vec<&str> = d.iter().map(String::as_str).collect();
            d.sort_unstable();
            d.dedup();
            d.into_iter().map(id).collect()
        })
        .collect();
    let mut views = Views::new(renamer, &names);
    let out_of_order = |v: &mut Views<'_>, r: &Renamer| {
        v.refresh_all(r);
        dirs.iter()
            .flat_map(|d| d.windows(2))
            .filter(|p| v.of(p[0]) > v.of(p[1]))
            .count()
    };
    let mut repair = Repair {
        pairs: dirs.iter().map(|d| d.len().saturating_sub(1)).sum(),
        drawn_out_of_order: out_of_order(&mut views, renamer),
        ..Repair::default()
    };
    let mut pool = Spare::new(spare, free);
    let mut left = repair.drawn_out_of_order;
    for _ in 0..ROUNDS {
        let mut moved = false;
        for d in &dirs {
            moved |= settle(renamer, &mut views, d, &mut pool, &mut repair);
        }
        // Names that hold a token beside names that keep it whole can pull it both ways:
        // a round that mends no more than the one before ends the repair.
        let now = out_of_order(&mut views, renamer);
        if !moved || now >= left {
            break;
        }
        left = now;
    }
    repair.left = out_of_order(&mut views, renamer);
    repair
}

/// The view of every name the repair orders, kept current as words move. A name's view is
/// made from the map's entries for its own pieces (lower case, token or word alike), each a
/// substring of the name in lower case, so a move that changes the entries of some keys
/// reaches only the names that contain one of them; those are found through the three-byte
/// windows of the names (the renamer looks up no word shorter than three letters).
/// Recomputing every view after each move made the repair of Django's 50,000 neighbours
/// take seconds.
struct Views<'a> {
    names: &'a [&'a str],
    lower: Vec<String>,
    /// The words each name spells (none for a name outside ASCII), for `holds`.
    words: Vec<Vec<String>>,
    shown: Vec<Vec<u8>>,
    /// Views that a move may have changed, recomputed when next needed.
    stale: Vec<bool>,
    by_window: std::collections::HashMap<[u8; 3], Vec<usize>>,
}

impl<'a> Views<'a> {
    fn new(renamer: &Renamer, names: &'a [&'a str]) -> Self {
        let lower: Vec<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
        let mut by_window: std::collections::HashMap<[u8; 3], Vec<usize>> =
            std::collections::HashMap::new();
        for (i, l) in lower.iter().enumerate() {
            let mut seen = std::collections::HashSet::new();
            for w in l.as_bytes().windows(3) {
                let w = [w[0], w[1], w[2]];
                if seen.insert(w) {
                    by_window.entry(w).or_default().push(i);
                }
            }
        }
        Views {
            names,
            words: names.iter().map(|n| words_of(n)).collect(),
            shown: names.par_iter().map(|n| view(renamer, n)).collect(),
            stale: vec![false; names.len()],
            lower,
            by_window,
        }
    }

    /// The view of a name made current by `refresh`.
    fn of(&self, i: usize) -> &[u8] {
        debug_assert!(!self.stale[i]);
        &self.shown[i]
    }

    /// Recompute the views among `ids` that a move made stale.
    fn refresh(&mut self, renamer: &Renamer, ids: impl IntoIterator<Item = usize>) {
        for i in ids {
            if std::mem::take(&mut self.stale[i]) {
                self.shown[i] = view(renamer, self.names[i]);
            }
        }
    }

    /// `refresh` of every name, in parallel: a round's moves leave thousands stale.
    fn refresh_all(&mut self, renamer: &Renamer) {
        let stale: Vec<usize> = (0..self.names.len()).filter(|&i| self.stale[i]).collect();
        let fresh: Vec<Vec<u8>> = stale
            .par_iter()
            .map(|&i| view(renamer, self.names[i]))
            .collect();
        for (i, v) in stale.into_iter().zip(fresh) {
            self.shown[i] = v;
            self.stale[i] = false;
        }
    }

    fn name(&self, i: usize) -> &'a str {
        self.names[i]
    }

    /// Whether the name spells the token as one of its words.
    fn holds(&self, i: usize, token: &str) -> bool {
        self.words[i].iter().any(|w| w.eq_ignore_ascii_case(token))
    }

    /// Whether the name's view can depend on the map's entry for one of `keys`.
    fn reaches(&self, i: usize, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.lower[i].contains(*k))
    }

    /// The map's entries for `keys` changed: the views that contain one of them are stale.
    fn changed(&mut self, keys: &[&str]) {
        for k in keys {
            if k.len() < 3 {
                // A key shorter than a window is never looked up by the renamer; all names
                // are checked for it all the same.
                for i in 0..self.names.len() {
                    self.stale[i] |= self.lower[i].contains(*k);
                }
                continue;
            }
            // A name holding the key holds each of its windows: the fewest names are those
            // of its rarest window.
            let fewest = k
                .as_bytes()
                .windows(3)
                .map(|w| {
                    self.by_window
                        .get(&[w[0], w[1], w[2]])
                        .map_or(&[][..], Vec::as_slice)
                })
                .min_by_key(|ids| ids.len())
                .unwrap_or_default();
            for &i in fewest {
                self.stale[i] |= self.lower[i].contains(*k);
            }
        }
    }
}

/// One round over one directory: exchanges for every out-of-order pair of renamed words
/// first (they keep the draw's words), then spare words for out-of-order neighbours.
fn settle(
    renamer: &mut Renamer,
    views: &mut Views<'_>,
    d: &[usize],
    spare: &mut Spare<'_>,
    repair: &mut Repair,
) -> bool {
    views.refresh(renamer, d.iter().copied());
    // Most groups sort the same already: nothing below would move (no pair out of order,
    // every name kept).
    if d.windows(2).all(|p| views.of(p[0]) < views.of(p[1])) {
        return false;
    }
    let mut moved = false;
    for i in 0..d.len() {
        // Pairs within a window: all pairs of a directory of thousands of names would cost
        // millions of comparisons; the spare words settle what is farther apart.
        for j in i + 1..d.len().min(i + 1 + EXCHANGE_WINDOW) {
            if views.of(d[i]) <= views.of(d[j]) {
                continue;
            }
            // Words of one length exchange; other words would change the names' lengths,
            // which code slicing a fixed prefix (`repr(x)[4:]`) depends on.
            if let Some(w) = decide(renamer, views, d[i], d[j]) {
                if w.renamed == (true, true)
                    && w.view.0 > w.view.1
                    && w.view.0.len() == w.view.1.len()
                    && runner_prefix(&w.token.0) == runner_prefix(&w.token.1)
                {
                    renamer.exchange(&w.token.0, &w.token.1);
                    repair.exchanged += 1;
                    moved = true;
                    views.changed(&[&w.token.0, &w.token.1, &w.view.0, &w.view.1]);
                    views.refresh(renamer, d.iter().copied());
                }
            }
        }
    }
    // Keep the most names already in order (every name shown as it is among them: nothing
    // can move it), and move each other name between the kept ones around it.
    let keep = {
        let names: Vec<&str> = d.iter().map(|&i| views.name(i)).collect();
        let shown: Vec<&[u8]> = d.iter().map(|&i| views.of(i)).collect();
        kept(&names, &shown)
    };
    // Kept names, and names moved between them.
    let mut placed = keep.clone();
    for k in 0..d.len() {
        if keep[k] {
            continue;
        }
        let before = (0..k).rev().find(|&j| placed[j]);
        let after = (k + 1..d.len()).find(|&j| keep[j]);
        let lo = before.filter(|&j| views.of(d[j]) >= views.of(d[k]));
        let hi = after.filter(|&j| views.of(d[k]) >= views.of(d[j]));
        if lo.is_none() && hi.is_none() {
            placed[k] = true;
            continue;
        }
        // The word that decides against the bound out of order, if this name shows it renamed.
        let token = lo
            .and_then(|j| decide(renamer, views, d[j], d[k]))
            .filter(|w| w.renamed.1)
            .map(|w| w.token.1)
            .or_else(|| {
                hi.and_then(|j| decide(renamer, views, d[k], d[j]))
                    .filter(|w| w.renamed.0)
                    .map(|w| w.token.0)
            });
        let Some(token) = token else {
            continue;
        };
        let old = renamer.word_of(&token).map(str::to_string);
        let done = redraw(renamer, views, &token, spare, d, k, before, after);
        // Even a redraw that fails rebinds the token to its old word.
        let new = renamer.word_of(&token).map(str::to_string);
        let keys: Vec<&str> = [Some(token.as_str()), old.as_deref(), new.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        views.changed(&keys);
        views.refresh(renamer, d.iter().copied());
        if done {
            placed[k] = true;
            repair.redrawn += 1;
            moved = true;
        }
    }
    moved
}

/// Which names to keep where they are: the heaviest run of names in increasing view order,
/// where a name shown unrenamed outweighs all the others together. O(n log n): a Fenwick
/// tree over the ranks of the views holds the best run ending below each rank.
fn kept(d: &[&str], v: &[&[u8]]) -> Vec<bool> {
    let n = d.len();
    let weight = |k: usize| if v[k] == d[k].as_bytes() { n + 1 } else { 1 };
    let mut sorted: Vec<&[u8]> = v.to_vec();
    sorted.sort();
    sorted.dedup();
    let rank = |k: usize| sorted.partition_point(|x| *x < v[k]);
    // tree[i]: the best (weight, end) over ranks in i's range, 1-based.
    let mut tree: Vec<(usize, usize)> = vec![(0, usize::MAX); sorted.len() + 1];
    let mut from = vec![usize::MAX; n];
    let mut best = vec![0usize; n];
    for k in 0..n {
        let r = rank(k);
        // The best run over ranks below r.
        let (mut i, mut below) = (r, (0, usize::MAX));
        while i > 0 {
            below = below.max(tree[i]);
            i &= i - 1;
        }
        best[k] = below.0 + weight(k);
        from[k] = below.1;
        let mut i = r + 1;
        while i < tree.len() {
            tree[i] = tree[i].max((best[k], k));
            i += i & i.wrapping_neg();
        }
    }
    let mut keep = vec![false; n];
    let mut k = (0..n).max_by_key(|&k| (best[k], std::cmp::Reverse(k)));
    while let Some(i) = k {
        keep[i] = true;
        k = (from[i] != usize::MAX).then_some(from[i]);
    }
    keep
}

fn view(renamer: &Renamer, name: &str) -> Vec<u8> {
    renamer.swap_name(name.as_bytes()).into_owned()
}

/// Where two names first differ: a word of each (lower case), as the original and the view
/// spell it, and whether the view shows it renamed by its own token's word.
struct Decider {
    token: (String, String),
    view: (String, String),
    renamed: (bool, bool),
}

fn decide(renamer: &Renamer, views: &Views<'_>, x: usize, y: usize) -> Option<Decider> {
    let (vx, vy) = (views.of(x), views.of(y));
    let (x, y) = (views.name(x), views.name(y));
    if !x.is_ascii() || !y.is_ascii() {
        return None;
    }
    let (vx, vy) = (std::str::from_utf8(vx).ok()?, std::str::from_utf8(vy).ok()?);
    let (ox, oy, px, py) = (
        tokens::split(x),
        tokens::split(y),
        tokens::split(vx),
        tokens::split(vy),
    );
    if ox.len() != px.len() || oy.len() != py.len() {
        return None;
    }
    // The first piece where the names differ, in the original or in the view: a name kept
    // whole (`aggregation`, frozen) beside one that renames the same token in a compound
    // (`aggregation_regress`) differs only in the view.
    let i = (0..ox.len().min(oy.len())).find(|&i| ox[i] != oy[i] || px[i] != py[i])?;
    let (Piece::Word(a, _), Piece::Word(b, _), Piece::Word(va, _), Piece::Word(vb, _)) =
        (ox[i], oy[i], px[i], py[i])
    else {
        return None;
    };
    let lower = |s: &str| s.to_ascii_lowercase();
    let (a, b, va, vb) = (lower(a), lower(b), lower(va), lower(vb));
    let renamed = |t: &str, v: &str| t != v && renamer.word_of(t) == Some(v);
    Some(Decider {
        renamed: (renamed(&a, &va), renamed(&b, &vb)),
        token: (a, b),
        view: (va, vb),
    })
}

/// Spare words tried, at most, for one redraw.
const TRIES: usize = 64;

/// Unused words, sorted (to find those that put a name between two others) and each with its
/// rank in the seeded order (to choose among them).
struct Spare<'f> {
    sorted: Vec<(String, usize)>,
    next: usize,
    free: &'f dyn Fn(&str) -> bool,
}

impl<'f> Spare<'f> {
    fn new(seeded: &[String], free: &'f dyn Fn(&str) -> bool) -> Self {
        let mut sorted: Vec<(String, usize)> = seeded
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, w)| (w, i))
            .collect();
        sorted.sort();
        Spare {
            next: sorted.len(),
            sorted,
            free,
        }
    }

    fn holds(&self, w: &str) -> bool {
        self.sorted
            .binary_search_by(|(x, _)| x.as_str().cmp(w))
            .is_ok()
    }

    /// Give a word back, ranked after every other.
    fn give(&mut self, w: String) {
        let at = self.sorted.partition_point(|(x, _)| *x < w);
        self.sorted.insert(at, (w, self.next));
        self.next += 1;
    }
}

/// Give `token` (a word of the name `d[k]`) a spare word that puts `d[k]` above `d[before]`
/// and below `d[after]` and leaves no more names out of order among those holding the token,
/// preferring the token's length (code pads and slices names by their lengths: pygments'
/// expected outputs pad each token's text to a column), then the seeded order. When no spare
/// word of that length fits, one of the fitting words cut or continued to that length
/// (`resized`) is tried before words of other lengths.
#[allow(clippy::too_many_arguments)]
fn redraw(
    renamer: &mut Renamer,
    views: &Views<'_>,
    token: &str,
    spare: &mut Spare<'_>,
    d: &[usize],
    k: usize,
    before: Option<usize>,
    after: Option<usize>,
) -> bool {
    let Some(old) = renamer.word_of(token).map(str::to_string) else {
        return false;
    };
    // The cache is not changed while the renamer tries words: the bounds are borrowed.
    let (lo, hi) = (
        before.map(|j| views.of(d[j])),
        after.map(|j| views.of(d[j])),
    );
    // A token that begins with `test` keeps it (`lexicon::runner_prefix`); the prefix does
    // not change how the spare words sort.
    let prefix = runner_prefix(token);
    let image = |w: &str| format!("{prefix}{w}");
    let bare = old.strip_prefix(prefix).unwrap_or(&old);
    let target = token.len().saturating_sub(prefix.len());
    // The name sorts nearly as the word does (exactly, unless one word begins another), so
    // the words that fit are found by bisection and each is checked after.
    let shown = |r: &mut Renamer, w: &str| {
        r.rebind(token, &image(w));
        view(r, views.name(d[k]))
    };
    let words = std::mem::take(&mut spare.sorted);
    let from = lo.as_ref().map_or(0, |l| {
        words.partition_point(|(w, _)| shown(renamer, w).as_slice() <= *l)
    });
    let to = hi
        .as_ref()
        .map_or(words.len(), |h| {
            words.partition_point(|(w, _)| shown(renamer, w).as_slice() < *h)
        })
        .max(from);
    spare.sorted = words;
    let mut order: Vec<(usize, usize, usize)> = (from..to)
        .map(|i| {
            (
                spare.sorted[i].0.len().abs_diff(target),
                spare.sorted[i].1,
                i,
            )
        })
        .collect();
    // Only the first `TRIES` in order are ever tried: select them, then sort those (the keys
    // are distinct, so this is the same order a full sort gives, without sorting thousands
    // of spare words for each redraw).
    if order.len() > TRIES {
        order.select_nth_unstable(TRIES - 1);
        order.truncate(TRIES);
    }
    order.sort_unstable();
    let holders: Vec<usize> = (0..d.len()).filter(|&j| views.holds(d[j], token)).collect();
    let pairs: Vec<(usize, usize)> = holders
        .iter()
        .flat_map(|&j| {
            [
                j.checked_sub(1).map(|i| (i, j)),
                (j + 1 < d.len()).then_some((j, j + 1)),
            ]
        })
        .flatten()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut at: Vec<usize> = pairs.iter().flat_map(|&(i, j)| [i, j]).collect();
    at.sort_unstable();
    at.dedup();
    // Only names that contain the token, its old word or the word tried can show otherwise
    // than the cache says.
    let disorder = |r: &Renamer, tried: &str| {
        let tried = image(tried);
        let keys = [token, old.as_str(), tried.as_str()];
        let fresh: std::collections::HashMap<usize, Vec<u8>> = at
            .iter()
            .filter(|&&j| views.reaches(d[j], &keys))
            .map(|&j| (j, view(r, views.name(d[j]))))
            .collect();
        let v = |j: usize| fresh.get(&j).map_or(views.of(d[j]), Vec::as_slice);
        pairs.iter().filter(|&&(i, j)| v(i) >= v(j)).count()
    };
    renamer.rebind(token, &old);
    let was = disorder(renamer, bare);
    let fits = |r: &mut Renamer, w: &str| {
        let me = shown(r, w);
        let between = lo.is_none_or(|l| l < me.as_slice()) && hi.is_none_or(|h| me.as_slice() < h);
        between && disorder(r, w) <= was
    };
    let (exact, other): (Vec<_>, Vec<_>) = order
        .iter()
        .map(|o| o.2)
        .partition(|&i| spare.sorted[i].0.len() == target);
    // With the old word bound, the map holds it and the words of every other token.
    let made = other
        .iter()
        .filter_map(|&i| resized(&spare.sorted[i].0, target))
        .filter(|w| {
            (spare.free)(w)
                && (spare.free)(&image(w))
                && !renamer.holds_word(w)
                && !renamer.holds_word(&image(w))
                && !spare.holds(w)
        });
    // Spare words of the token's length, words of that length made from the others (a made
    // word is in no pool), then the others. Each candidate: its place in the pool, if any.
    let tries: Vec<(Option<usize>, String)> = exact
        .iter()
        .map(|&i| (Some(i), spare.sorted[i].0.clone()))
        .chain(made.map(|w| (None, w)))
        .chain(other.iter().map(|&i| (Some(i), spare.sorted[i].0.clone())))
        .collect();
    for (at, w) in tries {
        if fits(renamer, &w) {
            if let Some(i) = at {
                spare.sorted.remove(i);
            }
            spare.give(bare.to_string());
            return true;
        }
    }
    renamer.rebind(token, &old);
    false
}

/// `word` cut or continued to exactly `len` letters (continued with consonants and vowels in
/// turn, so it still reads as a made-up word); `None` when it has that length already or
/// `len` is under three letters.
fn resized(word: &str, len: usize) -> Option<String> {
    if len < 3 || word.len() == len || !word.is_ascii() {
        return None;
    }
    if word.len() > len {
        return Some(word[..len].to_string());
    }
    const CONSONANTS: &[u8] = b"rntls";
    const VOWELS: &[u8] = b"aeio";
    let mut w = word.as_bytes().to_vec();
    while w.len() < len {
        let vowel = w.last().is_some_and(|b| b"aeiouy".contains(b));
        let set = if vowel { CONSONANTS } else { VOWELS };
        w.push(set[w.len() % set.len()]);
    }
    String::from_utf8(w).ok()
}

/// The words a name spells (in lower case), read once per name: a redraw asks which names
/// of a group hold its token. None for a name outside ASCII, which the repair never moves.
fn words_of(name: &str) -> Vec<String> {
    if !name.is_ascii() {
        return Vec::new();
    }
    super::policy::all_tokens(name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamer(pairs: &[(&str, &str)], frozen: &[&str]) -> Renamer {
        Renamer::new(pairs.iter().copied(), frozen.iter().copied(), []).unwrap()
    }

    fn names(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    fn sorted_the_same(r: &Renamer, dir: &[String]) -> bool {
        let mut orig: Vec<&String> = dir.iter().collect();
        orig.sort();
        let views: Vec<Vec<u8>> = orig.iter().map(|n| view(r, n)).collect();
        views.windows(2).all(|w| w[0] < w[1])
    }

    #[test]
    fn kept_names_are_a_heaviest_increasing_run() {
        // Against the quadratic definition, on every sequence of five views over three
        // letters, with a name shown unrenamed where the view equals it.
        let names = ["a", "b", "c", "d", "e"];
        for code in 0..3usize.pow(5) {
            let v: Vec<Vec<u8>> = (0..5)
                .map(|i| vec![b"bdf"[code / 3usize.pow(i as u32) % 3]])
                .collect();
            let shown: Vec<&[u8]> = v.iter().map(Vec::as_slice).collect();
            let keep = kept(&names, &shown);
            let idx: Vec<usize> = (0..5).filter(|&i| keep[i]).collect();
            assert!(idx.windows(2).all(|w| v[w[0]] < v[w[1]]), "{v:?} {keep:?}");
            let weight = |k: usize| if v[k] == names[k].as_bytes() { 6 } else { 1 };
            let mut best = [0usize; 5];
            for k in 0..5 {
                best[k] = weight(k)
                    + (0..k)
                        .filter(|&j| v[j] < v[k])
                        .map(|j| best[j])
                        .max()
                        .unwrap_or(0);
            }
            let got: usize = idx.iter().map(|&k| weight(k)).sum();
            assert_eq!(got, *best.iter().max().unwrap(), "{v:?} {keep:?}");
        }
    }

    #[test]
    fn renamed_test_files_run_in_the_original_order() {
        // The draw gives `bag` a word that sorts after `map`'s: the view would run
        // map_test.py first.
        let mut r = renamer(&[("bag", "zebra"), ("map", "apple")], &[]);
        let dir = names(&["bag_test.py", "map_test.py", "conftest.py"]);
        assert!(!sorted_the_same(&r, &dir), "the draw must be out of order");
        let spare = Vec::new();
        let rep = keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|_| false);
        assert!(sorted_the_same(&r, &dir));
        assert_eq!((rep.exchanged, rep.redrawn, rep.left), (1, 0, 0));
        assert_eq!(r.word_of("bag"), Some("apple"));
        // Still an involution: the words lead back.
        assert_eq!(
            (r.word_of("apple"), r.word_of("zebra")),
            (Some("bag"), Some("map"))
        );
    }

    #[test]
    fn words_of_other_lengths_are_not_exchanged() {
        // pyrsistent's `repr` cuts a fixed prefix off a name-made string (`[4:]` of
        // `pset(...)`): exchanging a five-letter word for a three-letter one would change
        // what it cuts. `map` takes a spare word instead, of its token's length.
        let mut r = renamer(&[("bag", "zebra"), ("map", "cat")], &[]);
        let dir = names(&["bag_test.py", "map_test.py"]);
        let spare = names(&["aloe", "abbey", "bison", "zinnia", "zulu", "zut"]);
        let rep = keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|_| false);
        assert!(sorted_the_same(&r, &dir));
        assert_eq!((rep.exchanged, rep.redrawn), (0, 1));
        assert_eq!(
            (r.word_of("bag"), r.word_of("map")),
            (Some("zebra"), Some("zut"))
        );
    }

    #[test]
    fn a_token_takes_a_made_up_word_of_its_length_when_no_spare_one_fits() {
        // pygments' expected outputs pad each token's text to a column: a word of another
        // length moves the column. No spare word of five letters sorts before `field`, so
        // `deque` takes one made from a spare word that does (`cobras` cut to `cobra`),
        // unless that word is in use or not free, when the longer word is taken.
        let dir = names(&["deque_test.py", "field_test.py"]);
        let spare = names(&["yak", "cobras", "zebra"]);
        let mut r = renamer(&[("deque", "walrus")], &["field"]);
        let rep = keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|_| true);
        assert!(sorted_the_same(&r, &dir));
        assert_eq!(rep.redrawn, 1);
        assert_eq!(r.word_of("deque"), Some("cobra"));
        assert_eq!(r.word_of("cobra"), Some("deque"));
        assert_eq!(r.word_of("walrus"), None);
        let mut r = renamer(&[("deque", "walrus"), ("snake", "cobra")], &["field"]);
        keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|_| true);
        assert_eq!(r.word_of("deque"), Some("cobras"));
        let mut r = renamer(&[("deque", "walrus")], &["field"]);
        keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|w| {
            w != "cobra"
        });
        assert_eq!(r.word_of("deque"), Some("cobras"));
    }

    #[test]
    fn resized_words_cut_or_continue_to_the_length() {
        assert_eq!(resized("cobras", 5).as_deref(), Some("cobra"));
        assert_eq!(resized("fig", 5).as_deref(), Some("figos"));
        assert_eq!(resized("sea", 4).as_deref(), Some("seal"));
        assert_eq!(resized("fig", 3), None);
        assert_eq!(resized("figs", 2), None);
    }

    #[test]
    fn a_token_beside_a_kept_name_takes_a_spare_word_on_its_side() {
        // `field` is kept (frozen: an outside name); `deque` is renamed to a word after it.
        let mut r = renamer(&[("deque", "walrus")], &["field"]);
        let dir = names(&["deque_test.py", "field_test.py"]);
        assert!(!sorted_the_same(&r, &dir));
        let spare = names(&["yak", "cobra", "fig", "camel"]);
        let rep = keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|_| false);
        assert!(sorted_the_same(&r, &dir));
        assert_eq!(rep.redrawn, 1);
        // The first spare word that sorts before `field` and is near in length.
        assert_eq!(r.word_of("deque"), Some("cobra"));
        assert_eq!(
            r.word_of("walrus"),
            None,
            "the old word is bound to nothing"
        );
    }

    #[test]
    fn a_token_a_runner_collects_keeps_its_prefix_when_moved() {
        // `testglob` (wcmatch's class `Testglob`) is drawn a word that sorts after
        // `testkit`, a kept name: its spare word must put it back before `testkit` and still
        // begin with `test`.
        let mut r = renamer(&[("testglob", "testzebra")], &[]);
        let dir = names(&["testglob_a.py", "testkit_a.py"]);
        assert!(
            !sorted_the_same(&r, &dir),
            "{:?}",
            dir.iter()
                .map(|n| String::from_utf8(view(&r, n)).unwrap())
                .collect::<Vec<_>>()
        );
        let spare = names(&["yak", "cobra", "emu", "apple"]);
        let rep = keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|_| false);
        assert!(sorted_the_same(&r, &dir), "{:?}", r.word_of("testglob"));
        // Of the words before `kit` the nearest in length to `zebra`, first in seeded order.
        assert_eq!(r.word_of("testglob"), Some("testcobra"));
        assert_eq!(rep.redrawn, 1);
        // The old word went back to the pool without its prefix: nothing is bound to it.
        assert_eq!(r.word_of("testzebra"), None);
        // A word of its length without the prefix is never exchanged to it: `vase` moves.
        let mut r = renamer(&[("testglob", "testzebra"), ("vase", "applecart")], &[]);
        let dir = names(&["testglob_a.py", "vase_a.py"]);
        assert!(!sorted_the_same(&r, &dir));
        let spare = names(&["zucchinis"]);
        let rep = keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|_| false);
        assert!(sorted_the_same(&r, &dir));
        assert_eq!(rep.exchanged, 0);
        assert_eq!(r.word_of("testglob"), Some("testzebra"));
        assert_eq!(r.word_of("vase"), Some("zucchinis"));
    }

    #[test]
    fn a_name_kept_whole_beside_its_renamed_compound() {
        // Django's `tests/aggregation` (a frozen run, shown as it is) and
        // `tests/aggregation_regress` (the token renamed in the compound): the names differ
        // only in the view, at the token they share. Package names are code names.
        let mut r = Renamer::new(
            [("aggregation", "able"), ("regress", "fable")],
            ["aggregation"],
            ["aggregation_regress"],
        )
        .unwrap();
        let dir = names(&["aggregation", "aggregation_regress"]);
        assert!(!sorted_the_same(&r, &dir));
        let spare = names(&["abacus", "zither", "bagpipe"]);
        let rep = keep_sibling_order(&mut r, std::slice::from_ref(&dir), &spare, &|_| false);
        assert!(sorted_the_same(&r, &dir), "{rep:?}");
        assert_eq!(rep.left, 0);
    }

    #[test]
    fn constraints_across_directories_settle() {
        // Three tokens, two directories, every draw inverted.
        let mut r = renamer(
            &[("alpha", "zulu"), ("beta", "yank"), ("gamma", "xray")],
            &[],
        );
        let dirs = vec![
            names(&["alpha.py", "beta.py"]),
            names(&["beta_x", "gamma_x"]),
            names(&["alpha_y", "gamma_y"]),
        ];
        let rep = keep_sibling_order(&mut r, &dirs, &[], &|_| false);
        assert_eq!(rep.left, 0);
        for d in &dirs {
            assert!(sorted_the_same(&r, d), "{d:?}");
        }
    }

    #[test]
    fn what_no_word_decides_is_counted() {
        // No spare word sorts before `field`: the pair stays out of order and is counted.
        let mut r = renamer(&[("deque", "walrus")], &["field"]);
        let dir = names(&["deque_test.py", "field_test.py"]);
        let spare = names(&["zoo"]);
        let rep = keep_sibling_order(&mut r, &[dir], &spare, &|_| false);
        assert_eq!((rep.redrawn, rep.left), (0, 1));
    }

    proptest::proptest! {
        /// The cache of views stays what the renamer shows after any sequence of moves, when
        /// each move marks its keys as the repair does (the tokens and the words that moved).
        #[test]
        fn cached_views_follow_every_move(
            ops in proptest::collection::vec((0usize..6, 0usize..6, 0usize..8), 1..40),
        ) {
            let toks = ["alpha", "beta", "gamma", "delta", "omega", "sigma"];
            let words = ["zulu", "yank", "xray", "wolf", "vine", "urn"];
            let pairs: Vec<(&str, &str)> = toks.iter().copied().zip(words.iter().copied()).collect();
            let mut r = renamer(&pairs, &["kept"]);
            let spare = ["abbey", "bison", "cobra", "dingo", "egret", "ferret", "gecko", "heron"];
            let names = [
                "alpha_beta.py", "BetaGamma", "test_delta_omega", "sigma2alpha", "kept_alpha",
                "zulu_fields", "xrayed", "yank-gamma", "OMEGA_SIGMA", "plain", "abbey_road",
                "deltaalpha", "__gamma__",
            ];
            let mut views = Views::new(&r, &names);
            for (a, b, w) in ops {
                let (ta, tb) = (toks[a], toks[b]);
                let keys: Vec<String> = if w < 4 && ta != tb {
                    let (wa, wb) = (r.word_of(ta).unwrap().to_string(), r.word_of(tb).unwrap().to_string());
                    r.exchange(ta, tb);
                    vec![ta.into(), tb.into(), wa, wb]
                } else {
                    let old = r.word_of(ta).unwrap().to_string();
                    let new = spare[w];
                    if r.word_of(new).is_some() {
                        continue;
                    }
                    r.rebind(ta, new);
                    vec![ta.into(), old, new.into()]
                };
                let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                views.changed(&keys);
                views.refresh(&r, 0..names.len());
                for (i, n) in names.iter().enumerate() {
                    let fresh = view(&r, n);
                    proptest::prop_assert_eq!(views.of(i), fresh.as_slice(), "{}", n);
                }
            }
        }
    }
}
