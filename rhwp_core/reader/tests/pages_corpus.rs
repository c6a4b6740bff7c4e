//! Page counts from the cached layout (issue 26), against the corpus: the counts established
//! for documents whose pages are known, and a floor under every multi-page document's count.
mod common;

use rhwp_reader::{read, Options};

fn pages(rel: &str) -> Option<Option<u32>> {
    let dir = common::corpus_dir()?;
    let path = dir.join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(
        read(&bytes, &Options::default())
            .map(|d| d.pages)
            .unwrap_or(None),
    )
}

/// Page counts two independent readers agree on (one counting the same layout cache, one
/// rendering the pages; Hancom's own PDF where known), with the tolerance they allow.
#[test]
fn established_page_counts() {
    let known: &[(&str, u32, u32)] = &[
        // 15 explicit page breaks (paragraph break flag 0x04) on lines that do not fall back.
        ("hwp/pyhwp-aligns.hwp", 16, 0),
        // Page breaks before pictures at the same vertical position.
        ("hwp/pyhwp-sample-5017-pics.hwp", 11, 0),
        // Cells whose lines restart: a row split across pages.
        ("hwpx/rhwp-mcst-recruit-notice-2026.hwpx", 36, 1),
        // A 1x1 table whose nested cell content runs over 13 pages (Hancom's PDF: 17 pages).
        ("hwp/rhwp-nested-cell-pagination.hwp", 17, 0),
        // The HWP 3.x original and its HWP 5.0 conversion count the same pages.
        ("legacy-hwp3/twins/rhwp-hwp3-sample11.hwp5.hwp", 151, 0),
        ("legacy-hwp3/rhwp-hwp3-sample11.hwp", 151, 0),
        // The renderer counts 64 pages for this conversion too.
        ("hwpx/rhwp-kwater-rfp-2004.hwpx", 64, 0),
    ];
    let mut wrong = Vec::new();
    for &(rel, want, slack) in known {
        let Some(got) = pages(rel) else { return };
        let ok = got.is_some_and(|n| n.abs_diff(want) <= slack);
        if !ok {
            wrong.push(format!("{rel}: {got:?}, want {want}±{slack}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Counts before tables running on to further pages and explicit breaks on laid-out lines
/// were counted: no document may count fewer pages than this.
#[test]
fn no_page_count_below_the_earlier_one() {
    let floors: &[(&str, u32)] = &[
        ("hwp/hwplib-distribution.hwp", 2),
        ("hwp/hwplib-getting_clickhere_text.hwp", 3),
        ("hwp/hwpswift-constitution-commentary-2007.hwp", 1029),
        ("hwp/pyhwp-lists-bullet.hwp", 3),
        ("hwp/pyhwp-lists.hwp", 3),
        ("hwp/pyhwp-multicolumns-layout.hwp", 2),
        ("hwp/pyhwp-pagedefs.hwp", 2),
        ("hwp/pyhwp-paragraph-split-page.hwp", 2),
        ("hwp/pyhwp-sample-5017.hwp", 2),
        ("hwp/pyhwp-shapepict-scaled.hwp", 2),
        ("hwp/pyhwp-table-position.hwp", 4),
        ("hwp/rhwp-hongbo-distribution-2025.hwp", 3),
        ("hwp/rhwp-hwp3-sample13-hwp5.hwp", 3),
        ("hwp/rhwp-nikl-2022-workplan.hwp", 33),
        ("hwp/rhwp-treatise-sample.hwp", 7),
        ("hwpx/hwpxlib-MultiColumn.hwpx", 2),
        ("hwpx/hwpxlib-mot.hwpx", 2),
        ("hwpx/hwpxlib-test-2.hwpx", 39),
        ("hwpx/hwpxlib-test-3.hwpx", 2),
        ("hwpx/hwpxlib-test.hwpx", 2),
        ("hwpx/pyhwpx-A_form.hwpx", 3),
        ("hwpx/pyhwpx-B_submitted.hwpx", 4),
        ("hwpx/pyhwpx-blank_form_1-2hak.hwpx", 15),
        ("hwpx/pyhwpx-blank_form_3hak.hwpx", 10),
        ("hwpx/pyhwpx-error__20251107__test_re.hwpx", 15),
        ("hwpx/pyhwpx-gov_donation_report_form.hwpx", 26),
        ("hwpx/pyhwpx-hancom-native-toc-B.hwpx", 4),
        ("hwpx/pyhwpx-public_official_table.hwpx", 5),
        ("hwpx/rhwp-footnote-01.hwpx", 6),
        ("hwpx/rhwp-mock-exam-2023-09.hwpx", 10),
        ("hwpx/rhwp-oracle-tech-bulletins.hwpx", 763),
        ("legacy-hwp3/rhwp-hwp3-sample.hwp", 16),
        ("legacy-hwp3/rhwp-hwp3-sample4.hwp", 36),
        ("legacy-hwp3/rhwp-hwp3-sample5.hwp", 64),
        ("legacy-hwp3/rhwp-hwp3-sample10.hwp", 763),
        ("legacy-hwp3/twins/rhwp-hwp3-sample.hwp5.hwp", 16),
        ("legacy-hwp3/twins/rhwp-hwp3-sample.hwpx", 16),
        ("legacy-hwp3/twins/rhwp-hwp3-sample10.hwpx", 763),
        ("legacy-hwp3/twins/rhwp-hwp3-sample4.hwp5.hwp", 36),
        ("legacy-hwp3/twins/rhwp-hwp3-sample5.hwp5.hwp", 64),
    ];
    let mut below = Vec::new();
    for &(rel, floor) in floors {
        let Some(got) = pages(rel) else { return };
        if got.is_none_or(|n| n < floor) {
            below.push(format!("{rel}: {got:?} < {floor}"));
        }
    }
    assert!(below.is_empty(), "{}", below.join("\n"));
}
