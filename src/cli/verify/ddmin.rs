//! Delta debugging (Zeller's ddmin) for the smallest freeze set that keeps a property.
//!
//! Guarantee: given a set on which `good` holds, the result is a subset on which `good` held
//! when probed, and from which no single element can be removed with `good` still holding
//! (1-minimal), provided `good` is deterministic. Each distinct subset is probed at most once
//! (results are cached), and the order of elements is kept.

use std::collections::BTreeMap;

/// Shrink `items` (on which `good` is assumed to hold) to a 1-minimal subset on which it
/// holds. `good` may fail (an I/O error): the error stops the search.
pub fn ddmin<T: Clone + Ord, E>(
    items: &[T],
    mut good: impl FnMut(&[T]) -> Result<bool, E>,
) -> Result<Vec<T>, E> {
    let mut cache: BTreeMap<Vec<T>, bool> = BTreeMap::new();
    let mut probe = |s: &[T]| -> Result<bool, E> {
        let mut key = s.to_vec();
        key.sort();
        if let Some(&r) = cache.get(&key) {
            return Ok(r);
        }
        let r = good(s)?;
        cache.insert(key, r);
        Ok(r)
    };
    let mut cur: Vec<T> = items.to_vec();
    if cur.is_empty() || probe(&[])? {
        return Ok(Vec::new());
    }
    let mut n = 2usize;
    while cur.len() >= 2 {
        let chunks = split(&cur, n);
        let mut reduced = false;
        // A chunk alone keeps the property: keep just it.
        for c in &chunks {
            if probe(c)? {
                cur = c.clone();
                n = 2;
                reduced = true;
                break;
            }
        }
        if !reduced && n > 2 {
            // A complement keeps it: drop that chunk.
            for i in 0..chunks.len() {
                let comp: Vec<T> = chunks
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, c)| c.iter().cloned())
                    .collect();
                if probe(&comp)? {
                    cur = comp;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= cur.len() {
                break;
            }
            n = (2 * n).min(cur.len());
        }
    }
    // With two chunks, complements are the chunks themselves; check single removals once
    // more so the answer is 1-minimal whatever path the search took.
    let mut i = 0;
    while cur.len() > 1 && i < cur.len() {
        let mut without = cur.clone();
        without.remove(i);
        if probe(&without)? {
            cur = without;
        } else {
            i += 1;
        }
    }
    Ok(cur)
}

fn split<T: Clone>(s: &[T], n: usize) -> Vec<Vec<T>> {
    let n = n.clamp(1, s.len().max(1));
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let end = start + (s.len() - start) / (n - i);
        out.push(s[start..end].to_vec());
        start = end;
    }
    out.retain(|c| !c.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(items: &[u32], needed: &[u32]) -> (Vec<u32>, usize) {
        let mut calls = 0;
        let r = ddmin(items, |s: &[u32]| -> Result<bool, ()> {
            calls += 1;
            Ok(needed.iter().all(|n| s.contains(n)))
        })
        .unwrap();
        (r, calls)
    }

    #[test]
    fn finds_single_culprit() {
        let items: Vec<u32> = (0..40).collect();
        let (r, calls) = run(&items, &[17]);
        assert_eq!(r, vec![17]);
        assert!(calls < 40, "{calls} probes");
    }

    #[test]
    fn finds_pairs_and_keeps_order() {
        let items: Vec<u32> = (0..16).collect();
        assert_eq!(run(&items, &[3, 12]).0, vec![3, 12]);
        assert_eq!(run(&items, &[0, 1, 15]).0, vec![0, 1, 15]);
    }

    #[test]
    fn empty_set_when_nothing_needed() {
        assert_eq!(run(&[1, 2, 3], &[]).0, Vec::<u32>::new());
        assert_eq!(run(&[], &[]).0, Vec::<u32>::new());
    }

    #[test]
    fn errors_stop_the_search() {
        let r = ddmin(&[1, 2, 3], |_s: &[i32]| -> Result<bool, &str> {
            Err("boom")
        });
        assert_eq!(r, Err("boom"));
    }
}
