//! HWP 3.x (한글 3.0–97, "HWP Document File V3.00") → the same model as HWP 5.0.
//!
//! Layout (Hancom, "한글 문서 파일 구조 3.0", §3): a 30-byte signature, 128 bytes of document
//! information (paper, password and compression flags, the length of the information block),
//! a 1,008-byte summary (nine strings of 56 `hchar`), the information block, then — raw deflate
//! (no zlib header) when compressed — font names, styles, the paragraph list and the extra
//! information blocks (embedded pictures, OLE storage, ...), and finally an uncompressed second
//! extra block (preview). `charset` maps the 한글 3.x character code to Unicode; `body` reads
//! paragraph lists.
//!
//! 본 제품은 한글과컴퓨터의 한글 문서 파일(.hwp) 공개 문서를 참고하여 개발하였습니다.

pub mod bin_data;
pub mod body;
pub mod charset;
pub mod encryption;
#[cfg(any(test, feature = "fuzzing"))]
mod fuzz;

use crate::deferred::Deferred;
use crate::model::{BinData, Block, Format, Metadata, PageDefinition, Section, Style};
use crate::{Document, Error, ErrorCode, Options, Result};
use body::{le16, Cur, State};

pub const SIGNATURE: &[u8] = b"HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05";
const SIGNATURE_LEN: usize = 30;
const DOC_INFO_LEN: usize = 128;
const SUMMARY_LEN: usize = 1008;
const HEAD_LEN: usize = SIGNATURE_LEN + DOC_INFO_LEN + SUMMARY_LEN;

pub fn read(bytes: &[u8], options: &Options) -> Result<Document> {
    read_impl(bytes, options, None).map(|(doc, _)| doc)
}

/// The embedded picture named `name` (as `BinData::name` lists it): the document and its bytes.
pub fn bin_item(
    bytes: &[u8],
    name: &str,
    options: &Options,
) -> Result<(Document, Option<Vec<u8>>)> {
    read_impl(bytes, options, Some(name))
}

