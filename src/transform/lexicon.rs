//! The seeded bijection between the repository's owned tokens and virtual words.
//!
//! Guarantees: deterministic for (tokens, excluded words, seed) on any machine (sorted inputs,
//! ChaCha8 with fixed seeds, no hash-map iteration order); no virtual word is excluded or a
//! token (the caller excludes every token of the repository, so the pairs are disjoint and
//! the map is an involution); a token gets a word of its own length when one is left.
//!
//! Lengths: code and data align text by the width of names (golden files padded to a column,
//! help text padded to a column, line-length checks, fixed slices), so an image keeps its
//! token's length. The vocabulary's words have 3 to 10 letters, and few of 3 or 4 are free
//! once outside names are excluded. So a longer token's image is vocabulary words joined
//! into one (`Compounds`), and a 3- or 4-letter token may get a made-up consonant-vowel word
//! (`made_up`). Each kind comes after every vocabulary word of its length and is drawn from
//! a stream of its own, so the draw of a token the vocabulary covers does not depend on it.

use std::collections::{BTreeMap, BTreeSet};

use rand::seq::SliceRandom;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The vocabulary shipped with the binary (see WORDS.md beside it).
pub const WORDS: &str = include_str!("words.txt");

/// Vocabulary words, lowercase, at least three letters. Words starting with `test` are left
/// out: test runners collect by prefix (`testy_total` would become a pytest test and
/// `Testy` a test class).
pub fn vocabulary() -> impl Iterator<Item = &'static str> {
    WORDS
        .lines()
        .map(str::trim)
        .filter(|w| w.len() >= 3 && w.bytes().all(|b| b.is_ascii_lowercase()))
        .filter(|w| !w.starts_with("test"))
}

/// What a token's image must begin with, as the token does: runners collect by the prefix
/// `test` (pytest's `Test*` classes and `test*` functions, `unittest`'s `test*` methods and
/// `test*.py` modules), so `Testglob`, one token, shown as `Trillion` is no longer collected,
/// and its subclasses' tests are lost with it. Such a token's image is `test` and a word.
/// Tokens that are `test` alone are tool vocabulary and never renamed.
pub fn runner_prefix(token: &str) -> &'static str {
    if token.len() > 4 && token.starts_with("test") {
        "test"
    } else {
        ""
    }
}

/// Assign a distinct virtual word to every token, in a seeded order.
///
/// `tokens` are lowercase owned tokens; `excluded` are lowercase words that must never be used
/// (every token of the repository, frozen names, keywords). Tokens left without a word when
/// the vocabulary runs out are returned in the second value (they stay unrenamed).
pub fn assign(
    tokens: &BTreeSet<String>,
    excluded: &BTreeSet<String>,
    seed: u64,
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5c4f_d1e6_a7b3_9021);
    // Buckets of available words by length, each shuffled.
    let free = free_words(tokens, excluded);
    let mut buckets = free.clone();
    for b in buckets.values_mut() {
        b.shuffle(&mut rng);
    }
    // Made-up short words, after every vocabulary word of their length (draws take from a
    // bucket's end), shuffled by a stream of their own so that the draw stays what it is
    // wherever the vocabulary suffices.
    let mut made_up_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x4a86_e1f0_37cd_925b);
    for (len, mut words) in made_up(excluded, tokens, &BTreeSet::new()) {
        words.shuffle(&mut made_up_rng);
        buckets.entry(len).or_default().splice(0..0, words);
    }
    let mut order: Vec<&String> = tokens.iter().collect();
    order.shuffle(&mut rng);
    let mut long = Compounds::new(free, tokens, excluded, seed);

    let mut map = BTreeMap::new();
    let mut left = Vec::new();
    for t in order {
        let prefix = runner_prefix(t);
        let want = t.len() - prefix.len();
        let free =
            |w: &str| prefix.is_empty() || { is_free(&format!("{prefix}{w}"), tokens, excluded) };
        let word = if want > LONGEST_WORD {
            long.draw(want, &free)
        } else {
            None
        };
        let word = word.or_else(|| {
            nearest_lengths(want.clamp(3, LONGEST_WORD)).find_map(|len| {
                let b = buckets.get_mut(&len)?;
                let at = b.iter().rposition(|w| free(w))?;
                Some(b.remove(at).to_string())
            })
        });
        match word {
            Some(w) => {
                long.keep(&w);
                map.insert(t.clone(), format!("{prefix}{w}"));
            }
            None => left.push(t.clone()),
        }
    }
    left.sort();
    (map, left)
}

