//! The words and numbers of a chart, for the text of its `Unknown` block.
//!
//! Hancom stores a chart as an OOXML (DrawingML) chart part in both formats: HWPX as
//! `Chart/chartN.xml` in the package, HWP as the `OOXMLChartContents` stream of the OLE object in
//! its bin data (the same bytes). What a reader of the document sees of it is its title, the
//! series names, the category labels and the values; this writes them as one line per series:
//!
//! ```text
//! Sales 2025
//! Seoul: Q1 4.3, Q2 2.5, Q3 3.5
//! Busan: Q1 2.4, Q2 4.4, Q3 1.8
//! ```
//!
//! Values come from the caches the authoring program writes (`c:strCache`, `c:numCache`),
//! not from the embedded workbook.

use quick_xml::events::Event;
use quick_xml::Reader;

/// Past this, a chart's text is cut: a chart's legible content is a few hundred characters,
/// and this bounds what a hostile part can add to a document.
const MAX_CHART_TEXT: usize = 16 * 1024;
/// Deeper than this, the part is not a chart any writer makes.
const MAX_DEPTH: usize = 256;

#[derive(Default)]
struct Series {
    name: String,
    categories: Vec<String>,
    values: Vec<String>,
}

/// Which list of a series the `c:v` being read belongs to.
#[derive(Clone, Copy, PartialEq)]
enum Slot {
    Name,
    Category,
    Value,
}

/// The chart's title and series as text, or `None` when the part is not a readable chart or
/// holds no words or numbers.
pub fn chart_text(xml: &[u8]) -> Option<String> {
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().trim_text(false);
    let mut path: Vec<Vec<u8>> = Vec::new();
    let mut title = String::new();
    let mut series: Vec<Series> = Vec::new();
    let mut buf = Vec::new();
    loop {
        let event = reader.read_event_into(&mut buf).ok()?;
        match event {
            Event::Start(e) => {
                let name = e.local_name().as_ref().as_bytes().to_vec();
                if name == b"ser" {
                    series.push(Series::default());
                }
                path.push(name);
                if path.len() > MAX_DEPTH {
                    return None;
                }
            }
            Event::End(_) => {
                path.pop();
            }
            Event::Text(t) => {
                let text = t.xml10_content();
                take_text(&path, &text, &mut title, &mut series);
            }
            Event::GeneralRef(r) => {
                let c = crate::owpml::xml::general_ref(&r);
                if let Some(c) = c {
                    take_text(&path, c.encode_utf8(&mut [0u8; 4]), &mut title, &mut series);
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
        if title.len() + series.iter().map(|s| s.name.len()).sum::<usize>() > MAX_CHART_TEXT {
            break;
        }
    }
    let mut out = String::new();
    let title = title.trim();
    if !title.is_empty() {
        out.push_str(title);
        out.push('\n');
    }
    for s in &series {
        if s.values.is_empty() && s.name.trim().is_empty() {
            continue;
        }
        out.push_str(s.name.trim());
        out.push(':');
        for (k, value) in s.values.iter().enumerate() {
            out.push_str(if k == 0 { " " } else { ", " });
            if let Some(category) = s.categories.get(k).filter(|c| !c.trim().is_empty()) {
                out.push_str(category.trim());
                out.push(' ');
            }
            out.push_str(value.trim());
        }
        out.push('\n');
        if out.len() > MAX_CHART_TEXT {
            break;
        }
    }
    let out = out.trim_end();
    (!out.is_empty()).then(|| out.to_string())
}

/// File a piece of character data where it belongs: the title's words (`a:t` under
/// `c:title`), or a series' name, category label or value (`c:v` under `c:tx`, `c:cat`, `c:val`).
fn take_text(path: &[Vec<u8>], text: &str, title: &mut String, series: &mut [Series]) {
    let within = |name: &[u8]| path.iter().any(|p| p == name);
    let leaf = path.last().map(Vec::as_slice);
    if leaf == Some(b"t") && within(b"title") && !within(b"ser") {
        title.push_str(text);
        return;
    }
    if leaf != Some(b"v") || !within(b"ser") {
        return;
    }
    let slot = if within(b"tx") {
        Slot::Name
    } else if within(b"cat") || within(b"xVal") {
        Slot::Category
    } else if within(b"val") || within(b"yVal") {
        Slot::Value
    } else {
        return;
    };
    let Some(s) = series.last_mut() else {
        return;
    };
    // A new `c:pt` starts a new entry; the text of one `c:v` may come in pieces.
    let new_point = path.iter().rev().nth(1).is_some_and(|p| p == b"pt");
    match slot {
        Slot::Name => s.name.push_str(text),
        Slot::Category | Slot::Value => {
            let list = if slot == Slot::Category {
                &mut s.categories
            } else {
                &mut s.values
            };
            match list.last_mut() {
                Some(last) if !new_point || last.is_empty() => last.push_str(text),
                _ => list.push(text.to_string()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::chart_text;

    #[test]
    fn series_with_categories_and_title() {
        let xml = r#"<c:chartSpace xmlns:c="urn:c" xmlns:a="urn:a"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Sales &amp; more</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart>
          <c:ser><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>Seoul</c:v></c:pt></c:strCache></c:strRef></c:tx>
            <c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>Q1</c:v></c:pt><c:pt idx="1"><c:v>Q2</c:v></c:pt></c:strCache></c:strRef></c:cat>
            <c:val><c:numRef><c:numCache><c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>4.3</c:v></c:pt><c:pt idx="1"><c:v>2.5</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
          <c:ser><c:tx><c:v>Busan</c:v></c:tx><c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>1</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
        </c:barChart></c:plotArea></c:chart></c:chartSpace>"#;
        assert_eq!(
            chart_text(xml.as_bytes()).as_deref(),
            Some("Sales & more\nSeoul: Q1 4.3, Q2 2.5\nBusan: 1")
        );
    }

    #[test]
    fn nothing_readable_is_none() {
        assert_eq!(chart_text(b""), None);
        assert_eq!(chart_text(b"<c:chartSpace xmlns:c=\"u\"/>"), None);
        assert_eq!(chart_text(b"\xff\xfe<not xml"), None);
        let deep = "<a>".repeat(1000);
        assert_eq!(chart_text(deep.as_bytes()), None);
    }
}
