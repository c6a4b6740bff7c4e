//! `Contents/content.hpf`: the OPF package document. Its manifest names the
//! parts (sections, header, bin data), its spine gives the section order,
//! and its metadata the title, author, dates.

use crate::limits::Limits;
use crate::model::Metadata;
use crate::owpml::xml::{attr, attrs, walk, Flow, Step};
use crate::Result;

#[derive(Debug, Clone)]
pub struct ManifestItem {
    pub id: String,
    /// Resolved to a package path (relative hrefs are taken relative to `Contents/`).
    pub href: String,
    pub media_type: String,
}

#[derive(Debug, Default)]
pub struct PackageDocument {
    pub metadata: Metadata,
    pub manifest: Vec<ManifestItem>,
    /// `idref`s of the spine, in order.
    pub spine: Vec<String>,
}

/// What an element of the metadata block holds.
#[derive(Clone, Copy)]
enum MetaField {
    Title,
    Author,
    Subject,
    Description,
    Keywords,
    LastSavedBy,
    Created,
    Modified,
}

/// Names as Hancom writes them in `<opf:meta name=...>`, plus the Dublin Core
/// element names other writers use; matched regardless of ASCII case.
const META_FIELDS: [(&str, MetaField); 13] = [
    ("title", MetaField::Title),
    ("creator", MetaField::Author),
    ("author", MetaField::Author),
    ("subject", MetaField::Subject),
    ("description", MetaField::Description),
    ("keyword", MetaField::Keywords),
    ("keywords", MetaField::Keywords),
    ("lastsaveby", MetaField::LastSavedBy),
    ("lastsavedby", MetaField::LastSavedBy),
    ("createddate", MetaField::Created),
    ("created", MetaField::Created),
    ("modifieddate", MetaField::Modified),
    ("modified", MetaField::Modified),
];

fn meta_field(name: &str) -> Option<MetaField> {
    META_FIELDS
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
        .map(|&(_, field)| field)
}

fn set_meta(m: &mut Metadata, field: MetaField, value: String) {
    let value = value.trim().to_string();
    if value.is_empty() {
        return;
    }
    let slot = match field {
        MetaField::Title => &mut m.title,
        MetaField::Author => &mut m.author,
        MetaField::Subject => &mut m.subject,
        MetaField::Description => &mut m.comments,
        MetaField::Keywords => &mut m.keywords,
        MetaField::LastSavedBy => &mut m.last_saved_by,
        MetaField::Created => &mut m.created,
        MetaField::Modified => &mut m.modified,
    };
    if slot.is_none() {
        *slot = Some(value);
    }
}

/// A manifest href as a package path: hrefs are relative to the package
/// document's folder (`Contents/`) in the OPF model, but Hancom writes them
/// from the package root (`Contents/section0.xml`); both are accepted by the
/// caller trying this path and then the `Contents/`-relative one.
fn clean_href(href: &str) -> String {
    let h = href.trim().trim_start_matches("./").trim_start_matches('/');
    h.to_string()
}

pub fn parse(text: &[u8], limits: &Limits) -> Result<PackageDocument> {
    let mut doc = PackageDocument::default();
    let mut in_metadata = false;
    let mut metadata_depth = 0;
    // The metadata field whose text we are collecting, and the element depth it opened at.
    let mut collecting: Option<(MetaField, u32)> = None;
    let mut value = String::new();
    walk(
        text,
        "Contents/content.hpf",
        limits.max_xml_depth,
        limits.max_records,
        |step, depth| {
            match step {
                Step::Open { name, start, .. } => match name {
                    "metadata" => {
                        in_metadata = true;
                        metadata_depth = depth;
                    }
                    "meta" if in_metadata => {
                        if let Some(f) = attr(start, "name").and_then(|n| meta_field(&n)) {
                            collecting = Some((f, depth));
                            value.clear();
                        }
                    }
                    "item" => {
                        let [id, href, media_type] = attrs(start, ["id", "href", "media-type"]);
                        let id = id.unwrap_or_default().into_owned();
                        let href = clean_href(&href.unwrap_or_default());
                        let media_type = media_type.unwrap_or_default().into_owned();
                        if !href.is_empty() {
                            doc.manifest.push(ManifestItem {
                                id,
                                href,
                                media_type,
                            });
                        }
                    }
                    "itemref" => {
                        if let Some(idref) = attr(start, "idref") {
                            doc.spine.push(idref.into_owned());
                        }
                    }
                    other if in_metadata && depth == metadata_depth + 1 => {
                        if let Some(f) = meta_field(other) {
                            collecting = Some((f, depth));
                            value.clear();
                        }
                    }
                    _ => {}
                },
                Step::Text(t) => {
                    if collecting.is_some() {
                        value.push_str(t);
                    }
                }
                Step::Close => {
                    if let Some((field, d)) = collecting {
                        if d == depth {
                            set_meta(&mut doc.metadata, field, std::mem::take(&mut value));
                            collecting = None;
                        }
                    }
                    if in_metadata && depth == metadata_depth {
                        in_metadata = false;
                    }
                }
                // Nothing here is skipped with a listing.
                Step::Children(_) => {}
            }
            Ok(Flow::Continue)
        },
    )?;
    Ok(doc)
}