/// Made-up words for the lengths where the vocabulary is thin (3 letters: 264 words, and a
/// repository's outside names use most of them), consonant-vowel patterns (`bep`, `dafo`) that
/// are no vocabulary word, by length, sorted; none excluded, a token, or in `used`.
fn made_up<'a>(
    excluded: &BTreeSet<String>,
    tokens: &BTreeSet<String>,
    used: &BTreeSet<&str>,
) -> BTreeMap<usize, Vec<&'a str>> {
    static MADE_UP: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let all = MADE_UP.get_or_init(|| {
        const C: &[u8] = b"bcdfghjklmnprstvwz";
        const V: &[u8] = b"aeiou";
        let real: BTreeSet<&str> = vocabulary().collect();
        let mut out = Vec::new();
        for &a in C {
            for &b in V {
                for &c in C {
                    out.push(String::from_utf8(vec![a, b, c]).unwrap_or_default());
                    for &d in V {
                        out.push(String::from_utf8(vec![a, b, c, d]).unwrap_or_default());
                    }
                }
            }
        }
        out.retain(|w| !w.is_empty() && !real.contains(w.as_str()));
        out.sort();
        out
    });
    let mut by_len: BTreeMap<usize, Vec<&'a str>> = BTreeMap::new();
    for w in all {
        if is_free(w, tokens, excluded) && !used.contains(w.as_str()) {
            by_len.entry(w.len()).or_default().push(w.as_str());
        }
    }
    by_len
}

/// Whether `w` may become an image: no token of the repository and no excluded word (every
/// token seen, every frozen one, keywords and outside names' words). The one test every
/// word handed out passes, drawn, made up for a long token or made for a redraw.
pub fn is_free(w: &str, tokens: &BTreeSet<String>, excluded: &BTreeSet<String>) -> bool {
    !excluded.contains(w) && !tokens.contains(w)
}

/// The vocabulary words that are neither excluded nor tokens, by length, each list sorted
/// and without repeats: what a draw may hand out, before its seeded shuffle.
fn free_words(
    tokens: &BTreeSet<String>,
    excluded: &BTreeSet<String>,
) -> BTreeMap<usize, Vec<&'static str>> {
    let mut by_len: BTreeMap<usize, Vec<&'static str>> = BTreeMap::new();
    for w in vocabulary() {
        if is_free(w, tokens, excluded) {
            by_len.entry(w.len()).or_default().push(w);
        }
    }
    for b in by_len.values_mut() {
        b.sort_unstable();
        b.dedup();
    }
    by_len
}

/// The vocabulary's longest words: a longer token's image is a compound.
const LONGEST_WORD: usize = 10;

/// Words longer than the vocabulary's, each two or more vocabulary words joined (`ledger` and
/// `pumpkin` give `ledgerpumpkin`), drawn for an exact length. A compound is a new word: it is
/// checked, like any image, against the tokens and excluded words, and against every image
/// given before it.
struct Compounds<'a> {
    rng: ChaCha8Rng,
    by_len: BTreeMap<usize, Vec<&'static str>>,
    tokens: &'a BTreeSet<String>,
    excluded: &'a BTreeSet<String>,
    given: BTreeSet<String>,
}

