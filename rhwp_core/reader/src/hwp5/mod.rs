//! HWP 5.0: compound file → records → model.
//!
//! `container` opens the compound file and inflates streams; `record` frames
//! the tag/level/size records; `doc_info` reads the shared tables; `body`
//! and `controls` turn section records into blocks; `distribution` decrypts
//! the `ViewText` sections of distribution (배포용) documents;
//! `summary_info` reads the `\x05HwpSummaryInformation` property set.
//!
//! Only the streams the model needs are read: `FileHeader`, `DocInfo`, the
//! summary, the sections; `BinData/` entries are listed for their sizes, never
//! read. Page numbers and the page count are as last laid out by the authoring
//! program (see `body`).

pub mod bin_data;
pub mod body;
pub mod container;
pub mod controls;
pub mod distribution;
pub mod doc_info;
pub mod encryption;
pub mod fields;
pub mod fill;
#[cfg(any(test, feature = "fuzzing"))]
mod fuzz;
pub mod layout;
pub mod record;
pub mod summary_info;

use crate::common::compound::{self, Compound};
use crate::deferred::Deferred;
use crate::model::Format;
use crate::{Document, Error, ErrorCode, Options, Result};
use container::{Container, FileHeader};

const SUMMARY_STREAM: &str = "\u{5}HwpSummaryInformation";

pub fn read(bytes: &[u8], options: &Options) -> Result<Document> {
    let limits = &options.limits;
    let (mut container, header) = Container::open_document(bytes, options)?;
    let mut doc = Document::new(Format::Hwp);
    // A compound file read past its damage (shared sectors, counts that disagree, a short
    // last sector) says so; strict reading refuses it.
    if let (true, Some(first)) = (options.strict, container.warnings().first()) {
        return Err(Error::corrupt(first.clone()));
    }
    doc.warnings.extend_from_slice(container.warnings());
    doc.version = Deferred::known(header.version_string());
    doc.compressed = header.compressed;
    doc.distribution = header.distribution;

    // DocInfo: without it text is still readable (formatting falls back to plain).
    let info = match read_doc_info(&mut container, header.compressed, limits.max_records) {
        Ok(info) => info,
        Err(e) if options.strict || e.code == ErrorCode::TooLarge => {
            return Err(e.context("DocInfo"))
        }
        Err(e) => {
            doc.warnings.push(format!(
                "DocInfo unreadable, formatting ignored: {}",
                e.message
            ));
            doc_info::DocInfo::default()
        }
    };

    if container.exists(SUMMARY_STREAM) {
        if let Ok(raw) = container.read_raw(SUMMARY_STREAM) {
            doc.metadata = summary_info::read_summary_information(&raw);
        }
    }

    let storage = body_storage(&header);
    let sections = section_streams(&container, storage);
    if sections.is_empty() {
        return Err(Error::corrupt(format!(
            "no {storage}/Section streams: the document body is missing"
        )));
    }

    let mut pages = body::PageTracker::default();
    let mut first_error: Option<Error> = None;
    // Memos are matched to their anchors once every section is read: Hancom writes their text
    // after the last section's paragraphs. They come after all other furniture.
    let mut memos = body::Memos::default();
    for (number, name) in &sections {
        let path = format!("{storage}/{name}");
        let result = read_section_stream(&mut container, &header, &path)
            .map(|body| {
                if header.track_changes && !header.distribution {
                    with_tracked_changes(&mut container, &header, name, body, options, &mut doc)
                } else {
                    body
                }
            })
            .and_then(|data| read_section_parts(&data, &info, options, *number, &mut pages));
        match result {
            Ok((section, mut furniture, mut section_memos)) => {
                doc.sections.push(section);
                doc.furniture.append(&mut furniture);
                memos.append(&mut section_memos);
            }
            Err(e) if options.strict || e.code == ErrorCode::TooLarge => {
                return Err(e.context(&path))
            }
            Err(e) => {
                doc.warnings.push(format!("{path} skipped: {}", e.message));
                first_error.get_or_insert(e.context(&path));
            }
        }
    }
    doc.furniture.extend(memos.into_furniture());
    if doc.sections.is_empty() {
        let e = first_error.unwrap_or_else(|| Error::corrupt("no body section could be read"));
        // An unsupported section (e.g. encryption we cannot undo) says so; anything else is damage.
        return Err(if e.code == ErrorCode::UnsupportedFormat {
            e
        } else {
            Error::corrupt(format!("no body section could be read ({})", e.message))
        });
    }

    name_charts(&mut doc, &mut container, &info, header.compressed);
    let mut bin_data = info.bin_data.clone();
    doc_info::attach_sizes(&mut bin_data, &container.stream_names("BinData"));
    doc.bin_data = bin_data;
    doc.styles = Deferred::known(info.styles.clone());
    pages.finish();
    place_endnotes(&mut doc, &pages.printed_endnotes);
    doc.pages = if pages.has_layout {
        Some(pages.page)
    } else {
        None
    };
    Ok(doc)
}

