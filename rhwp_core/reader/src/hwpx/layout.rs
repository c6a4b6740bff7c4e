//! HWPX pages as 한글 last laid them out (`crate::layout`): the package's header and sections
//! read again by `owpml::layout` (a second pass; `read` never builds a layout), pictures named
//! by their part in the package (what `bin_data` reads).

use super::content;
use super::package::{self, Package, CONTENT_HPF};
use crate::layout::build::Pages;
use crate::layout::flow::Flow;
use crate::layout::{Item, Layout};
use crate::owpml::layout::{header_styles, section};
use crate::{Error, Options, Result};

/// The pages of the HWPX document in `bytes`; with `want`, only that page's items are kept.
pub fn layout(bytes: &[u8], options: &Options, want: Option<u32>) -> Result<Layout> {
    let limits = &options.limits;
    let mut pkg = Package::open_with(bytes, options)?;
    package::check_is_hwpx(&mut pkg)?;
    let names = pkg.names();
    let hpf = match pkg.read(CONTENT_HPF)? {
        Some(b) => content::parse(&b, limits).ok(),
        None => None,
    };
    let mut parts = match &hpf {
        Some(d) => super::resolve_sections(d, &pkg, &names),
        None => Vec::new(),
    };
    if parts.is_empty() {
        parts = super::sections_by_name(&names);
    }
    if parts.is_empty() {
        return Err(Error::corrupt("the HWPX package holds no body section"));
    }
    let styles = match pkg.read("Contents/header.xml")? {
        Some(b) => header_styles(&b),
        None => Default::default(),
    };
    let mut pages = Pages::new(want);
    let mut flow = Flow::new(&mut pages, &styles.shapes, limits.max_depth);
    let mut any_segment = false;
    for (part, present) in parts {
        if !present {
            continue;
        }
        let Some(xml) = pkg.read(&part)? else {
            continue;
        };
        any_segment |= memchr_lineseg(&xml);
        flow.start_section();
        section(&xml, &styles, &mut flow, limits.max_depth)?;
        flow.finish_section(want)?;
    }
    let count = flow.page_count();
    pages.open(count.max(1))?;
    // Pictures are named by their manifest id; `bin_data` reads them by their part name.
    if let Some(d) = &hpf {
        for page in &mut pages.layout.pages {
            for item in &mut page.items {
                if let Item::Picture(p) = item {
                    if let Some(m) = d.manifest.iter().find(|m| m.id == p.bin) {
                        p.bin = m.href.clone();
                    }
                }
            }
        }
    }
    pages.layout.faces = styles.faces;
    pages.layout.estimated = !any_segment;
    Ok(pages.layout)
}

/// Whether a section part holds any stored line layout.
fn memchr_lineseg(xml: &[u8]) -> bool {
    xml.windows(8).any(|w| w == b"lineseg ")
}
