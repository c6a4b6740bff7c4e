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

pub mod body;
pub mod container;
pub mod controls;
pub mod distribution;
pub mod doc_info;
pub mod record;
pub mod summary_info;

use crate::model::Format;
use crate::{Document, Error, ErrorCode, Options, Result};
use container::{Container, FileHeader};

const SUMMARY_STREAM: &str = "\u{5}HwpSummaryInformation";

pub fn read(bytes: &[u8], options: &Options) -> Result<Document> {
    let limits = &options.limits;
    let mut container = Container::open(bytes, *limits)?;
    if !container.exists("FileHeader") {
        return Err(Error::unsupported(
            "a compound file without an HWP FileHeader stream (another OLE document, e.g. .doc/.xls?)",
            "Pass an HWP 5.0 (.hwp) or HWPX (.hwpx) file.",
        ));
    }
    let header = FileHeader::parse(&container.read_raw("FileHeader")?)?;
    let mut doc = Document::new(Format::Hwp);
    doc.version = header.version_string();
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

    let storage = if header.distribution {
        "ViewText"
    } else {
        "BodyText"
    };
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
    if sections.is_empty() {
        return Err(Error::corrupt(format!(
            "no {storage}/Section streams: the document body is missing"
        )));
    }

    let mut pages = body::PageTracker::default();
    let mut first_error: Option<Error> = None;
    for (number, name) in &sections {
        let path = format!("{storage}/{name}");
        let result = read_section_stream(&mut container, &header, &path)
            .and_then(|data| read_section(&data, &info, options, *number, &mut pages));
        match result {
            Ok((section, mut furniture)) => {
                doc.sections.push(section);
                doc.furniture.append(&mut furniture);
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
    if doc.sections.is_empty() {
        let e = first_error.unwrap_or_else(|| Error::corrupt("no body section could be read"));
        // An unsupported section (e.g. encryption we cannot undo) says so; anything else is damage.
        return Err(if e.code == ErrorCode::UnsupportedFormat {
            e
        } else {
            Error::corrupt(format!("no body section could be read ({})", e.message))
        });
    }

    let mut bin_data = info.bin_data.clone();
    doc_info::attach_sizes(&mut bin_data, &container.stream_names("BinData"));
    doc.bin_data = bin_data;
    doc.styles = info.styles.clone();
    doc.pages = if pages.has_layout {
        Some(pages.page)
    } else {
        None
    };
    Ok(doc)
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
    let records = record::frame(data, options.limits.max_records)?;
    let mut ctx = body::Ctx::new(data, &records, info, &options.limits, number);
    let section = ctx.read_section(pages)?;
    Ok((section, std::mem::take(&mut ctx.furniture)))
}