/// The storage holding the body: `ViewText` in a distribution document (`BodyText` there holds
/// only the notice old viewers show), else `BodyText`.
pub(crate) fn body_storage(header: &FileHeader) -> &'static str {
    if header.distribution {
        "ViewText"
    } else {
        "BodyText"
    }
}

/// HWP stores a chart as an OLE object whose embedded compound file (in `BinData/BIN....OLE`,
/// after a 4-byte length) holds the chart as an `OOXMLChartContents` stream; HWPX writes the same
/// object as a chart element. Such OLE objects are named `chart` so that both formats say the
/// same. Only the bin data of OLE objects is read, each once; any failure leaves the name `ole`.
fn name_charts(
    doc: &mut Document,
    container: &mut Container,
    info: &doc_info::DocInfo,
    compressed: bool,
) {
    let mut ole_ids: Vec<u32> = Vec::new();
    doc.for_each_block_mut(&mut |block| {
        if let crate::model::Block::Unknown(u) = block {
            if let (Some(id), "ole") = (u.bin_data_id, u.object.as_str()) {
                if !ole_ids.contains(&id) {
                    ole_ids.push(id);
                }
            }
        }
    });
    // Each chart with its text (title, series), read from the chart stream once it is known.
    let charts: Vec<(u32, Option<String>)> = ole_ids
        .into_iter()
        .filter_map(|id| {
            let path = format!("BinData/{}", info.bin_data_name(id)?);
            ole_holds_chart(container, &path, compressed)
                .then(|| (id, chart_stream_text(container, &path, compressed)))
        })
        .collect();
    if charts.is_empty() {
        return;
    }
    doc.for_each_block_mut(&mut |block| {
        if let crate::model::Block::Unknown(u) = block {
            let chart = charts
                .iter()
                .find(|(id, _)| u.object == "ole" && u.bin_data_id == Some(*id));
            if let Some((_, text)) = chart {
                u.object = "chart".into();
                if u.text.is_none() {
                    u.text.clone_from(text);
                }
            }
        }
    });
}

/// The text of the chart in the OLE bin-data stream at `path`: its `OOXMLChartContents`
/// stream is the same OOXML chart part HWPX stores (see `crate::chart`).
fn chart_stream_text(container: &mut Container, path: &str, compressed: bool) -> Option<String> {
    crate::chart::chart_text(&embedded_stream(container, path, compressed, CHART_STREAM)?)
}

/// Whether the OLE bin-data stream at `path` embeds a chart (see `name_charts`). Hancom writes
/// the embedded compound file's directory near its start, so the first 16 kB inflated usually
/// answer; otherwise the whole stream is inflated and opened as a compound file.
fn ole_holds_chart(container: &mut Container, path: &str, compressed: bool) -> bool {
    const PREFIX: usize = 16 << 10;
    let Ok(raw) = container.read_raw(path) else {
        return false;
    };
    // A stream's own flags may override the document's compression: stored streams show the
    // compound-file signature right after the length.
    let prefix;
    let head = if raw.get(4..12) == Some(&compound::SIGNATURE[..]) {
        &raw[4..]
    } else if compressed {
        prefix = crate::common::inflate::inflate_prefix(&raw, PREFIX);
        prefix.get(4..).unwrap_or_default()
    } else {
        return false;
    };
    if !head.starts_with(&compound::SIGNATURE) {
        return false;
    }
    match lists_chart_stream(head) {
        Some(found) => found,
        None => embedded_stream(container, path, compressed, CHART_STREAM).is_some(),
    }
}

/// The stream of a Hancom chart object that holds the chart (an OOXML chart part).
const CHART_STREAM: &str = "OOXMLChartContents";