impl<'a> Compounds<'a> {
    /// Compounds of the words of `by_len` (`free_words` of the same tokens and excluded
    /// words).
    fn new(
        by_len: BTreeMap<usize, Vec<&'static str>>,
        tokens: &'a BTreeSet<String>,
        excluded: &'a BTreeSet<String>,
        seed: u64,
    ) -> Self {
        Compounds {
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x71d3_08c5_e2a9_64bf),
            by_len,
            tokens,
            excluded,
            given: BTreeSet::new(),
        }
    }

    fn keep(&mut self, w: &str) {
        if w.len() > LONGEST_WORD {
            self.given.insert(w.to_string());
        }
    }

    /// A compound of exactly `len` letters that `free` accepts, or none after a bounded
    /// number of tries (the caller then falls back to the nearest length).
    fn draw(&mut self, len: usize, free: &dyn Fn(&str) -> bool) -> Option<String> {
        use rand::Rng;
        for _ in 0..64 {
            let mut word = String::with_capacity(len);
            let mut rest = len;
            while rest > 0 {
                // Each part has 3 to 10 letters, and so must what is left after it.
                let most = if rest <= LONGEST_WORD {
                    rest
                } else {
                    LONGEST_WORD.min(rest - 3)
                };
                let least = if rest <= LONGEST_WORD { rest } else { 3 };
                let part = self.rng.random_range(least..=most);
                let bucket = self.by_len.get(&part).filter(|b| !b.is_empty())?;
                word.push_str(bucket[self.rng.random_range(0..bucket.len())]);
                rest -= part;
            }
            if is_free(&word, self.tokens, self.excluded)
                && !self.given.contains(&word)
                && free(&word)
            {
                return Some(word);
            }
        }
        None
    }
}

/// The vocabulary words `assign` left unused (neither excluded, a token nor a value of
/// `map`), in a seeded order: what later rules may draw from (`order`).
pub fn spare(
    tokens: &BTreeSet<String>,
    excluded: &BTreeSet<String>,
    map: &BTreeMap<String, String>,
    seed: u64,
) -> Vec<String> {
    // A prefixed image (`runner_prefix`) uses its bare word too: a redraw gives the bare word
    // back, and a word in the pool twice would go to two tokens.
    let used: BTreeSet<&str> = map
        .iter()
        .map(|(t, w)| w.strip_prefix(runner_prefix(t)).unwrap_or(w))
        .collect();
    let free = free_words(tokens, excluded);
    let mut out: Vec<String> = free
        .values()
        .flatten()
        .filter(|w| !used.contains(*w))
        .map(|w| w.to_string())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    out.shuffle(&mut ChaCha8Rng::seed_from_u64(seed ^ 0x0bde_7a51_c3e9_4f12));
    let mut made_up_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6c0e_3b97_d528_a14f);
    for (_, mut words) in made_up(excluded, tokens, &used) {
        words.shuffle(&mut made_up_rng);
        out.extend(words.into_iter().map(str::to_string));
    }
    // Compounds of each length a long image has, after every plain word: a redraw prefers
    // its old word's length, and only a long token's old word is this long.
    let mut long = Compounds::new(free, tokens, excluded, seed ^ 0x2f6a_95d1_0c37_b8e4);
    long.given.extend(used.iter().map(|w| w.to_string()));
    let lengths: BTreeSet<usize> = used
        .iter()
        .map(|w| w.len())
        .filter(|&l| l > LONGEST_WORD)
        .collect();
    for len in lengths {
        for _ in 0..SPARE_COMPOUNDS {
            if let Some(w) = long.draw(len, &|_| true) {
                long.keep(&w);
                out.push(w);
            }
        }
    }
    out
}

/// Spare compounds of each long length, for the order repair's redraws.
const SPARE_COMPOUNDS: usize = 256;

