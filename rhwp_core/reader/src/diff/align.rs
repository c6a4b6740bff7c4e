//! Aligning two sequences in order: which items of `a` and `b` are the same item, kept in order.
//!
//! Two tools, both bounded by the comparison's work budget:
//! - [`myers`]: a shortest edit script (Myers' O((N+M)·D) greedy walk), given up past `max_d`
//!   edits -- exact and cheap when the two sides differ little, which is the case it is for
//!   (the characters of a modified paragraph, the rows of a table, a gap between anchors);
//! - [`anchored`]: the patience/histogram idea for long sequences of block fingerprints: items
//!   that occur exactly once on each side are anchors, the longest run of anchors in the same
//!   order is kept (patience sorting, O(k log k)), and the gaps between anchors are aligned the
//!   same way, down to gaps small enough for [`myers`]. Two versions of one report share almost
//!   all their paragraphs once each, so the work is close to linear in their length.

use super::Work;
use crate::error::Result;
use std::collections::HashMap;
use std::hash::Hash;

/// Matched index pairs `(i, j)` of a shortest edit script from `a` to `b`, increasing in both;
/// `None` when the script needs more than `max_d` edits (the caller then treats the two as
/// replaced, which is what they are at that distance).
pub fn myers<T: PartialEq>(
    a: &[T],
    b: &[T],
    max_d: usize,
    work: &mut Work,
) -> Result<Option<Vec<(usize, usize)>>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (max_d as isize).min(n + m);
    let offset = max + 1;
    let mut v = vec![0isize; (2 * max + 3) as usize];
    // The part of `v` each step read (k from -d-1 to d+1), kept to walk the script back: the
    // memory is about max_d² entries, which `max_d` bounds.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=max {
        let lo = (offset - d - 1) as usize;
        let hi = (offset + d + 1) as usize;
        trace.push(v[lo..=hi].to_vec());
        work.spend(2 * d as u64 + 1)?;
        let mut k = -d;
        while k <= d {
            let at = (offset + k) as usize;
            let mut x = if k == -d || (k != d && v[at - 1] < v[at + 1]) {
                v[at + 1]
            } else {
                v[at - 1] + 1
            };
            let mut y = x - k;
            let start = x;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            work.spend((x - start) as u64)?;
            v[at] = x;
            if x >= n && y >= m {
                return Ok(Some(walk_back(&trace, d, n, m)));
            }
            k += 2;
        }
    }
    Ok(None)
}

/// The matched pairs of the script found at distance `found`, from the kept rows of `v`.
fn walk_back(trace: &[Vec<isize>], found: isize, n: isize, m: isize) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (0..=found).rev() {
        let row = &trace[d as usize];
        // row[0] is k = -d-1.
        let at = |k: isize| row[(k + d + 1) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = at(prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y && x > 0 && y > 0 {
            x -= 1;
            y -= 1;
            pairs.push((x as usize, y as usize));
        }
        if d > 0 {
            x = prev_x;
            y = prev_y;
        }
    }
    pairs.reverse();
    pairs
}

/// Gaps at most this many edits apart are aligned exactly ([`myers`]); wider ones are left
/// unmatched (their blocks are then paired by similarity or reported inserted and deleted).
const GAP_MAX_D: usize = 400;

/// Matched pairs `(i, j)` of `a` and `b`, increasing in both: equal items aligned by unique
/// anchors, then within the gaps (see the module doc).
pub fn anchored<T: Eq + Hash + Copy>(
    a: &[T],
    b: &[T],
    work: &mut Work,
) -> Result<Vec<(usize, usize)>> {
    let mut pairs = Vec::new();
    // Ranges still to align: (a_lo, a_hi, b_lo, b_hi); a stack, never recursion, so a hostile
    // pair cannot run the thread out of stack.
    let mut todo = vec![(0usize, a.len(), 0usize, b.len())];
    while let Some((mut alo, mut ahi, mut blo, mut bhi)) = todo.pop() {
        while alo < ahi && blo < bhi && a[alo] == b[blo] {
            pairs.push((alo, blo));
            alo += 1;
            blo += 1;
        }
        while alo < ahi && blo < bhi && a[ahi - 1] == b[bhi - 1] {
            pairs.push((ahi - 1, bhi - 1));
            ahi -= 1;
            bhi -= 1;
        }
        if alo == ahi || blo == bhi {
            continue;
        }
        work.spend((ahi - alo + bhi - blo) as u64)?;
        let anchors = unique_anchors(&a[alo..ahi], &b[blo..bhi]);
        if anchors.is_empty() {
            if let Some(found) = myers(&a[alo..ahi], &b[blo..bhi], GAP_MAX_D, work)? {
                pairs.extend(found.into_iter().map(|(i, j)| (alo + i, blo + j)));
            }
            continue;
        }
        let (mut ai, mut bi) = (alo, blo);
        for (i, j) in anchors {
            let (i, j) = (alo + i, blo + j);
            todo.push((ai, i, bi, j));
            pairs.push((i, j));
            ai = i + 1;
            bi = j + 1;
        }
        todo.push((ai, ahi, bi, bhi));
    }
    pairs.sort_unstable();
    Ok(pairs)
}

/// The items that occur once in `a` and once in `b`, as `(i, j)`, the longest run of them
/// increasing in both (patience sorting over `j` in the order of `i`).
fn unique_anchors<T: Eq + Hash + Copy>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    // Per item: (count in a, index in a, count in b, index in b).
    let mut seen: HashMap<T, (u32, usize, u32, usize)> = HashMap::with_capacity(a.len());
    for (i, item) in a.iter().enumerate() {
        let e = seen.entry(*item).or_insert((0, i, 0, 0));
        e.0 += 1;
    }
    for (j, item) in b.iter().enumerate() {
        if let Some(e) = seen.get_mut(item) {
            e.2 += 1;
            e.3 = j;
        }
    }
    let mut unique: Vec<(usize, usize)> = seen
        .values()
        .filter(|e| e.0 == 1 && e.2 == 1)
        .map(|e| (e.1, e.3))
        .collect();
    unique.sort_unstable();
    longest_increasing(&unique)
}

