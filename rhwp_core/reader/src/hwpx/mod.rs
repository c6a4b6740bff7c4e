//! HWPX (OWPML, KS X 6101): zip package → XML parts → model.
//!
//! - `package`: the zip, bounded by `Options::limits`; is it HWPX at all;
//! - `content`: `Contents/content.hpf` (manifest, spine = section order, metadata);
//! - `Contents/header.xml` and each `Contents/sectionN.xml`, read by the OWPML reader HWPX shares
//!   with HWPML (`crate::owpml`: `header`, `section`, and the XML walk `xml`).
//!
//! Only the parts the model needs are inflated, each once: bin data
//! (pictures) is described from the zip directory without being read.
//!
//! Decisions the HWP 5.0 reader should mirror (same model for the same document):
//! - block order: per paragraph, a Paragraph block when its text is non-empty, then the
//!   blocks of its objects in document order; headers/footers/notes go to `furniture`;
//! - inline characters: tab `\t`, line break `\n`, hyphen `-`, non-breaking space U+00A0,
//!   fixed-width space ` `; deleted/inserted text of change tracking is kept as written;
//! - objects are anchored at the character offset where they sit (`char_start == char_end`);
//!   nested blocks carry the index of their section-level paragraph;
//! - pages: a page starts at each section, at an explicit page break, and where the
//!   vertical position of a section-level line segment falls back (once per column of the
//!   section), and a table adds the pages its cells run on to (a cell's line segments fall
//!   back to the same or an earlier `horzpos`: a row split by a page break; counted once per
//!   break across a row's cells, nested tables included); `Document.pages` is `None` when no
//!   line segment exists. A block's page is where its section-level paragraph starts;
//! - headings: paraPr heading OUTLINE level n (0-based) → `heading_level` n+1 (capped at 6);
//!   NUMBER/BULLET → `list` with the marker rendered from numbering/bullet definitions;
//! - bin data: `id` = the number in the manifest id (`image3` → 3), `size` = stored size;
//! - notes: `number` from the note element (or its autoNum, or the running count).

pub mod bin_data;
pub mod content;
pub mod encryption;
pub mod fill;
#[cfg(any(test, feature = "fuzzing"))]
mod fuzz;
pub mod layout;
pub mod package;

use crate::deferred::Deferred;
use crate::model::{BinData, Document, Format};
use crate::owpml::section::{self, BinRef, DocState, SectionInput};
use crate::owpml::{header, xml};
use crate::{Error, ErrorCode, Options, Result};
use content::{section_number, PackageDocument};
use package::{Package, CONTENT_HPF};
use std::collections::HashMap;

pub fn read(bytes: &[u8], options: &Options) -> Result<Document> {
    let mut pkg = Package::open_with(bytes, options)?;
    package::check_is_hwpx(&mut pkg)?;
    // Without a password, the parts of a password-protected package are ciphertext, so
    // reading it fails somewhere; only then is the manifest consulted, to say why (a plain
    // package never pays for it). With one, the package was unlocked and its errors are its
    // own (a wrong password among them).
    match read_package(&mut pkg, options) {
        Ok(doc) => Ok(doc),
        Err(e) if pkg.is_unlocked() => Err(e),
        Err(e) => {
            refuse_encrypted(&mut pkg)?;
            Err(e)
        }
    }
}