fn read_impl(
    bytes: &[u8],
    options: &Options,
    want: Option<&str>,
) -> Result<(Document, Option<Vec<u8>>)> {
    let limits = &options.limits;
    if !bytes.starts_with(b"HWP Document File V3") {
        // "HWP Document File V2.x" / "V1.x": the formats before 한글 3.0.
        return Err(Error::unsupported(
            "this is an HWP document older than 한글 3.0 (HWP 1.x/2.x), which rhwp_core does not read",
            "Open it in Hancom Office (or 한글 97) and save it as HWP 5.0 (.hwp) or HWPX (.hwpx), then try again.",
        ));
    }
    if bytes.len() < HEAD_LEN {
        return Err(Error::corrupt(format!(
            "an HWP 3.x header with no body ({} bytes; the fixed header alone is {HEAD_LEN})",
            bytes.len()
        )));
    }
    let info = &bytes[SIGNATURE_LEN..SIGNATURE_LEN + DOC_INFO_LEN];
    let encrypted = le16(info, 96) != 0;
    if encrypted && options.password.is_none() {
        return Err(Error::password_required(
            "this HWP 3.x document is password-protected (encrypted)",
        ));
    }
    let compressed = info[124] != 0;
    let rev = info[125];
    let info_block_len = le16(info, 126) as usize;

    let mut doc = Document::new(Format::Hwp3);
    doc.version = Deferred::known(format!("3.0.0.{rev}"));
    doc.compressed = compressed;
    doc.metadata = summary(&bytes[SIGNATURE_LEN + DOC_INFO_LEN..HEAD_LEN]);

    let body_start = HEAD_LEN.saturating_add(info_block_len);
    let Some(stored) = bytes.get(body_start..).filter(|b| !b.is_empty()) else {
        return Err(Error::corrupt("an HWP 3.x header with no body"));
    };
    let max = limits.max_stream_bytes.min(
        limits
            .ratio_floor_bytes
            .max((stored.len() as u64).saturating_mul(limits.max_compression_ratio)),
    );
    let inflated;
    let body: &[u8] = if let (true, Some(password)) = (encrypted, &options.password) {
        // An encrypted body is always compressed: decryption inflates it (`encryption`).
        inflated = encryption::decrypt_body(stored, password, max)?;
        &inflated
    } else if compressed {
        inflated = match crate::common::inflate::inflate(stored, max) {
            Ok(v) => v,
            Err(e) if e.code == ErrorCode::CorruptDocument && !options.strict => {
                let part = crate::common::inflate::inflate_prefix(stored, max as usize);
                doc.warnings.push(format!(
                    "the compressed body is damaged; read what precedes the damage ({})",
                    e.message
                ));
                part
            }
            Err(e) => return Err(e.context("HWP 3.x body")),
        };
        &inflated
    } else {
        stored
    };

    // Font names: seven language groups, each a count and 40-byte names.
    let mut cur = Cur::new(body);
    for _ in 0..7 {
        let n = cur.u16().map_err(|e| e.context("font names"))? as usize;
        cur.skip(n * 40).map_err(|e| e.context("font names"))?;
    }
    let n_styles = cur.u16().map_err(|e| e.context("styles"))? as usize;
    let style_bytes = cur.take(n_styles * 238).map_err(|e| e.context("styles"))?;
    let style_names: Vec<String> = style_bytes
        .chunks_exact(238)
        .map(|s| charset::decode_kchars(&s[..20]))
        .collect();
    doc.styles = Deferred::known(
        style_names
            .iter()
            .enumerate()
            .map(|(i, name)| Style {
                id: i as u32,
                name: name.clone(),
                english_name: None,
                kind: "paragraph".into(),
            })
            .collect(),
    );

    let mut state = State::new(body, limits, &style_names);
    state.cur = cur;
    let (mut blocks, count, body_ok) = match state.body() {
        Ok((blocks, count)) => (blocks, count, true),
        Err(e) if options.strict || e.code == ErrorCode::TooLarge => {
            return Err(e.context("HWP 3.x paragraphs"))
        }
        Err(e) => {
            state.warnings.push(format!(
                "the paragraph list is damaged; the rest is skipped: {}",
                e.message
            ));
            (Vec::new(), 0, false)
        }
    };
    if count == 0 {
        return Err(Error::corrupt(
            "an HWP 3.x header with no body (no paragraph could be read)",
        ));
    }
    let mut found = None;
    if body_ok {
        doc.bin_data = extra_blocks(&mut state.cur, want, &mut found);
        link_pictures(&mut blocks, &doc.bin_data);
    }

    let page = PageDefinition {
        width: u32::from(le16(info, 8)) * 4,
        height: u32::from(le16(info, 6)) * 4,
        landscape: info[5] == 1,
        margin_left: u32::from(le16(info, 14)) * 4,
        margin_right: u32::from(le16(info, 16)) * 4,
        margin_top: u32::from(le16(info, 10)) * 4,
        margin_bottom: u32::from(le16(info, 12)) * 4,
    };
    doc.pages = state.has_layout.then_some(state.page.max(1));
    if !state.has_layout {
        // No line carries valid break information: pages are unknown, not all "1".
        crate::model::for_each_block_mut(&mut blocks, &mut clear_page);
        for f in &mut state.furniture {
            f.provenance.page = None;
            crate::model::for_each_block_mut(&mut f.blocks, &mut clear_page);
        }
    }
    doc.warnings.append(&mut state.warnings);
    doc.furniture = std::mem::take(&mut state.furniture);
    let mut furniture = std::mem::take(&mut doc.furniture);
    for f in &mut furniture {
        link_pictures(&mut f.blocks, &doc.bin_data);
    }
    doc.furniture = furniture;
    doc.sections.push(Section {
        index: 0,
        page: Some(page),
        columns: 1,
        paragraph_count: count,
        blocks,
    });
    Ok((doc, found))
}

/// A file around `body`: the signature, a document-information block (compressed flag as given,
/// no password, no information block) and an empty summary. For tests and the fuzz target.
pub fn with_body(body: &[u8], compressed: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEAD_LEN + body.len());
    out.extend_from_slice(SIGNATURE);
    let mut info = [0u8; DOC_INFO_LEN];
    info[124] = u8::from(compressed);
    info[125] = 1;
    out.extend_from_slice(&info);
    out.extend_from_slice(&[0u8; SUMMARY_LEN]);
    out.extend_from_slice(body);
    out
}