/// The longest subsequence of `pairs` (sorted by `i`) increasing in `j`.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: index in `pairs` of the smallest tail of an increasing run of length k+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; pairs.len()];
    for (p, &(_, j)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].1 < j);
        before[p] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(p);
        } else {
            tails[k] = p;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(p) = at {
        run.push(pairs[p]);
        at = before[p];
    }
    run.reverse();
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work() -> Work {
        Work::new(10_000_000)
    }

    fn lcs_len(a: &[u8], b: &[u8]) -> usize {
        let mut dp = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                dp[i + 1][j + 1] = if a[i] == b[j] {
                    dp[i][j] + 1
                } else {
                    dp[i][j + 1].max(dp[i + 1][j])
                };
            }
        }
        dp[a.len()][b.len()]
    }

    fn check(pairs: &[(usize, usize)], a: &[u8], b: &[u8]) {
        for w in pairs.windows(2) {
            assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1, "{pairs:?}");
        }
        for &(i, j) in pairs {
            assert_eq!(a[i], b[j]);
        }
    }

    #[test]
    fn myers_finds_a_longest_common_subsequence() {
        let cases: [(&[u8], &[u8]); 6] = [
            (b"abcabba", b"cbabac"),
            (b"", b"abc"),
            (b"abc", b""),
            (b"abc", b"abc"),
            (b"kitten", b"sitting"),
            (b"xaxbxcx", b"abc"),
        ];
        for (a, b) in cases {
            let pairs = myers(a, b, 100, &mut work()).unwrap().unwrap();
            check(&pairs, a, b);
            assert_eq!(pairs.len(), lcs_len(a, b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn myers_gives_up_past_its_distance() {
        assert!(myers(b"aaaa", b"bbbb", 3, &mut work()).unwrap().is_none());
        assert!(myers(b"aaaa", b"bbbb", 8, &mut work()).unwrap().is_some());
    }

    #[test]
    fn anchored_keeps_order_and_matches_moved_items_once() {
        let a: Vec<u8> = b"abcdefghij".to_vec();
        let b: Vec<u8> = b"abXdefghcij".to_vec();
        let pairs = anchored(&a, &b, &mut work()).unwrap();
        check(&pairs, &a, &b);
        // c moved after h: the longest order keeps d..h and drops c.
        assert_eq!(pairs.len(), 9);
    }

    #[test]
    fn the_budget_stops_the_work() {
        let a: Vec<u32> = (0..5000).collect();
        let b: Vec<u32> = (5000..10000).collect();
        let mut tight = Work::new(1000);
        assert!(anchored(&a, &b, &mut tight).is_err());
    }
}