/// Is a part name a body section (`Contents/section0.xml`, `section12.xml`)?
pub fn section_number(path: &str) -> Option<u32> {
    // Writers on Windows may separate with backslashes (`Contents\\section0.xml`).
    let file = path.rsplit(['/', '\\']).next()?;
    let lower = file.to_ascii_lowercase();
    let digits = lower.strip_prefix("section")?.strip_suffix(".xml")?;
    if digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

impl PackageDocument {
    pub fn item(&self, id: &str) -> Option<&ManifestItem> {
        self.manifest.iter().find(|i| i.id == id)
    }

    /// Section parts in reading order: those the spine lists, else those the
    /// manifest lists (in number order).
    pub fn section_hrefs(&self) -> Vec<String> {
        let from_spine: Vec<String> = self
            .spine
            .iter()
            .filter_map(|id| self.item(id))
            .filter(|i| section_number(&i.href).is_some())
            .map(|i| i.href.clone())
            .collect();
        if !from_spine.is_empty() {
            return from_spine;
        }
        let mut from_manifest: Vec<&ManifestItem> = self
            .manifest
            .iter()
            .filter(|i| section_number(&i.href).is_some())
            .collect();
        from_manifest.sort_by_key(|i| section_number(&i.href));
        from_manifest.into_iter().map(|i| i.href.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_metadata_manifest_and_spine() {
        let hpf = r#"<?xml version="1.0"?><opf:package xmlns:opf="http://www.idpf.org/2007/opf/">
            <opf:metadata><opf:title>제목 &amp; 부제</opf:title><opf:meta name="creator" content="text">홍길동</opf:meta>
            <opf:meta name="CreatedDate" content="text">2023-02-13T04:44:51Z</opf:meta><opf:meta name="keyword"/></opf:metadata>
            <opf:manifest><opf:item id="header" href="Contents/header.xml" media-type="application/xml"/>
            <opf:item id="section1" href="Contents/section1.xml"/><opf:item id="section0" href="Contents/section0.xml"/>
            <opf:item id="image1" href="BinData/image1.png" media-type="image/png"/></opf:manifest>
            <opf:spine><opf:itemref idref="header"/><opf:itemref idref="section1"/><opf:itemref idref="section0"/></opf:spine>
            </opf:package>"#;
        let doc = parse(hpf.as_bytes(), &Limits::default()).unwrap();
        assert_eq!(doc.metadata.title.as_deref(), Some("제목 & 부제"));
        assert_eq!(doc.metadata.author.as_deref(), Some("홍길동"));
        assert_eq!(
            doc.metadata.created.as_deref(),
            Some("2023-02-13T04:44:51Z")
        );
        assert_eq!(doc.metadata.keywords, None);
        assert_eq!(
            doc.section_hrefs(),
            vec!["Contents/section1.xml", "Contents/section0.xml"]
        );
    }

    #[test]
    fn section_numbers() {
        assert_eq!(section_number("Contents/section12.xml"), Some(12));
        assert_eq!(section_number("section0.xml"), Some(0));
        assert_eq!(section_number("Contents\\Section3.XML"), Some(3));
        assert_eq!(section_number("Contents/header.xml"), None);
        assert_eq!(section_number("Contents/section.xml"), None);
    }
}