fn read_package(pkg: &mut Package<'_>, options: &Options) -> Result<Document> {
    let limits = &options.limits;
    let strict = options.strict;
    let mut doc = Document::new(Format::Hwpx);
    doc.compressed = true;

    // The package document: section order, bin data, metadata.
    let hpf = match pkg.read(CONTENT_HPF)? {
        Some(bytes) => match xml::with_repair(&bytes, strict, |b| content::parse(b, limits)) {
            Ok(d) => Some(d),
            Err(e) if strict || e.code == ErrorCode::TooLarge => return Err(e),
            Err(e) => {
                doc.warnings.push(format!(
                    "{CONTENT_HPF} could not be read ({e}); sections taken in name order"
                ));
                None
            }
        },
        None => {
            doc.warnings.push(format!(
                "{CONTENT_HPF} is missing; sections taken in name order"
            ));
            None
        }
    };
    let names = pkg.names();
    let section_parts = match &hpf {
        Some(d) => resolve_sections(d, pkg, &names),
        None => Vec::new(),
    };
    let section_parts = if section_parts.is_empty() {
        if hpf.is_some() {
            doc.warnings.push(format!(
                "{CONTENT_HPF} lists no section; sections taken in name order"
            ));
        }
        sections_by_name(&names)
    } else {
        section_parts
    };
    if section_parts.is_empty() {
        return Err(Error::corrupt(
            "the HWPX package holds no body section (Contents/section0.xml...)",
        ));
    }

    let mut hpf = hpf;
    if let Some(d) = hpf.as_mut() {
        doc.metadata = std::mem::take(&mut d.metadata);
    }
    doc.version = package_version(pkg);
    let bins = bin_items(hpf.as_ref(), pkg, &names, &mut doc.bin_data);
    let charts = chart_parts(pkg, &names)?;

    let header = match pkg.read("Contents/header.xml")? {
        Some(bytes) => match header::read(bytes, strict, limits) {
            Ok(h) => h,
            Err(e) if strict || e.code == ErrorCode::TooLarge => return Err(e),
            Err(e) => {
                doc.warnings.push(format!(
                    "Contents/header.xml could not be read ({e}); formatting ignored"
                ));
                header::Header::default()
            }
        },
        None => header::Header::default(),
    };

    let mut state = DocState::default();
    // Memos go after all other furniture (headers, footers, notes), in document order.
    let mut memos = Vec::new();
    let mut read_any = false;
    let mut last_error: Option<Error> = None;
    for (path, present) in &section_parts {
        let index = doc.sections.len() as u32;
        let result = if *present {
            pkg.read(path).and_then(|bytes| {
                let bytes =
                    bytes.ok_or_else(|| Error::corrupt(format!("{path} is listed but absent")))?;
                let input = SectionInput {
                    charts: &charts,
                    index,
                    part: path,
                    header: &header,
                    bins: &bins,
                    limits,
                };
                // A failed attempt must not leave its page and list counts behind.
                let before = state.clone();
                xml::with_repair(&bytes, strict, |b| {
                    state = before.clone();
                    section::parse(b, &input, &mut state)
                })
            })
        } else {
            Err(Error::corrupt(format!(
                "the package lists section {path} but does not hold it"
            )))
        };
        match result {
            Ok(out) => {
                doc.sections.push(out.section);
                doc.furniture.extend(out.furniture);
                memos.extend(out.memos);
                read_any = true;
            }
            // Hostile input is refused whatever the mode, and so is a wrong password (every
            // section would fail alike); strict refuses everything.
            Err(e)
                if strict
                    || e.code == ErrorCode::TooLarge
                    || e.code == ErrorCode::PasswordRequired =>
            {
                return Err(e)
            }
            Err(e) => {
                doc.warnings.push(format!("section {path} skipped: {e}"));
                last_error = Some(e);
            }
        }
    }
    if !read_any {
        let why = last_error.map(|e| e.message).unwrap_or_default();
        return Err(Error::corrupt(format!(
            "no body section of the package could be read ({why})"
        )));
    }
    doc.furniture.append(&mut memos);
    doc.pages = state.has_layout.then_some(state.page.max(1));
    if let Some(last) = doc.pages.filter(|&last| state.furthest_row_page > last) {
        for section in &mut doc.sections {
            crate::owpml::section::clamp_pages(&mut section.blocks, last);
        }
    }
    // The sections looked styles up by id; the list itself is the model's.
    doc.styles = header.style_list();
    Ok(doc)
}

/// The spine's sections as package paths, each with whether the zip holds it.
/// Hancom writes hrefs from the package root (`Contents/section0.xml`); the
/// OPF model makes them relative to `content.hpf`'s folder (`section0.xml`).
pub(super) fn resolve_sections(
    d: &PackageDocument,
    pkg: &Package<'_>,
    _names: &[String],
) -> Vec<(String, bool)> {
    d.section_hrefs()
        .into_iter()
        .map(|href| {
            if pkg.has(&href) {
                (href, true)
            } else {
                let relative = format!("Contents/{href}");
                if pkg.has(&relative) {
                    (relative, true)
                } else {
                    (href, false)
                }
            }
        })
        .collect()
}

/// `Contents/section*.xml` in number order (when content.hpf cannot say).
pub(super) fn sections_by_name(names: &[String]) -> Vec<(String, bool)> {
    let mut found: Vec<(u32, &String)> = names
        .iter()
        .filter(|n| {
            n.get(..9)
                .is_some_and(|p| p.eq_ignore_ascii_case("Contents/"))
        })
        .filter_map(|n| section_number(n).map(|k| (k, n)))
        .collect();
    found.sort();
    found.into_iter().map(|(_, n)| (n.clone(), true)).collect()
}

