//! Text diffed by character: Korean writes no space inside a word (조사 and 어미 are glued to
//! it), so a diff by words would call `계약금액을` → `계약금액은` a changed word where one
//! character changed. The characters are aligned ([`super::align::myers`], after the common
//! start and end are set aside) and grouped for display into spans: runs of equal, deleted and
//! inserted text.

use super::align::myers;
use super::Work;
use crate::error::Result;
use serde::Serialize;

/// One run of a character diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    /// `equal`, `delete` (in the old text only) or `insert` (in the new text only).
    pub op: &'static str,
    pub text: String,
}

/// Edits beyond which two texts are shown as replaced rather than aligned character by
/// character (the alignment's memory grows with the square of the edits).
const MAX_EDITS: usize = 1000;

/// The alignment of one text costs at most about this much (its length times the edits
/// allowed): long texts are allowed fewer edits, so a pair of documents whose every long
/// paragraph was rewritten stays bounded.
const EFFORT: usize = 400_000;

/// The spans that turn `old` into `new`.
pub fn char_diff(old: &str, new: &str, work: &mut Work) -> Result<Vec<Span>> {
    let a: Vec<char> = old.chars().collect();
    let b: Vec<char> = new.chars().collect();
    work.spend((a.len() + b.len()) as u64)?;
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let matched = if am.is_empty() || bm.is_empty() {
        Vec::new()
    } else {
        let max_d = (EFFORT / (am.len() + bm.len())).clamp(16, MAX_EDITS);
        myers(am, bm, max_d, work)?.unwrap_or_default()
    };
    let mut ops: Vec<(&'static str, char)> = Vec::with_capacity(a.len().max(b.len()));
    ops.extend(a[..head].iter().map(|&c| ("equal", c)));
    let (mut i, mut j) = (0, 0);
    for (mi, mj) in matched
        .into_iter()
        .chain(std::iter::once((am.len(), bm.len())))
    {
        ops.extend(am[i..mi].iter().map(|&c| ("delete", c)));
        ops.extend(bm[j..mj].iter().map(|&c| ("insert", c)));
        if mi < am.len() {
            ops.push(("equal", am[mi]));
        }
        i = mi + 1;
        j = mj + 1;
    }
    ops.extend(a[a.len() - tail..].iter().map(|&c| ("equal", c)));
    Ok(grouped(&ops))
}

/// Equal runs this short between two changes are shown inside the change: a coincidental
/// shared syllable (`가나다` → `라나마`) reads better as one replaced stretch than as three.
const ABSORBED: usize = 1;

fn grouped(ops: &[(&'static str, char)]) -> Vec<Span> {
    let mut runs: Vec<(&'static str, Vec<char>)> = Vec::new();
    for &(op, c) in ops {
        match runs.last_mut() {
            Some((last, text)) if *last == op => text.push(c),
            _ => runs.push((op, vec![c])),
        }
    }
    // Absorb short equal runs between changes: the equal text moves into both sides.
    let mut out: Vec<(&'static str, Vec<char>)> = Vec::new();
    let mut k = 0;
    while k < runs.len() {
        let (op, text) = &runs[k];
        let between = *op == "equal"
            && text.len() <= ABSORBED
            && k > 0
            && k + 1 < runs.len()
            && runs[k - 1].0 != "equal"
            && runs[k + 1].0 != "equal";
        if between {
            push_run(&mut out, "delete", text);
            push_run(&mut out, "insert", text);
        } else {
            push_run(&mut out, op, text);
        }
        k += 1;
    }
    // Deletions before insertions within each changed stretch (as a 신구대조표 reads).
    let mut spans: Vec<Span> = Vec::new();
    let mut k = 0;
    while k < out.len() {
        if out[k].0 == "equal" {
            spans.push(Span {
                op: "equal",
                text: out[k].1.iter().collect(),
            });
            k += 1;
            continue;
        }
        let (mut del, mut ins) = (String::new(), String::new());
        while k < out.len() && out[k].0 != "equal" {
            let target = if out[k].0 == "delete" {
                &mut del
            } else {
                &mut ins
            };
            target.extend(out[k].1.iter());
            k += 1;
        }
        if !del.is_empty() {
            spans.push(Span {
                op: "delete",
                text: del,
            });
        }
        if !ins.is_empty() {
            spans.push(Span {
                op: "insert",
                text: ins,
            });
        }
    }
    spans
}

fn push_run(out: &mut Vec<(&'static str, Vec<char>)>, op: &'static str, text: &[char]) {
    match out.last_mut() {
        Some((last, run)) if *last == op => run.extend_from_slice(text),
        _ => out.push((op, text.to_vec())),
    }
}

/// The character offset of the first change in the old text and in the new one.
pub fn first_change(spans: &[Span]) -> Option<(usize, usize)> {
    let mut equal = 0;
    for s in spans {
        if s.op == "equal" {
            equal += s.text.chars().count();
        } else {
            return Some((equal, equal));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(a: &str, b: &str) -> Vec<(&'static str, String)> {
        char_diff(a, b, &mut Work::new(100_000_000))
            .unwrap()
            .into_iter()
            .map(|s| (s.op, s.text))
            .collect()
    }

    #[test]
    fn one_syllable_inside_a_word() {
        assert_eq!(
            diff("계약금액을 지급한다", "계약금액은 지급한다"),
            vec![
                ("equal", "계약금액".to_string()),
                ("delete", "을".to_string()),
                ("insert", "은".to_string()),
                ("equal", " 지급한다".to_string()),
            ]
        );
    }

    #[test]
    fn equal_texts_are_one_equal_span() {
        assert_eq!(diff("같다", "같다"), vec![("equal", "같다".to_string())]);
        assert!(first_change(&char_diff("같다", "같다", &mut Work::new(100)).unwrap()).is_none());
    }

    #[test]
    fn the_spans_rebuild_both_texts() {
        let (a, b) = (
            "제3조(정의) 이 법에서 사용하는 용어",
            "제4조(용어의 정의) 이 규칙에서 쓰는 용어",
        );
        let spans = diff(a, b);
        let old: String = spans
            .iter()
            .filter(|s| s.0 != "insert")
            .map(|s| s.1.as_str())
            .collect();
        let new: String = spans
            .iter()
            .filter(|s| s.0 != "delete")
            .map(|s| s.1.as_str())
            .collect();
        assert_eq!((old.as_str(), new.as_str()), (a, b));
    }

    #[test]
    fn texts_too_far_apart_are_replaced_whole() {
        let a: String = "가".repeat(3000);
        let b: String = "나".repeat(3000);
        let spans = diff(&a, &b);
        assert_eq!(spans.len(), 2);
    }
}