/// Lengths to try for a token of length `n`: n, n+1, n-1, n+2, n-2, ... down to 3 and up to 20.
fn nearest_lengths(n: usize) -> impl Iterator<Item = usize> {
    (0..40usize)
        .flat_map(move |d| {
            let up = n + d;
            let down = n.checked_sub(d).filter(|&x| x >= 3 && d > 0);
            std::iter::once(Some(up)).chain(std::iter::once(down))
        })
        .flatten()
        .filter(|&l| (3..=20).contains(&l))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(xs: &[&str]) -> BTreeSet<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn deterministic_and_seed_dependent() {
        let toks = set(&["query", "user", "account", "render", "widget"]);
        let ex = BTreeSet::new();
        let (a, _) = assign(&toks, &ex, 7);
        let (b, _) = assign(&toks, &ex, 7);
        let (c, _) = assign(&toks, &ex, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), 5);
    }

    #[test]
    fn words_are_distinct_and_never_excluded_or_tokens() {
        let toks = set(&["query", "user", "account"]);
        let all: Vec<&str> = vocabulary().take(50).collect();
        let ex: BTreeSet<String> = all.iter().map(|s| s.to_string()).collect();
        let (m, _) = assign(&toks, &ex, 1);
        let vals: BTreeSet<&String> = m.values().collect();
        assert_eq!(vals.len(), m.len());
        for v in m.values() {
            assert!(!ex.contains(v) && !toks.contains(v));
        }
    }

    #[test]
    fn no_word_looks_like_a_test_to_a_runner() {
        assert!(vocabulary().all(|w| !w.starts_with("test")));
        assert!(
            WORDS.lines().any(|w| w.starts_with("test")),
            "the filter is needed"
        );
    }

    #[test]
    fn a_token_a_runner_collects_keeps_its_prefix() {
        // `Testglob` is a pytest class (one token): shown as `Trillion` it is not collected.
        let toks = set(&["testglob", "testing", "glob", "contest", "tested"]);
        // An image that is an excluded word is never given, prefixed or not.
        let ex = set(&["testapple"]);
        for seed in 0..20 {
            let (m, left) = assign(&toks, &ex, seed);
            assert!(left.is_empty());
            for (t, w) in &m {
                assert_eq!(w.starts_with("test"), t.starts_with("test"), "{t} -> {w}");
                assert!(!toks.contains(w) && !ex.contains(w), "{t} -> {w}");
                assert!(vocabulary().any(|v| *w == v || *w == format!("test{v}")));
            }
            let words: BTreeSet<&String> = m.values().collect();
            assert_eq!(words.len(), m.len());
            // The pool of spare words holds no word an image is made of: a redraw gives
            // `testapple`'s `apple` back, and a second `apple` would go to two tokens.
            let pool = spare(&toks, &ex, &m, seed);
            for (t, w) in &m {
                assert!(
                    !pool.contains(&w[runner_prefix(t).len()..].to_string()),
                    "{w}"
                );
            }
        }
    }

    #[test]
    fn every_image_keeps_its_tokens_length() {
        // Golden files pad each token's text to a column and line-length checks count
        // columns: an image of another length moves both.
        let toks = set(&[
            "configuration",
            "configurations",
            "abbreviated",
            "aggregateannotationpruning",
            "testconfiguration",
            "query",
            "user",
        ]);
        for seed in 0..20 {
            let (m, left) = assign(&toks, &BTreeSet::new(), seed);
            assert!(left.is_empty());
            // Law 8: compounds and made-up words come from seeded streams too.
            assert_eq!((m.clone(), left), assign(&toks, &BTreeSet::new(), seed));
            assert_eq!(
                spare(&toks, &BTreeSet::new(), &m, seed),
                spare(&toks, &BTreeSet::new(), &m, seed)
            );
            for (t, w) in &m {
                assert_eq!(t.len(), w.len(), "{t} -> {w}");
            }
            let words: BTreeSet<&String> = m.values().collect();
            assert_eq!(words.len(), m.len());
        }
    }

    #[test]
    fn a_compound_is_vocabulary_words_and_never_a_token_or_excluded() {
        let toks = set(&["configuration", "administration", "abbreviated"]);
        // Exclude most of the vocabulary, so that compounds are drawn from a few words and
        // meet the excluded ones often.
        let ex: BTreeSet<String> = vocabulary()
            .enumerate()
            .filter(|(i, _)| i % 50 != 0)
            .map(|(_, w)| w.to_string())
            .collect();
        let (m, _) = assign(&toks, &ex, 5);
        let words: BTreeSet<&str> = vocabulary().filter(|w| !ex.contains(*w)).collect();
        for (t, w) in &m {
            assert_eq!(t.len(), w.len(), "{t} -> {w}");
            assert!(!ex.contains(w) && !toks.contains(w), "{w}");
            assert!(splits_into(w, &words), "{w} is not vocabulary words joined");
        }
        let pool = spare(&toks, &ex, &m, 5);
        for w in m.values() {
            assert!(!pool.contains(w), "{w} is spare and given");
        }
        for l in m.values().map(String::len) {
            assert!(
                pool.iter().any(|w| w.len() == l),
                "no spare word of {l} letters"
            );
        }
    }

    #[test]
    fn short_tokens_beyond_the_vocabulary_get_made_up_words_of_their_length() {
        // Every three- and four-letter vocabulary word is excluded (an environment whose
        // outside names use them all).
        let ex: BTreeSet<String> = vocabulary()
            .filter(|w| w.len() <= 4)
            .map(str::to_string)
            .collect();
        let toks = set(&["api", "url", "xml", "css", "json", "yaml", "html"]);
        let (m, left) = assign(&toks, &ex, 9);
        assert!(left.is_empty());
        for (t, w) in &m {
            assert_eq!(t.len(), w.len(), "{t} -> {w}");
            assert!(!ex.contains(w) && !toks.contains(w), "{w}");
            assert!(!vocabulary().any(|v| v == w), "{w} is a listed word");
        }
        // The order repair's spare words have these lengths too.
        let pool = spare(&toks, &ex, &m, 9);
        assert!(pool.iter().any(|w| w.len() == 3) && pool.iter().any(|w| w.len() == 4));
        assert!(m.values().all(|w| !pool.contains(w)));
    }

    fn splits_into(w: &str, words: &BTreeSet<&str>) -> bool {
        w.is_empty()
            || (3..=w.len()).any(|i| words.contains(&w[..i]) && splits_into(&w[i..], words))
    }
}

