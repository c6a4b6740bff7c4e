//! Every corpus `.hwp` reads without error (text non-empty where MANIFEST says
//! chars>0), every `bad/*.hwp` gives its error code (`common::expected_codes`), and the
//! repository's fixtures read too. Corpus: env `RHWP_CORPUS`, else
//! `../../../shared/corpus` from this crate, else `/work/shared/corpus`; when
//! missing the test is skipped, unless env `CI` is set (then it fails).
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::{read, text, Options};
use std::path::{Path, PathBuf};

mod common;
use common::{corpus_dir, expected_codes};

/// MANIFEST.tsv rows: path → features (e.g. `chars=624`, `distribution`).
fn manifest(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            Some((
                cols.first()?.to_string(),
                cols.get(7).copied().unwrap_or("").to_string(),
            ))
        })
        .collect()
}

fn chars_of(features: &str) -> Option<u64> {
    features
        .split(',')
        .find_map(|f| f.strip_prefix("chars="))
        .and_then(|n| n.parse().ok())
}

fn check_good(path: &Path, features: &str, failures: &mut Vec<String>) {
    let bytes = std::fs::read(path).expect("read corpus file");
    let distribution =
        features.contains("distribution") || path.to_string_lossy().contains("distribution");
    match read(
        &bytes,
        &Options {
            strict: true,
            ..Options::default()
        },
    ) {
        Ok(doc) => {
            let text = text::document_text(&doc, true);
            if chars_of(features).unwrap_or(0) > 0 && text.trim().is_empty() {
                failures.push(format!("{}: read but no text", path.display()));
            }
            // Distribution documents are read from the decrypted ViewText, never from the
            // "this is a distribution document" notice BodyText shows old viewers.
            if distribution && (!doc.distribution || text.contains("상위 버전의 배포용 문서"))
            {
                failures.push(format!(
                    "{}: distribution document not decrypted",
                    path.display()
                ));
            }
            if !doc.warnings.is_empty() {
                failures.push(format!("{}: warnings {:?}", path.display(), doc.warnings));
            }
        }
        Err(e) => failures.push(format!(
            "{}: {} {}",
            path.display(),
            e.code.as_str(),
            e.message
        )),
    }
}

fn check_bad(path: &Path, failures: &mut Vec<String>) {
    let bytes = std::fs::read(path).expect("read bad file");
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    match read(&bytes, &Options::default()) {
        Ok(_) => failures.push(format!("{name}: read, but it should be refused")),
        Err(e) => {
            if !expected_codes(&name).contains(&e.code) {
                failures.push(format!("{name}: {} ({})", e.code.as_str(), e.message));
            }
            if e.suggestion.is_empty() {
                failures.push(format!("{name}: no suggestion"));
            }
        }
    }
}

#[test]
fn corpus_hwp_documents_read() {
    let Some(dir) = corpus_dir() else { return };
    let rows = manifest(&dir);
    let mut failures = Vec::new();
    let mut n = 0;
    for (rel, features) in rows
        .iter()
        .filter(|(p, _)| p.starts_with("hwp/") && p.ends_with(".hwp"))
    {
        check_good(&dir.join(rel), features, &mut failures);
        n += 1;
    }
    assert!(n > 0, "no hwp/ rows in {}/MANIFEST.tsv", dir.display());
    assert!(
        failures.is_empty(),
        "{} of {n} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_bad_hwp_files_get_the_right_code() {
    let Some(dir) = corpus_dir() else { return };
    let mut failures = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir.join("bad"))
        .expect("bad/ directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "hwp"))
        .collect();
    entries.sort();
    for path in &entries {
        check_bad(path, &mut failures);
    }
    assert!(!entries.is_empty());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn repository_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(root.join("hwp"))
        .expect("tests/fixtures/hwp")
        .flatten()
    {
        check_good(&entry.path(), "", &mut failures);
    }
    for entry in std::fs::read_dir(root.join("bad"))
        .expect("tests/fixtures/bad")
        .flatten()
    {
        if entry.path().extension().is_some_and(|e| e == "hwp") {
            check_bad(&entry.path(), &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// HWP stores a chart as an OLE object; the reader names it `chart` (as HWPX does) by the
/// `OOXMLChartContents` stream of the embedded compound file, gives it the chart's series as
/// text (the same as the HWPX chart part's), and leaves other OLE objects `ole`.
#[test]
fn ole_charts_are_named_chart_and_read() {
    use rhwp_reader::model::{for_each_block_mut, Block};
    fn objects(path: &Path) -> Vec<(String, Option<String>)> {
        let bytes = std::fs::read(path).expect("readable");
        let mut doc = rhwp_reader::read(&bytes, &rhwp_reader::Options::default()).expect("reads");
        let mut found = Vec::new();
        for section in &mut doc.sections {
            for_each_block_mut(&mut section.blocks, &mut |b| {
                if let Block::Unknown(u) = b {
                    found.push((u.object.clone(), u.text.clone()));
                }
            });
        }
        found
    }
    let pairs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/pairs");
    let hwp = objects(&pairs.join("rhwp-chart-clustered-column.hwp"));
    let hwpx = objects(&pairs.join("rhwp-chart-clustered-column.hwpx"));
    assert_eq!(hwp, hwpx);
    let [(object, Some(text))] = hwp.as_slice() else {
        panic!("one chart with its text: {hwp:?}");
    };
    assert_eq!(object, "chart");
    // The chart's series as cached in its OOXML part: names, categories, values.
    assert!(
        text.starts_with("계열 1: 항목 1 4.3, 항목 2 2.5, 항목 3 3.5, 항목 4 4.5\n계열 2:"),
        "{text}"
    );
    if let Some(corpus) = common::corpus_dir() {
        // An embedded OLE object that is not a chart.
        assert_eq!(
            objects(&corpus.join("hwp/hwplib-ole.hwp")),
            [("ole".to_string(), None)]
        );
        // A chart whose directory spans two sectors of the embedded compound file.
        let nikl = objects(&corpus.join("hwp/rhwp-nikl-2022-workplan.hwp"));
        assert!(
            nikl.iter().any(|(o, t)| o == "chart"
                && t.as_deref()
                    .is_some_and(|t| t.starts_with("영역별 평균 점수\n듣기: "))),
            "{nikl:?}"
        );
    }
}
