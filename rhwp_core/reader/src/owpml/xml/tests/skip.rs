//! The randomized tests of skipping: the block-wise `skip_content` against
//! the construct-at-a-time reference (`skip_content_reference`, kept here),
//! and the unchecked skip and listing against the exact ones, on generated
//! and mutated fragments.

use super::super::fast::{end_tag, skip_comment, skip_pi};
use super::super::listing::{list_children, start_tag_shape};
use super::super::scan::find_byte;
use super::super::skip::{skip_content, skip_unchecked};
use super::super::*;
use super::Rng;

/// `skip_content` as it was first written, one construct at a time: the
/// reference the block-wise version is tested against.
fn skip_content_reference(
    s: &str,
    mut pos: usize,
    name: &str,
    open: &mut Vec<(usize, usize)>,
) -> std::result::Result<usize, Stop> {
    let b = s.as_bytes();
    open.clear();
    loop {
        // Character data: only references need a check.
        let rest = b.get(pos..).ok_or(Stop::Unsure)?;
        let lt = find_byte(rest, b'<').ok_or(Stop::Unsure)?;
        if rest[..lt].contains(&b'&') {
            let mut chunk = &rest[..lt];
            while let Some(amp) = chunk.iter().position(|&c| c == b'&') {
                let after = &chunk[amp + 1..];
                match after.iter().position(|&c| c == b';' || c == b'&') {
                    Some(e) if after[e] == b';' => chunk = &after[e + 1..],
                    _ => return Err(Stop::Unsure),
                }
            }
        }
        pos += lt;
        match b.get(pos + 1) {
            Some(b'/') => {
                let closing = match open.last() {
                    Some(&(start, len)) => s.get(start..start + len).ok_or(Stop::Unsure)?,
                    None => name,
                };
                pos = end_tag(b, pos, closing)?;
                if open.pop().is_none() {
                    return Ok(pos);
                }
            }
            Some(b'?') => pos = skip_pi(b, pos)?,
            Some(b'!') => pos = skip_comment(b, pos)?,
            None => return Err(Stop::Unsure),
            Some(_) => {
                let start = pos + 1;
                let (i, empty, name_len) = start_tag_shape(b, start)?;
                if !empty {
                    open.push((start, name_len));
                }
                pos = i + 1;
            }
        }
    }
}

const SKIP_NAMES: &[&str] = &[
    "a",
    "hh:font",
    "hc:intent",
    "hp:t",
    "가",
    "x",
    "hh:borderFillList",
    "abcdefghijklmnopqrstu",
    "a\"b>\"c",
];

/// An attribute value: plain, or holding quotes of the other kind, `>`,
/// `<`, `&`, `/`, multi-byte text, or long enough to cross blocks.
fn skip_value(r: &mut Rng, quote: char) -> String {
    let mut v = String::new();
    for _ in 0..r.below(4) {
        v.push_str(r.pick(&[
            "0",
            "HWPUNIT",
            ">",
            "<",
            "&",
            "&amp;",
            "/",
            "함초롬돋움",
            "'",
            "\"",
            "/>",
            "x y",
            "0123456789012345678901234567890123456789012345678901234567890",
        ]));
    }
    v.replace(quote, "")
}

fn skip_attrs(r: &mut Rng, out: &mut String) {
    for _ in 0..r.below(6) {
        out.push_str(r.pick(&[" ", " ", " ", "\t", "\n", "  "]));
        out.push_str(r.pick(&["id", "value", "unit", "face", "isEmbedded", "k"]));
        out.push('=');
        let quote = if r.chance(85) { '"' } else { '\'' };
        out.push(quote);
        out.push_str(&skip_value(r, quote));
        out.push(quote);
    }
    if r.chance(10) {
        out.push_str(r.pick(&[" ", "\t", " / ", "\""]));
    }
}

fn skip_text(r: &mut Rng, out: &mut String) {
    if r.chance(70) {
        return;
    }
    for _ in 0..1 + r.below(3) {
        out.push_str(if r.chance(90) {
            r.pick(&[
                "abc",
                "&amp;",
                ";",
                ">",
                "\"",
                "'",
                "가나다",
                "\n  ",
                "&#x41;",
                "a;b&c;",
                "                                                                ",
                "<!-- c -->",
                "<!---->",
                "<!-- a -- b -->",
                "<?pi x?>",
                "<??>",
            ])
        } else {
            r.pick(&[
                "&",
                "&x",
                "&&;",
                "<!-->",
                "<!- x>",
                "<?>",
                "<?x>",
                "<![CDATA[x]]>",
                "<!DOCTYPE r>",
                "<>",
                "< a>",
                "</>",
            ])
        });
    }
}

/// An element: `<name attrs/>`, or `<name attrs>content</name>` with an
/// occasionally wrong or spaced end tag.
fn skip_element(r: &mut Rng, depth: usize, out: &mut String) {
    let name = r.pick(SKIP_NAMES);
    out.push('<');
    out.push_str(name);
    skip_attrs(r, out);
    if depth > 4 || r.chance(55) {
        out.push_str("/>");
        return;
    }
    out.push('>');
    skip_content_of(r, depth + 1, out);
    out.push_str("</");
    out.push_str(if r.chance(3) {
        r.pick(SKIP_NAMES)
    } else {
        name
    });
    if r.chance(3) {
        out.push(' ');
    }
    out.push('>');
}

fn skip_content_of(r: &mut Rng, depth: usize, out: &mut String) {
    skip_text(r, out);
    for _ in 0..r.below(if depth == 0 { 12 } else { 4 }) {
        skip_element(r, depth, out);
        skip_text(r, out);
    }
}