/// Token pairs for the lower-case spellings of CamelCase names, which programs make from class
/// names at run time (Django's `model_name`: `LogEntry` is `logentry` in migrations, content
/// types and permissions): `logentry` <-> the join of its words' images, so that single word
/// changes as the class does. Only names with a mapped word, and only joins whose image is
/// neither a token of the repository nor an excluded word nor already a word of the map;
/// two names that join to the same letters with different images give none.
///
/// A join that the draw already mapped on its own (`identifierlist` of sqlparse's
/// `_process_identifierlist`, looked up as `"_process_" + type(x).__name__.lower()`) is
/// mapped again to the join's image, so that every name holding it follows the class; unless
/// `pinned` (its word decides the order of a directory, `bundle::keep_sibling_order`) or it is
/// the image of another token.
pub fn joined_pairs<'a>(
    runs: impl IntoIterator<Item = &'a String>,
    tokens: &BTreeMap<String, String>,
    excluded: &BTreeSet<String>,
    frozen: impl Fn(&str) -> bool,
    pinned: impl Fn(&str) -> bool,
) -> BTreeMap<String, String> {
    use super::tokens::{split, Piece};
    let used: BTreeSet<&str> = tokens
        .iter()
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    let images: BTreeSet<&str> = tokens.values().map(String::as_str).collect();
    let mut found: BTreeMap<String, Option<String>> = BTreeMap::new();
    for run in runs {
        let pieces = split(run);
        if pieces.len() < 2 || !pieces.iter().all(|p| matches!(p, Piece::Word(..))) {
            continue;
        }
        // Words that stay (unmapped, or too short to map) stay in the join's image too:
        // `CategoryInfo` shown as `CategoryLoom` is `categoryloom` to the program.
        let mut joined = String::new();
        let mut image = String::new();
        for p in &pieces {
            let Piece::Word(w, _) = p else { continue };
            let lw = w.to_ascii_lowercase();
            joined.push_str(&lw);
            image.push_str(tokens.get(&lw).map_or(lw.as_str(), String::as_str));
        }
        if joined == image || frozen(&joined) {
            continue;
        }
        let clash = |w: &str| used.contains(w) || excluded.contains(w);
        // The join itself may be a token of the repository (a string `"logentry"`): that is
        // the point. Its image must be new.
        let remapped = tokens.contains_key(&joined);
        if images.contains(joined.as_str()) || (remapped && pinned(&joined)) || clash(&image) {
            continue;
        }
        match found.get(&joined) {
            Some(Some(prev)) if *prev != image => {
                found.insert(joined, None);
            }
            Some(_) => {}
            None => {
                found.insert(joined, Some(image));
            }
        }
    }
    let mut out = BTreeMap::new();
    let mut images = BTreeSet::new();
    for (j, i) in found {
        // Two joins with one image would break the bijection: keep the first.
        if let Some(i) = i {
            if images.insert(i.clone()) {
                out.insert(j, i);
            }
        }
    }
    // Nor may a join be another pair's image.
    out.retain(|j, _| !images.contains(j));
    out
}

