//! The differential tests: the fast engine against quick-xml's (`compat_walk`)
//! on samples, their truncations and their single-byte corruptions, step by
//! step and attribute by attribute; and the generator the randomized tests
//! share (`Rng`). The randomized tests of skipping are in `skip`.

mod skip;

use super::attrs::{TagRepr, Unusual};
use super::*;
use quick_xml::events::BytesStart;

/// Every attribute of a tag, as the engine that made it sees them.
fn all_attrs(t: &Tag<'_, '_>) -> Vec<String> {
    match &t.0 {
        TagRepr::Split { text, spans } => spans
            .iter()
            .map(|a| {
                format!(
                    "{}={}",
                    String::from_utf8_lossy(a.key(text).unwrap_or_default()),
                    a.value(text).unwrap_or_default()
                )
            })
            .collect(),
        TagRepr::Lazy(tag) => {
            let mut out = Vec::new();
            for a in tag.spans() {
                match a {
                    Ok(a) => out.push(format!(
                        "{}={}",
                        String::from_utf8_lossy(a.key(tag.text).unwrap_or_default()),
                        a.value(tag.text).unwrap_or_default()
                    )),
                    // What quick-xml makes of the whole tag.
                    Err(Unusual) => return tag.quick().map(|q| quick_all(&q)).unwrap_or_default(),
                }
            }
            out
        }
        TagRepr::Quick(e) => quick_all(e),
    }
}

fn quick_all(e: &BytesStart<'_>) -> Vec<String> {
    let mut it = e.attributes();
    it.with_checks(false);
    it.flatten()
        .map(|a| format!("{}={}", a.key.as_ref(), a.value))
        .collect()
}

/// The steps a walk gives, with the error it ends on; elements named
/// `skip` are skipped, and an element named `fail` makes the visitor fail.
fn trace(text: &[u8], fast: bool) -> Vec<String> {
    let mut out = Vec::new();
    let visit = |step: Step<'_, '_>, depth: u32| -> Result<Flow> {
        match step {
            Step::Open { name, owpml, start } => {
                out.push(format!(
                    "{depth}<{name} {owpml} {:?} {:?} {:?} {:?}",
                    all_attrs(start),
                    attr(start, "a"),
                    attr(start, "b"),
                    attrs(start, ["b", "a", "c"])
                ));
                if name == "fail" {
                    return Err(Error::corrupt("visitor failed"));
                }
                if name == "skip" {
                    return Ok(Flow::Skip);
                }
                if name == "list" {
                    return Ok(Flow::SkipListing);
                }
            }
            Step::Close => out.push(format!("{depth}>")),
            Step::Text(t) => out.push(format!("{depth}:{t}")),
            Step::Children(spans) => out.push(format!(
                "{depth}{:?}",
                spans
                    .iter()
                    .map(|&(a, b)| String::from_utf8_lossy(&text[a..b]).into_owned())
                    .collect::<Vec<_>>()
            )),
        }
        Ok(Flow::Continue)
    };
    let result = if fast {
        walk(text, "part", 8, 50, visit)
    } else {
        let stripped = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        let limits = WalkLimits {
            part: "part",
            max_depth: 8,
            max_elements: 50,
            base: text.len() - stripped.len(),
            skipped: Skipped::Checked,
        };
        compat_walk(stripped, &limits, &Replay::default(), visit)
    };
    out.push(format!("{result:?}"));
    out
}

const SAMPLES: &[&str] = &[
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\" ?><hs:sec xmlns:hs=\"http://www.hancom.co.kr/hwpml/2011/section\" xmlns:hp=\"http://www.hancom.co.kr/hwpml/2011/paragraph\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><hp:p a=\"1 &amp; 2\" b='x\"y'><hp:run><hp:t>가 &lt;나&gt; &#x41;&#13;&bogus;다\r\n라\rmi</hp:t><dc:title a = \"t\">T</dc:title></hp:run><hp:linesegarray><hp:lineseg vertpos=\"0\"/></hp:linesegarray></hp:p></hs:sec>",
    "\u{feff}<!-- lead --><root xmlns=\"http://www.owpml.org/owpml/2024/paragraph\"><a a=\"1\"/><x:b xmlns:x=\"urn:other\"><x:c/><c xmlns=\"\">t</c></x:b><und:e a='2'>u</und:e><xml:f/><skip><q a=\"&\"><r>&amp;</r></q><!-- c --></skip></root>\n",
    "<r><skip a=\"1\"><skip><skip/></skip><?pi x?></skip><p xmlns:p=\"\"><p:q/></p><fail/></r>",
    "<r xmlns:a=\"http://www.hancom.co.kr/hwpml/2011/paragraph\"><a:p><b xmlns:a=\"urn:x\"><a:p/></b><a:p/></a:p></r>",
    "<r><a a=\"1\"b=\"2\"/><a a/><a a=x/><a =\"1\"/><a/ ><a\tb\n=\r'1' /><![CDATA[x]]><!DOCTYPE r><a>&x</a></r>",
    "<r><a xmlns:xml=\"http://www.w3.org/XML/1998/namespace\"/><a xmlns:xmlns=\"u\"/><a xmlns:=\"u\"/><a xmlnsx=\"u\"/></r>",
    "<r><a></b></r>",
    "<r><a><b><c><d><e><f><g><h><i>deep</i></h></g></f></e></d></c></b></a></r>",
    "</r>",
    "<r>&amp</r>",
    "<r>t &amp; <!-->--> <!----> x</r><r2/>",
    "<?>x<??><r/>",
    // Attribute syntax the fast engine leaves to quick-xml, tag by tag.
    "<r><a a=\"1\"b=\"2\" c='3'/><a b='1' a/><a c=\"1\" a=x b='2'/><a =\"1\"/><a\tb\n=\r'1' a = \"2\" b=\"dup\"/><a a=\"&amp;&lt;\" a=\"2\"/><a b='1' / ></a><a b=\"1\"<c=\"2\" a='3'/><a xmlnsx=\"1\" a=\"2\"/><a ax=\"1\"x=\"2\" b='x'/><a c='/' b=\">\"/></r>",
    // Skipped content whose end tag also appears inside a value; an end tag with a space.
    "<r><skip><a x=\"</skip>\"/></skip><b/></r>",
    "<r><skip><skip>x</skip ></skip><skip>y</skip ><c/></r>",
    // Listed children: empty and nested ones, text, comments and references between them.
    "\u{feff}<r xmlns:h=\"http://www.hancom.co.kr/hwpml/2011/head\"><h:list n=\"2\"> <h:e id=\"0\" v='>'/>t&amp;<h:e id=\"1\"><h:f><h:e/></h:f>x</h:e><!-- c --><?p?><h:g/></h:list><list/><list></list><list><a>&b;</a></list></r>",
];