/// The summary: title, subject, author, date, two keyword lines, three comment lines.
fn summary(raw: &[u8]) -> Metadata {
    let field = |i: usize| {
        let s = charset::decode_hchars(&raw[i * 112..(i + 1) * 112]);
        let s = s.trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    let join = |range: std::ops::Range<usize>| {
        let parts: Vec<String> = range.filter_map(field).collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    };
    let date = field(3);
    Metadata {
        title: field(0),
        subject: field(1),
        author: field(2),
        keywords: join(4..6),
        comments: join(6..9),
        last_saved_by: None,
        created: date
            .as_deref()
            .and_then(crate::common::dates::korean_date)
            .or(date),
        modified: None,
    }
}

/// Extra information blocks after the paragraph list (spec §3.8, §8): id, length, content,
/// ended by eight zero bytes. Embedded pictures (id 1) become bin data.
fn extra_blocks(cur: &mut Cur, want: Option<&str>, found: &mut Option<Vec<u8>>) -> Vec<BinData> {
    let mut out = Vec::new();
    while cur.remaining() >= 8 {
        let (Ok(id), Ok(len)) = (cur.u32(), cur.u32()) else {
            break;
        };
        if id == 0 && len == 0 {
            break;
        }
        let Ok(data) = cur.take(len as usize) else {
            break;
        };
        if id == 1 && data.len() >= 32 {
            let name = charset::decode_kchars(&data[..16]);
            let format = charset::decode_kchars(&data[16..32]);
            let extension = Some(format.trim().to_ascii_lowercase())
                .filter(|f| !f.is_empty())
                .or_else(|| name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()));
            if want.is_some_and(|w| w.eq_ignore_ascii_case(&name)) && found.is_none() {
                *found = Some(data[32..].to_vec());
            }
            out.push(BinData {
                id: out.len() as u32 + 1,
                storage: "embedding".into(),
                name,
                extension,
                size: Some((data.len() - 32) as u64),
            });
        }
    }
    out
}

fn clear_page(b: &mut Block) {
    let p = match b {
        Block::Paragraph(x) => &mut x.provenance,
        Block::Table(x) => &mut x.provenance,
        Block::Picture(x) => &mut x.provenance,
        Block::Equation(x) => &mut x.provenance,
        Block::Shape(x) => &mut x.provenance,
        Block::FormControl(x) => &mut x.provenance,
        Block::Unknown(x) => &mut x.provenance,
    };
    p.page = None;
}

/// Tie pictures to the embedded images they name.
fn link_pictures(blocks: &mut [Block], bin: &[BinData]) {
    if bin.is_empty() {
        return;
    }
    crate::model::for_each_block_mut(blocks, &mut |b| {
        if let Block::Picture(p) = b {
            if let Some(name) = &p.bin_data_name {
                if let Some(d) = bin.iter().find(|d| d.name.eq_ignore_ascii_case(name)) {
                    p.bin_data_id = Some(d.id);
                }
            }
        }
    });
}

/// HWP 3.x's entry in the table of formats (`crate::formats`).
pub static FORMAT: crate::common::format::Format = crate::common::format::Format {
    name: "hwp3",
    model: Format::Hwp3,
    sniffed: crate::common::format::Sniffed::Hwp3,
    sniff: |bytes| bytes.starts_with(b"HWP Document File"),
    read,
    bin_data: bin_data_item,
    writer: crate::common::format::Writer::Refuses(
        "HWP 3.x (한글 97 and older) is read, never written",
    ),
    layout: None,
    #[cfg(any(test, feature = "fuzzing"))]
    fuzz_layers: fuzz::LAYERS,
};

/// An item of bin data; "HWP Document File V1/V2" sniffs as 3.x but is refused by the reader,
/// which says why.
fn bin_data_item(
    bytes: &[u8],
    name: &str,
    options: &Options,
) -> Result<crate::common::bin_data::Lookup> {
    if !bytes.starts_with(SIGNATURE) {
        return read(bytes, options)
            .map(|_| crate::common::bin_data::Lookup::Unknown { stored: Vec::new() });
    }
    bin_data::item(bytes, name, options)
}

#[cfg(test)]
mod tests;