#[cfg(test)]
mod joined_tests {
    use super::*;

    #[test]
    fn camel_case_names_give_their_lower_case_joins() {
        let tokens: BTreeMap<String, String> =
            [("log", "seal"), ("entry", "bed"), ("content", "pear")]
                .into_iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
        let runs: Vec<String> = [
            "LogEntry",
            "ContentType",
            "log_entry",
            "Log2Entry",
            "Entry",
            "TypeKind",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let excluded: BTreeSet<String> = ["logentry".to_string()].into_iter().collect();
        let pairs = joined_pairs(&runs, &tokens, &BTreeSet::new(), |_| false, |_| false);
        // `ContentType` keeps its unmapped `type`; `log_entry` and `Log2Entry` are no joins,
        // and `TypeKind` has no mapped word.
        assert_eq!(
            pairs.into_iter().collect::<Vec<_>>(),
            [
                ("contenttype".to_string(), "peartype".to_string()),
                ("logentry".to_string(), "sealbed".to_string())
            ]
        );
        // An image that is a token of the repository (excluded) gives nothing; so does a
        // frozen join.
        let tokens2: BTreeMap<String, String> = [("seal", "log"), ("bed", "entry")]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert!(joined_pairs(
            &["SealBed".to_string()],
            &tokens2,
            &excluded,
            |_| false,
            |_| false
        )
        .is_empty());
        assert!(!joined_pairs(
            &runs,
            &tokens,
            &BTreeSet::new(),
            |j| j == "logentry",
            |_| false
        )
        .contains_key("logentry"));
    }

    /// A join the draw mapped on its own (sqlparse's `identifierlist` of
    /// `_process_identifierlist`) follows the class, unless its word is pinned by a
    /// directory's order or is another token's image.
    #[test]
    fn a_join_drawn_on_its_own_follows_its_class() {
        let tokens: BTreeMap<String, String> = [
            ("identifier", "seal"),
            ("list", "bed"),
            ("identifierlist", "pear"),
            ("process", "plum"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let runs = ["IdentifierList".to_string()];
        let pairs = joined_pairs(&runs, &tokens, &BTreeSet::new(), |_| false, |_| false);
        assert_eq!(
            pairs.get("identifierlist").map(String::as_str),
            Some("sealbed")
        );
        let pinned = joined_pairs(
            &runs,
            &tokens,
            &BTreeSet::new(),
            |_| false,
            |j| j == "identifierlist",
        );
        assert!(pinned.is_empty());
        let mut image_of_other = tokens.clone();
        image_of_other.insert("other".into(), "identifierlist".into());
        assert!(joined_pairs(
            &runs,
            &image_of_other,
            &BTreeSet::new(),
            |_| false,
            |_| false
        )
        .is_empty());
    }
}