#[test]
fn fast_engine_matches_quick_xml() {
    for sample in SAMPLES {
        assert_eq!(
            trace(sample.as_bytes(), true),
            trace(sample.as_bytes(), false),
            "{sample}"
        );
    }
    // Every truncation and every single-byte corruption of the samples.
    for sample in SAMPLES {
        let bytes = sample.as_bytes();
        for cut in 0..bytes.len() {
            let t = &bytes[..cut];
            assert_eq!(
                trace(t, true),
                trace(t, false),
                "{}",
                String::from_utf8_lossy(t)
            );
        }
        for at in 0..bytes.len() {
            for b in [
                b'<', b'>', b'"', b'\'', b'/', b'&', b';', b'=', b' ', b':', b'!', b'?', b'-',
                b'x', b'\t', 0xff,
            ] {
                let mut t = bytes.to_vec();
                t[at] = b;
                assert_eq!(
                    trace(&t, true),
                    trace(&t, false),
                    "{}",
                    String::from_utf8_lossy(&t)
                );
            }
        }
    }
}

/// `each_tag_within` meets the start tags a walk of the element opens, in order.
#[test]
fn tags_within_an_element_are_the_walks() {
    let element = "<h:e id=\"1\" v='>'><h:f a=\"x>y\"><!-- <h:no/> --><?p x?><h:e/>t&amp;</h:f>x<g b='2'/><h:h>\n</h:h></h:e>";
    let mut walked = Vec::new();
    walk(element.as_bytes(), "p", 64, 1000, |step, depth| {
        if let Step::Open { name, start, .. } = step {
            if depth > 1 {
                walked.push(format!("{name} {:?}", all_attrs(start)));
            }
        }
        Ok(Flow::Continue)
    })
    .unwrap();
    let mut within = Vec::new();
    each_tag_within(element.as_bytes(), |name, tag| {
        within.push(format!("{name} {:?}", all_attrs(tag)));
        true
    });
    assert_eq!(within, walked);
    assert_eq!(walked.len(), 4);
    let mut first = Vec::new();
    each_tag_within(element.as_bytes(), |name, _| {
        first.push(name.to_string());
        false
    });
    assert_eq!(first, ["f"]);
    let (name, tag) = start_tag(element.as_bytes()).unwrap();
    assert_eq!((name, attr_u32(&tag, "id")), ("e", Some(1)));
    assert!(start_tag(b"text").is_none());
}

/// A tag the crate wrote itself reads as `start_tag` reads the same text, escapes included; text
/// of another shape is refused rather than misread.
#[test]
fn own_tags_read_as_start_tags_do() {
    for (text, name_len) in [
        ("<tr/>", 2),
        ("<tc header=\"1\" name=\"a&quot;b &amp; &lt;c&gt;\"/>", 2),
        ("<cellAddr rowAddr=\"3\" colAddr=\"0\"/>", 8),
    ] {
        let own = own_tag(text, name_len).expect(text);
        let (_, parsed) = start_tag(text.as_bytes()).unwrap();
        for key in ["header", "name", "rowAddr", "colAddr", "absent"] {
            assert_eq!(attr(&own, key), attr(&parsed, key), "{text} {key}");
        }
    }
    assert_eq!(
        attr(&own_tag("<tc name=\"a&quot;b\"/>", 2).unwrap(), "name").as_deref(),
        Some("a\"b")
    );
    for (text, name_len) in [
        ("tc/>", 2),
        ("<tc>", 2),
        ("<tcx/>", 2),
        ("<", 1),
        ("</>", 0),
    ] {
        assert!(own_tag(text, name_len).is_none(), "{text}");
    }
}

/// The samples the fast engine reads alone (no hand-over to quick-xml).
#[test]
fn fast_engine_reads_common_xml() {
    for (k, sample) in SAMPLES.iter().enumerate() {
        let limits = WalkLimits {
            part: "part",
            max_depth: 8,
            max_elements: 50,
            base: 0,
            skipped: Skipped::Checked,
        };
        let mut seen = Replay::default();
        let text = sample.trim_start_matches('\u{feff}');
        let r = fast_walk(
            text,
            &limits,
            &mut |_: Step<'_, '_>, _| Ok(Flow::Continue),
            &mut seen,
        );
        let expected = matches!(k, 0..=3 | 10 | 12 | 13 | 15);
        assert_eq!(r.is_ok(), expected, "sample {k}");
    }
}

/// A small deterministic generator (xorshift64*) for the randomized tests.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}