/// Whether the directory of a compound file, given whole or as its first bytes, lists a stream
/// named `OOXMLChartContents`; `None` when the directory runs past the bytes given.
fn lists_chart_stream(cf: &[u8]) -> Option<bool> {
    let u16_at = |at: usize| cf.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let u32_at = |at: usize| {
        cf.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    // Header: sector shift at 30 (9 or 12), first directory sector at 48, the first 109
    // sectors of the allocation table listed from 76.
    let (Some(shift @ (9 | 12)), Some(mut next)) = (u16_at(30), u32_at(48)) else {
        return Some(false);
    };
    let size = 1usize << shift;
    let sector_at = |n: u32| (n as usize).checked_add(1)?.checked_mul(size);
    let per_fat_sector = (size / 4) as u32;
    // A directory of more than 64 sectors is not a chart object's.
    for _ in 0..64 {
        if next >= 0xFFFF_FFFA {
            return Some(false);
        }
        let start = sector_at(next)?;
        let sector = cf.get(start..)?.get(..size)?;
        // 128-byte entries: UTF-16LE name (64 bytes), its length in bytes with the NUL at 64,
        // the entry type at 66 (2 = stream).
        let found = sector.chunks_exact(128).any(|entry| {
            let len = usize::from(u16::from_le_bytes([entry[64], entry[65]]));
            entry[66] == 2
                && len == (CHART_STREAM.len() + 1) * 2
                && CHART_STREAM
                    .encode_utf16()
                    .zip(entry.chunks_exact(2))
                    .all(|(c, b)| u16::from_le_bytes([b[0], b[1]]) == c)
        });
        if found {
            return Some(true);
        }
        // The next directory sector, from the allocation table.
        let fat_index = next / per_fat_sector;
        if fat_index >= 109 {
            return None;
        }
        let fat_sector = u32_at(76 + 4 * fat_index as usize)?;
        let entry = sector_at(fat_sector)?.checked_add(4 * (next % per_fat_sector) as usize)?;
        next = u32_at(entry)?;
    }
    Some(false)
}

/// The content of the stream `name` of the compound file embedded in the OLE bin-data stream
/// at `path` (after its 4-byte length), the whole stream inflated within the document's limits.
fn embedded_stream(
    container: &mut Container,
    path: &str,
    compressed: bool,
    name: &str,
) -> Option<Vec<u8>> {
    let raw = container.read_raw(path).ok()?;
    let data = if raw.get(4..12) == Some(&compound::SIGNATURE[..]) || !compressed {
        raw
    } else {
        container.inflate_accounted(&raw, path).ok()?
    };
    let limits = container.limits();
    let ole = Compound::open(data.get(4..)?, limits.max_entries).ok()?;
    if ole.stream_len(name)? > limits.max_stream_bytes {
        return None;
    }
    ole.read_stream(name).ok()
}

fn read_doc_info(
    container: &mut Container,
    compressed: bool,
    max_records: u64,
) -> Result<doc_info::DocInfo> {
    let data = container.read_stream("DocInfo", compressed)?;
    let records = record::frame(&data, max_records)?;
    Ok(doc_info::parse(&data, &records))
}

/// A document with tracked changes (변경 추적 문서) keeps in `BodyText` the final text only
/// (inserted text in, deleted text out, nothing marked) and in `ViewText` the same section with
/// the deleted text back in place and every change marked by PARA_RANGE_TAG entries
/// (`body::change_ranges`). The `ViewText` section is read instead when, its deleted text left
/// out, it holds the same paragraph text as the `BodyText` one; otherwise (or when missing or
/// unreadable) the `BodyText` one is, and a warning says the changes were not read.
fn with_tracked_changes(
    container: &mut Container,
    header: &FileHeader,
    name: &str,
    body: Vec<u8>,
    options: &Options,
    doc: &mut Document,
) -> Vec<u8> {
    let path = format!("ViewText/{name}");
    if !container.exists(&path) {
        return body;
    }
    match container.read_stream(&path, header.compressed) {
        Ok(view) if view_matches_body(&view, &body, options.limits.max_records) => view,
        _ => {
            doc.warnings.push(format!(
                "{path} does not match BodyText/{name}: its tracked changes were not read"
            ));
            body
        }
    }
}

/// Whether the `ViewText` section `view` is the `BodyText` section `body` with tracked changes
/// marked: the characters of all its paragraphs, deleted ones left out, are the body's. Only
/// the characters and the one-unit controls (and tabs) are compared: Hancom's `ViewText` may
/// hold a field (a `%bmk` bookmark around text, in the corpus) its `BodyText` does not.
pub fn view_matches_body(view: &[u8], body: &[u8], max_records: u64) -> bool {
    fn final_units(data: &[u8], max_records: u64) -> Option<Vec<u8>> {
        use record::tag::{CTRL_HEADER, PARA_HEADER, PARA_RANGE_TAG, PARA_TEXT};
        let recs = record::frame(data, max_records).ok()?;
        // Each paragraph's PARA_TEXT and PARA_RANGE_TAG: its children (one level down) before
        // the first control under it. One pass, the paragraphs still open on a stack: looking
        // through the records after every paragraph made a staircase of a thousand nested
        // paragraphs over two million records (a 23 KB file) take 22 s.
        let mut paragraphs: Vec<(&[u8], &[u8])> = Vec::new();
        let mut open: Vec<(u16, usize, usize)> = Vec::new(); // level, header index, paragraph
        let mut last_ctrl: Option<usize> = None;
        for (i, c) in recs.iter().enumerate() {
            while open.last().is_some_and(|&(level, _, _)| level >= c.level) {
                open.pop();
            }
            if c.tag == CTRL_HEADER {
                last_ctrl = Some(i);
            }
            if let Some(&(level, at, p)) = open.last() {
                // A control under the paragraph since its header ends what it holds.
                if u32::from(c.level) == u32::from(level) + 1 && last_ctrl.is_none_or(|x| x < at) {
                    match c.tag {
                        PARA_TEXT => paragraphs[p].0 = c.data(data),
                        PARA_RANGE_TAG => paragraphs[p].1 = c.data(data),
                        _ => {}
                    }
                }
            }
            if c.tag == PARA_HEADER {
                paragraphs.push((&[], &[]));
                open.push((c.level, i, paragraphs.len() - 1));
            }
        }
        let mut out = Vec::with_capacity(data.len());
        for (text, range_tag) in paragraphs {
            let ranges = body::change_ranges(range_tag);
            let segments = body::change_segments(&ranges);
            let mut segment = 0usize;
            let n = text.len() / 2;
            let mut k = 0usize;
            while k < n {
                let unit = u16::from_le_bytes([text[2 * k], text[2 * k + 1]]);
                let width = match unit {
                    9 => 8,
                    0..=31 if body::ctrl_class(unit) != body::CtrlClass::Char => {
                        k += 8;
                        continue;
                    }
                    _ => 1,
                };
                // A deleted range covers `k` when the change in force there is a deletion
                // (deletions come first), found by walking the segments as `k` grows.
                while segments.get(segment).is_some_and(|&(p, _)| p <= k) {
                    segment += 1;
                }
                let deleted = segment
                    .checked_sub(1)
                    .and_then(|s| segments[s].1)
                    .is_some_and(|(_, deleted)| deleted);
                if !deleted {
                    out.extend_from_slice(&unit.to_le_bytes());
                }
                k += width;
            }
        }
        Some(out)
    }
    match (
        final_units(view, max_records),
        final_units(body, max_records),
    ) {
        (Some(v), Some(b)) => v == b,
        _ => false,
    }
}

/// The record bytes of one section: read, decrypted (distribution documents), inflated.
fn read_section_stream(
    container: &mut Container,
    header: &FileHeader,
    path: &str,
) -> Result<Vec<u8>> {
    if header.distribution {
        let raw = container.read_raw(path)?;
        let decrypted = distribution::decrypt_section(&raw)?;
        if header.compressed {
            container.inflate_accounted(&decrypted, path)
        } else {
            Ok(decrypted)
        }
    } else {
        container.read_stream(path, header.compressed)
    }
}

/// One section's record stream (already decrypted and inflated) into a
/// section and its furniture. Public as the entry point of the
/// `hwp5_records` fuzz target, which skips the container and inflation to
/// reach record framing and the body reader directly.
pub fn read_section(
    data: &[u8],
    info: &doc_info::DocInfo,
    options: &Options,
    number: u32,
    pages: &mut body::PageTracker,
) -> Result<(crate::model::Section, Vec<crate::model::Furniture>)> {
    let (section, mut furniture, memos) = read_section_parts(data, info, options, number, pages)?;
    furniture.extend(memos.into_furniture());
    Ok((section, furniture))
}

/// `read_section`, with the section's memo anchors and memo texts kept apart for matching.
fn read_section_parts(
    data: &[u8],
    info: &doc_info::DocInfo,
    options: &Options,
    number: u32,
    pages: &mut body::PageTracker,
) -> Result<(
    crate::model::Section,
    Vec<crate::model::Furniture>,
    body::Memos,
)> {
    let records = record::frame(data, options.limits.max_records)?;
    let mut ctx = body::Ctx::new(data, &records, info, &options.limits, number);
    let section = ctx.read_section(pages)?;
    Ok((
        section,
        std::mem::take(&mut ctx.furniture),
        std::mem::take(&mut ctx.memos),
    ))
}

/// The `SectionN` streams of `storage` (`BodyText` or `ViewText`), in number order.
pub(crate) fn section_streams(
    container: &container::Container<'_>,
    storage: &str,
) -> Vec<(u32, String)> {
    let mut sections: Vec<(u32, String)> = container
        .stream_names(storage)
        .into_iter()
        .filter_map(|(name, _)| {
            name.strip_prefix("Section")
                .and_then(|n| n.parse::<u32>().ok())
                .map(|n| (n, name))
        })
        .collect();
    sections.sort_unstable();
    sections
}

/// HWP 5.0's entry in the table of formats (`crate::formats`).
pub static FORMAT: crate::common::format::Format = crate::common::format::Format {
    name: "hwp",
    model: Format::Hwp,
    sniffed: crate::common::format::Sniffed::CompoundFile,
    sniff: |bytes| bytes.starts_with(&compound::SIGNATURE),
    read,
    bin_data: bin_data::item,
    writer: crate::common::format::Writer::Fills(fill::fill),
    layout: Some(layout::layout),
    #[cfg(any(test, feature = "fuzzing"))]
    fuzz_layers: fuzz::LAYERS,
};

/// Endnotes are printed after the body (`body::PageTracker`), not on their anchor's page: each
/// endnote (in the order of its anchor) takes the page its first line is printed on.
fn place_endnotes(doc: &mut crate::model::Document, printed: &[((u32, u32), u32)]) {
    if printed.is_empty() {
        return;
    }
    // Several notes may share an anchor paragraph: they are taken in order.
    let mut by_anchor: std::collections::HashMap<(u32, u32), std::collections::VecDeque<u32>> =
        std::collections::HashMap::new();
    for &(anchor, page) in printed {
        by_anchor.entry(anchor).or_default().push_back(page);
    }
    for note in doc.furniture.iter_mut().filter(|f| f.kind == "endnote") {
        let anchor = (note.provenance.section, note.provenance.paragraph);
        let Some(page) = by_anchor.get_mut(&anchor).and_then(|q| q.pop_front()) else {
            continue;
        };
        let page = Some(page);
        note.provenance.page = page;
        crate::model::set_pages(&mut note.blocks, page);
    }
}

#[cfg(test)]
mod chart_tests {
    use super::lists_chart_stream;

    /// A compound-file header (512-byte sectors, directory at sector `first`) and one directory
    /// sector holding an entry named `name` of type `kind`.
    fn compound(first: u32, name: &str, kind: u8) -> Vec<u8> {
        let mut cf = vec![0u8; 512 * (first as usize + 2)];
        cf[30..32].copy_from_slice(&9u16.to_le_bytes());
        cf[48..52].copy_from_slice(&first.to_le_bytes());
        let at = 512 * (first as usize + 1) + 128;
        for (k, c) in name.encode_utf16().enumerate() {
            cf[at + 2 * k..at + 2 * k + 2].copy_from_slice(&c.to_le_bytes());
        }
        let len = ((name.encode_utf16().count() + 1) * 2) as u16;
        cf[at + 64..at + 66].copy_from_slice(&len.to_le_bytes());
        cf[at + 66] = kind;
        cf
    }

    #[test]
    fn finds_the_chart_stream_and_nothing_else() {
        assert_eq!(
            lists_chart_stream(&compound(0, "OOXMLChartContents", 2)),
            Some(true)
        );
        assert_eq!(
            lists_chart_stream(&compound(3, "OOXMLChartContents", 2)),
            Some(true)
        );
        assert_ne!(
            lists_chart_stream(&compound(0, "OOXMLChartContents", 1)),
            Some(true)
        );
        assert_ne!(lists_chart_stream(&compound(0, "Contents", 2)), Some(true));
        assert_ne!(
            lists_chart_stream(&compound(0, "OOXMLChartContentsX", 2)),
            Some(true)
        );
        // Truncated or absurd headers are no chart, never a panic.
        let whole = compound(3, "OOXMLChartContents", 2);
        for cut in [0, 31, 52, 1024, 2047] {
            assert_ne!(lists_chart_stream(&whole[..cut]), Some(true));
        }
        let mut absurd = whole.clone();
        absurd[48..52].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_ne!(lists_chart_stream(&absurd), Some(true));
        absurd[30] = 40;
        assert_eq!(lists_chart_stream(&absurd), Some(false));
    }
}