/// A single-character edit: replaced, deleted or inserted.
fn mutate(r: &mut Rng, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return String::new();
    }
    let at = r.below(chars.len());
    let new = r.pick(&[
        "<", ">", "\"", "'", "/", "&", ";", "!", "?", "-", " ", "가", "a", "=",
    ]);
    let mut out: String = chars[..at].iter().collect();
    match r.below(3) {
        0 => out.push_str(new),
        1 => {}
        _ => {
            out.push_str(new);
            out.push(chars[at]);
        }
    }
    out.extend(&chars[at + 1..]);
    out
}

fn skip_result(r: std::result::Result<usize, Stop>) -> Option<usize> {
    match r {
        Ok(end) => Some(end),
        Err(Stop::Unsure) => None,
        Err(Stop::Fail(e)) => panic!("skip_content failed: {e:?}"),
    }
}

/// The block-wise `skip_content` agrees with the construct-at-a-time
/// reference on generated and mutated fragments: the same end, or both unsure.
#[test]
fn skip_content_matches_the_reference() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut open, mut reference_open) = (Vec::new(), Vec::new());
    let (mut ends, mut cases) = (0, 0);
    for case in 0..40_000 {
        // A lead-in of varying length moves the fragment across block boundaries.
        let mut text = " ".repeat(r.below(70));
        let name = r.pick(SKIP_NAMES);
        text.push('<');
        text.push_str(name);
        skip_attrs(&mut r, &mut text);
        text.push('>');
        let pos = text.len();
        skip_content_of(&mut r, 0, &mut text);
        text.push_str("</");
        text.push_str(name);
        text.push('>');
        if r.chance(50) {
            skip_element(&mut r, 3, &mut text);
        }
        let mut variants = vec![text.clone()];
        if case % 2 == 1 {
            let mut t = text.clone();
            for _ in 0..1 + r.below(3) {
                t = mutate(&mut r, &t);
            }
            variants.push(t);
        }
        if case % 5 == 0 {
            let cut = pos + r.below(text.len() - pos + 1);
            if let Some(t) = text.get(..cut) {
                variants.push(t.to_string());
            }
        }
        for t in &variants {
            for p in [pos, pos.saturating_sub(1), pos + 1] {
                let new = skip_result(skip_content(t, p, name, &mut open));
                let old = skip_result(skip_content_reference(t, p, name, &mut reference_open));
                assert_eq!(new, old, "{t:?} from {p} closing {name:?}");
                cases += 1;
                ends += usize::from(new.is_some());
            }
        }
    }
    // Both outcomes are well represented.
    assert!(
        ends * 10 > cases && ends * 10 < cases * 9,
        "{ends} of {cases}"
    );
}

/// Well-formed by the XML rules, which quick-xml's skip does not enforce: names
/// and attributes well made, no `<` in attribute values.
fn well_formed(text: &str) -> bool {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    loop {
        match reader.read_event() {
            Ok(Event::Eof) => return true,
            Ok(Event::Start(e) | Event::Empty(e)) => {
                if e.name().as_ref().bytes().any(|c| br#""'<>=&"#.contains(&c)) {
                    return false;
                }
                let mut attrs = e.attributes();
                attrs.with_checks(true);
                for a in attrs {
                    match a {
                        Ok(a) if !a.value.contains('<') => {}
                        _ => return false,
                    }
                }
            }
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

/// The unchecked skip and listing land where the exact ones do on all
/// well-formed content (they differ only in accepting ill-formed content),
/// and never fail.
#[test]
fn unchecked_skips_land_where_the_exact_ones_do() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let mut open = Vec::new();
    let (mut agreed, mut lenient) = (0, 0);
    for case in 0..40_000 {
        let mut text = " ".repeat(r.below(70));
        let name = r.pick(SKIP_NAMES);
        text.push('<');
        text.push_str(name);
        text.push('>');
        let pos = text.len();
        skip_content_of(&mut r, 0, &mut text);
        text.push_str("</");
        text.push_str(name);
        text.push('>');
        let t = if case % 2 == 1 {
            mutate(&mut r, &text)
        } else {
            text
        };
        let exact = skip_result(skip_content(&t, pos, name, &mut open));
        let unchecked = skip_result(skip_unchecked(&t, pos, name, &mut open));
        let compared = exact.is_some() && well_formed(&t);
        if compared {
            assert_eq!(unchecked, exact, "{t:?} closing {name:?}");
            agreed += 1;
        } else if exact.is_none() {
            lenient += usize::from(unchecked.is_some());
        }
        if let Some(end) = unchecked {
            assert!(t.as_bytes()[..end].ends_with(format!("</{name}>").as_bytes()));
        }
        let (mut spans, mut exact_spans) = (Vec::new(), Vec::new());
        let listed = skip_result(list_children(
            &t,
            pos,
            name,
            Skipped::Unchecked,
            &mut open,
            &mut spans,
        ));
        let exact_end = skip_result(list_children(
            &t,
            pos,
            name,
            Skipped::Checked,
            &mut open,
            &mut exact_spans,
        ));
        if compared {
            assert_eq!(listed, exact_end, "{t:?} listing {name:?}");
            assert_eq!(spans, exact_spans, "{t:?} listing {name:?}");
        }
    }
    // Most generated fragments bend the XML rules (quick-xml tolerates them).
    assert!(
        agreed > 2_000 && lenient > 200,
        "{agreed} agreed, {lenient} lenient"
    );
}