/// Bin data items (pictures, OLE objects) from the manifest, or from the
/// `BinData/` folder when there is no manifest; sizes come from the zip
/// directory (stored size), the contents are never inflated.
fn bin_items(
    hpf: Option<&PackageDocument>,
    pkg: &Package<'_>,
    names: &[String],
    out: &mut Vec<BinData>,
) -> HashMap<String, BinRef> {
    let mut items: Vec<(String, String)> = match hpf {
        Some(d) => d
            .manifest
            .iter()
            .filter(|i| {
                i.href.starts_with("BinData/")
                    || i.media_type.starts_with("image/")
                    || i.href.contains("/BinData/")
            })
            .map(|i| (i.id.clone(), i.href.clone()))
            .collect(),
        None => Vec::new(),
    };
    if items.is_empty() {
        items = names
            .iter()
            .filter(|n| n.starts_with("BinData/") && !n.ends_with('/'))
            .map(|n| {
                let stem = n.rsplit('/').next().unwrap_or(n);
                let id = stem.rsplit_once('.').map(|(s, _)| s).unwrap_or(stem);
                (id.to_string(), n.clone())
            })
            .collect();
    }
    let mut map = HashMap::new();
    let mut used: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for (k, (id, href)) in items.into_iter().enumerate() {
        // `image3` → 3; an id without a number takes its position.
        let digits: String = id
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let mut num = digits.parse::<u32>().ok().unwrap_or(k as u32 + 1);
        if !used.insert(num) {
            num = k as u32 + 1;
            while !used.insert(num) {
                num += 1;
            }
        }
        let path = if pkg.has(&href) {
            href.clone()
        } else {
            format!("Contents/{href}")
        };
        let size = pkg.stored_size(&path);
        let extension = href
            .rsplit('/')
            .next()
            .and_then(|f| f.rsplit_once('.'))
            .map(|(_, e)| e.to_ascii_lowercase())
            .filter(|e| !e.is_empty());
        out.push(BinData {
            id: num,
            storage: "embedding".into(),
            name: href.clone(),
            extension,
            size,
        });
        map.insert(
            id,
            BinRef {
                id: num,
                name: href,
            },
        );
    }
    map
}

/// The text of each chart part (`Chart/chartN.xml`, OOXML) by its package name. Only packages
/// with charts hold such parts; an unreadable one gives no text (the chart block stays bare).
fn chart_parts(pkg: &mut Package<'_>, names: &[String]) -> Result<HashMap<String, String>> {
    let mut charts = HashMap::new();
    for name in names
        .iter()
        .filter(|n| n.starts_with("Chart/") && n.ends_with(".xml"))
    {
        // Hostile sizes are refused like any other part's; damage is only a missing text.
        let bytes = match pkg.read(name) {
            Ok(Some(bytes)) => bytes,
            Err(e) if e.code == ErrorCode::TooLarge => return Err(e),
            _ => continue,
        };
        if let Some(text) = crate::chart::chart_text(&bytes) {
            charts.insert(name.clone(), text);
        }
    }
    Ok(charts)
}

/// The package's version (`version.xml`), read when first asked for (`Deferred`): its
/// stored bytes are kept, a few hundred as written.
fn package_version(pkg: &mut Package<'_>) -> Deferred<String> {
    /// Bounds for keeping and inflating the part: far above any real `version.xml`; past them
    /// the version is unknown ("") as for a damaged part.
    const MAX_STORED: usize = 16 << 10;
    const MAX_INFLATED: u64 = 256 << 10;
    match pkg.detach("version.xml", MAX_STORED) {
        Some(part) => Deferred::when_asked(move || {
            part.read(MAX_INFLATED)
                .and_then(|bytes| version_of(&bytes))
                .unwrap_or_default()
        }),
        None => Deferred::default(),
    }
}

/// `major.minor.micro.buildNumber` of `version.xml`'s `HCFVersion`.
fn version_of(bytes: &[u8]) -> Option<String> {
    let mut version = None;
    let _ = xml::walk(bytes, "version.xml", 64, 10_000, |step, _| {
        if let xml::Step::Open { name, start, .. } = step {
            if name == "HCFVersion" {
                let part = |k: &str| {
                    xml::attr(start, k)
                        .map(|v| v.into_owned())
                        .unwrap_or_else(|| "0".into())
                };
                version = Some(format!(
                    "{}.{}.{}.{}",
                    part("major"),
                    part("minor"),
                    part("micro"),
                    part("buildNumber")
                ));
            }
        }
        Ok(xml::Flow::Continue)
    });
    version
}

/// Password-protected HWPX packages declare encryption data for their parts
/// in `META-INF/manifest.xml`; the parts themselves are ciphertext.
fn refuse_encrypted(pkg: &mut Package<'_>) -> Result<()> {
    let Some(bytes) = pkg.read("META-INF/manifest.xml")? else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(&bytes);
    if text.contains("encryption-data") {
        return Err(Error::password_required(
            "the HWPX document is password-protected (its parts are encrypted)",
        ));
    }
    Ok(())
}

/// HWPX's entry in the table of formats (`crate::formats`).
pub static FORMAT: crate::common::format::Format = crate::common::format::Format {
    name: "hwpx",
    model: Format::Hwpx,
    sniffed: crate::common::format::Sniffed::Zip,
    sniff: |bytes| bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06"),
    read,
    bin_data: bin_data::item,
    writer: crate::common::format::Writer::Fills(fill::fill),
    layout: Some(layout::layout),
    #[cfg(any(test, feature = "fuzzing"))]
    fuzz_layers: fuzz::LAYERS,
};
