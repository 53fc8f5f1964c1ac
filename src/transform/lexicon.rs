//! The seeded bijection between the repository's owned tokens and virtual words.
//!
//! Guarantees: deterministic for (tokens, excluded words, seed) on any machine (sorted inputs,
//! ChaCha8 with a fixed seed, no hash-map iteration order); every virtual word is a shipped
//! vocabulary word that is not excluded (the caller excludes every token of the repository, so
//! the pairs are disjoint and the map is an involution); a token gets a word of similar length
//! when one is left.

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
    let mut buckets: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for w in vocabulary() {
        if !excluded.contains(w) && !tokens.contains(w) && seen.insert(w) {
            buckets.entry(w.len()).or_default().push(w);
        }
    }
    for b in buckets.values_mut() {
        b.sort_unstable();
        b.shuffle(&mut rng);
    }
    let mut order: Vec<&String> = tokens.iter().collect();
    order.shuffle(&mut rng);

    let mut map = BTreeMap::new();
    let mut left = Vec::new();
    for t in order {
        let want = t.len().clamp(3, 12);
        let word = nearest_lengths(want).find_map(|len| buckets.get_mut(&len).and_then(Vec::pop));
        match word {
            Some(w) => {
                map.insert(t.clone(), w.to_string());
            }
            None => left.push(t.clone()),
        }
    }
    left.sort();
    (map, left)
}

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
    fn similar_length() {
        let toks = set(&["configuration"]);
        let (m, _) = assign(&toks, &BTreeSet::new(), 3);
        let w = &m["configuration"];
        // The vocabulary's longest words are ten letters: the nearest length wins.
        let longest = vocabulary().map(str::len).max().unwrap_or(0);
        assert_eq!(w.len(), longest.min(13), "{w}");
    }
}
