//! The thin PyO3 layer: `rhwp_core._native`.
//!
//! Everything HWP lives in `rhwp-reader`; this file only moves bytes in and
//! strings out. Reading releases the GIL, the model is immutable and shared
//! behind an `Arc`, and it crosses into Python once when the IR is asked for:
//! as the `rhwp_core.ir` objects themselves (`ir_objects`), or as JSON.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyMemoryError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use rhwp_reader::{model::Document, ErrorCode, Options};
use std::sync::Arc;

mod fill;
mod ir_objects;

/// The reader builds its model from many small allocations (paragraph texts, runs, cells,
/// attribute values). mimalloc serves them faster than glibc's malloc: parse + text 5.7% faster
/// by geometric mean over the HWPX corpus and 13.7% over the HWP corpus, up to 13% on
/// table-heavy documents (benches/README.md, "Where the rest goes (HWPX)"). The price is peak
/// memory: about 6x the inflated size for large documents instead of 2x (docs/decisions.md,
/// "Memory against speed");
/// deleting these two lines reverts it. Only this extension's Rust allocations use it; Python's
/// own stay with Python's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    _native,
    ReaderError,
    PyException,
    "A reader error: args are (code, message, suggestion)."
);

/// Text on its way to a Python `str`, in the form CPython turns into one fastest. PyO3 hands
/// strings over as UTF-8, and CPython's UTF-8 decoder is slow on mostly non-ASCII text once a
/// character beyond the Basic Multilingual Plane forces its widest form: HWP's symbol fonts map
/// to Plane 15 (U+F0000 up), and a long Korean government document holding a few such symbols
/// took 7.7 ms to become a `str` (1.45M characters) where its UTF-32 form takes 0.8 ms. Such text
/// is handed over as UTF-32 (converted without the GIL; 13% off that document's parse + text);
/// all-BMP text and mostly-ASCII text go as UTF-8, which CPython decodes fast enough that the
/// conversion would cost more than it saves (measured on the corpus: benches/README.md).
enum PyText {
    Utf8(String),
    Utf32(Vec<u32>),
}

impl PyText {
    fn new(text: String) -> Self {
        // A character beyond the BMP is the only thing UTF-8 encodes with a lead byte from 0xF0;
        // the maximum over chunks vectorizes (26 µs over 1.4 MB), a search for the first such
        // byte does not.
        let top = text
            .as_bytes()
            .chunks(4096)
            .map(|chunk| chunk.iter().copied().max().unwrap_or(0))
            .max()
            .unwrap_or(0);
        if top < 0xF0 {
            return PyText::Utf8(text);
        }
        // Mostly ASCII (under 1.5 bytes a character): CPython's UTF-8 decoder keeps up.
        let chars = text.chars().count();
        if text.len() * 2 < chars * 3 {
            return PyText::Utf8(text);
        }
        let mut wide = Vec::with_capacity(chars);
        wide.extend(text.chars().map(u32::from));
        PyText::Utf32(wide)
    }

    fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyString>> {
        match self {
            PyText::Utf8(text) => Ok(PyString::new(py, &text)),
            PyText::Utf32(wide) => {
                let bytes = std::mem::size_of_val(wide.as_slice());
                let size = pyo3::ffi::Py_ssize_t::try_from(bytes)
                    .map_err(|_| PyMemoryError::new_err("text too large for a Python str"))?;
                // The code units are in this machine's byte order: -1 says little-endian, 1 big.
                let mut byteorder: std::os::raw::c_int = if cfg!(target_endian = "little") {
                    -1
                } else {
                    1
                };
                // SAFETY: `wide` is a live, initialized buffer of `bytes` bytes for the whole call;
                // the errors argument may be null (strict); `byteorder` is a valid int the call may
                // write. The result is a new reference or null with a Python exception set, which
                // `from_owned_ptr_or_err` turns into `Err`.
                let object = unsafe {
                    Bound::from_owned_ptr_or_err(
                        py,
                        pyo3::ffi::PyUnicode_DecodeUTF32(
                            wide.as_ptr().cast(),
                            size,
                            std::ptr::null(),
                            &mut byteorder,
                        ),
                    )
                }?;
                Ok(object.cast_into::<PyString>()?)
            }
        }
    }
}

fn to_py_err(e: rhwp_reader::Error) -> PyErr {
    // A refused document may have been refused late: a zip bomb is inflated up to its ratio cap
    // (tens of MB) before it is known to be one. mimalloc keeps what was freed for reuse by the
    // same thread, so each server worker thread that met one would hold that much for good (the
    // soak test saw 130 MB after four bombs); refusals are rare, so they pay for giving it back.
    give_back_free_memory();
    ReaderError::new_err((e.code.as_str(), e.message, e.suggestion))
}

extern "C" {
    /// mimalloc's own collection (linked from the allocator's static library).
    fn mi_collect(force: bool);
}

/// Return the calling thread's freed memory (and the arenas' expired pages) to the system.
fn give_back_free_memory() {
    // SAFETY: mi_collect takes no pointers and may be called from any thread at any time.
    unsafe { mi_collect(true) }
}

/// A parsed document (immutable; safe to share between threads).
#[pyclass(frozen, module = "rhwp_core._native")]
struct NativeDocument {
    doc: Arc<Document>,
}

#[pymethods]
impl NativeDocument {
    /// All the text the document shows, paragraphs joined by `\n`: the body in reading order
    /// (table cells, text boxes, captions, equations as `$LaTeX$` included), then, with
    /// `include_furniture`, page headers/footers (each distinct one once), foot/endnotes and memos.
    fn extract_text<'py>(
        &self,
        py: Python<'py>,
        include_furniture: bool,
    ) -> PyResult<Bound<'py, PyString>> {
        let doc = Arc::clone(&self.doc);
        let text = py
            .detach(move || PyText::new(rhwp_reader::text::document_text(&doc, include_furniture)));
        text.into_py(py)
    }

    /// The text of page headers/footers and notes alone.
    fn furniture_text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        PyText::new(rhwp_reader::text::furniture_text(&self.doc)).into_py(py)
    }

    /// The text of every top-level block in reading order, with where it comes from:
    /// `(scope, section, paragraph, kind, page, text)`; scope is `body`, `furniture` or
    /// `annotation` (a memo) (the last two only when asked). Lets consumers (chunkers) align on blocks without the IR.
    #[allow(clippy::type_complexity)]
    fn block_texts(
        &self,
        include_furniture: bool,
    ) -> Vec<(&'static str, u32, u32, &'static str, Option<u32>, String)> {
        use rhwp_reader::text::block_text;
        let mut out = Vec::new();
        for section in &self.doc.sections {
            for block in &section.blocks {
                let p = block.provenance();
                out.push((
                    "body",
                    p.section,
                    p.paragraph,
                    block.kind(),
                    p.page,
                    block_text(block),
                ));
            }
        }
        if include_furniture {
            for f in &self.doc.furniture {
                let mut text = String::new();
                rhwp_reader::text::push_blocks(&f.blocks, &mut text);
                let p = &f.provenance;
                let (scope, kind): (&'static str, &'static str) = match f.kind.as_str() {
                    "header" => ("furniture", "header"),
                    "footer" => ("furniture", "footer"),
                    "footnote" => ("furniture", "footnote"),
                    // A reviewer's note, labelled as in extract_text: never the document's words.
                    "memo" => {
                        text = format!("{} {text}", rhwp_reader::text::memo_label(f));
                        ("annotation", "memo")
                    }
                    _ => ("furniture", "endnote"),
                };
                out.push((scope, p.section, p.paragraph, kind, p.page, text));
            }
        }
        out
    }

    /// Each top-level body block's heading level, None when it is no heading: outline styles,
    /// the document's table of contents, the numbering ladder (`rhwp_reader::outline`).
    fn heading_levels(&self) -> Vec<Option<u8>> {
        rhwp_reader::views::heading_levels(&self.doc)
    }

    /// The outline's headings: `(top-level body block, level, line)`, the line set for a heading
    /// inside a table (a document laid out in tables), None for a block that is a heading.
    fn outline_headings(&self) -> Vec<(usize, u8, Option<String>)> {
        rhwp_reader::views::outline_headings(&self.doc)
            .into_iter()
            .map(|h| (h.block, h.level, h.nested))
            .collect()
    }

    /// The Markdown view rendered natively (`rhwp_reader::views`), and the start of each
    /// top-level body block in it (None when the block renders empty): what
    /// `views.markdown.render_markdown(ir, include_furniture, block_starts)` gives, without the IR.
    ///
    /// `keep`, `(body, furniture)`: render only those top-level body blocks (indices in reading
    /// order over all sections) and furniture items (indices into the document's furniture), as
    /// the Python view over the IR cut to them; notes are then found in what is kept, headings
    /// are the whole document's (the outline's) at the kept blocks. `pages` (sorted): a kept
    /// table laid out over several pages keeps only its rows on those pages (`Block::on_pages`).
    #[pyo3(signature = (include_furniture, keep=None, pages=None))]
    fn to_markdown<'py>(
        &self,
        py: Python<'py>,
        include_furniture: bool,
        keep: Option<(Vec<usize>, Vec<usize>)>,
        pages: Option<Vec<u32>>,
    ) -> PyResult<(Bound<'py, PyString>, Vec<Option<usize>>)> {
        let doc = Arc::clone(&self.doc);
        let (text, starts) = py.detach(move || {
            let (text, starts) = match keep {
                None => rhwp_reader::views::render_markdown(&doc, include_furniture),
                Some((body, furniture)) => rhwp_reader::views::render_markdown_with_levels(
                    &selected(&doc, &body, &furniture, pages.as_deref()),
                    include_furniture,
                    &kept_levels(&doc, &body),
                ),
            };
            (PyText::new(text), starts)
        });
        Ok((text.into_py(py)?, starts))
    }

    /// The HTML view rendered natively (`rhwp_reader::views`): what
    /// `views.html.render_html(ir, include_css, include_furniture)` gives, without the IR.
    /// `keep` and `pages` as for `to_markdown`.
    #[pyo3(signature = (include_css, include_furniture, keep=None, pages=None))]
    fn to_html<'py>(
        &self,
        py: Python<'py>,
        include_css: bool,
        include_furniture: bool,
        keep: Option<(Vec<usize>, Vec<usize>)>,
        pages: Option<Vec<u32>>,
    ) -> PyResult<Bound<'py, PyString>> {
        let doc = Arc::clone(&self.doc);
        let text = py.detach(move || {
            let text = match keep {
                None => rhwp_reader::views::render_html(&doc, include_css, include_furniture),
                Some((body, furniture)) => rhwp_reader::views::render_html_with_levels(
                    &selected(&doc, &body, &furniture, pages.as_deref()),
                    include_css,
                    include_furniture,
                    &kept_levels(&doc, &body),
                ),
            };
            PyText::new(text)
        });
        text.into_py(py)
    }

    /// The Markdown of the top-level body blocks at `indices` (reading order over all sections),
    /// each labelled as in the whole document's view: what
    /// `views.markdown.render_block_markdown(ir, block)` gives for each. Out-of-range indices
    /// raise IndexError. `pages` (sorted): a table laid out over several pages gives only its
    /// rows on those pages (`Block::on_pages`).
    #[pyo3(signature = (indices, pages=None))]
    fn block_markdown(
        &self,
        py: Python<'_>,
        indices: Vec<usize>,
        pages: Option<Vec<u32>>,
    ) -> PyResult<Vec<String>> {
        let body: Vec<&rhwp_reader::model::Block> = self
            .doc
            .sections
            .iter()
            .flat_map(|s| s.blocks.iter())
            .collect();
        let mut blocks = Vec::with_capacity(indices.len());
        for i in indices {
            match body.get(i) {
                Some(block) => blocks.push(*block),
                None => {
                    return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                        "no top-level body block {i}"
                    )))
                }
            }
        }
        let doc = &*self.doc;
        Ok(py.detach(move || match pages {
            None => rhwp_reader::views::render_block_markdown(doc, &blocks),
            Some(pages) => rhwp_reader::views::render_block_markdown_on_pages(doc, &blocks, &pages),
        }))
    }

    /// Each top-level body block's last page (`Block::last_page`: a table running over pages
    /// ends on its last row's), in reading order.
    fn block_last_pages(&self) -> Vec<Option<u32>> {
        self.doc
            .sections
            .iter()
            .flat_map(|s| s.blocks.iter())
            .map(rhwp_reader::model::Block::last_page)
            .collect()
    }

    /// Each top-level body block's `(kind, page)` in reading order, and each furniture item's
    /// `(kind, applies_to, page)`: what page selection needs, without the text.
    #[allow(clippy::type_complexity)]
    fn block_pages(
        &self,
    ) -> (
        Vec<(&'static str, Option<u32>)>,
        Vec<(String, Option<String>, Option<u32>)>,
    ) {
        let body = self
            .doc
            .sections
            .iter()
            .flat_map(|s| s.blocks.iter())
            .map(|b| (b.kind(), b.provenance().page))
            .collect();
        let furniture = self
            .doc
            .furniture
            .iter()
            .map(|f| (f.kind.clone(), f.applies_to.clone(), f.provenance.page))
            .collect();
        (body, furniture)
    }

    /// `summary()` as JSON.
    fn summary_json(&self) -> String {
        serde_json::to_string(&rhwp_reader::summary::summarize(&self.doc)).unwrap_or_default()
    }

    /// The whole model as JSON: the shape of `rhwp_core.ir.HwpDocument`.
    fn to_json(&self, py: Python<'_>) -> String {
        let doc = Arc::clone(&self.doc);
        py.detach(move || serde_json::to_string(&*doc).unwrap_or_default())
    }

    /// The whole model as `rhwp_core.ir` objects, built without JSON or validation (see
    /// `ir_objects`); `None` when the classes do not mirror the model (then validate `to_json`).
    fn to_ir(
        &self,
        py: Python<'_>,
        classes: &ir_objects::IrClasses,
    ) -> PyResult<Option<Py<PyAny>>> {
        ir_objects::into_result(ir_objects::build(py, classes, &*self.doc))
    }

    #[getter]
    fn format(&self) -> &'static str {
        match self.doc.format {
            rhwp_reader::model::Format::Hwp => "hwp",
            rhwp_reader::model::Format::Hwpx => "hwpx",
            rhwp_reader::model::Format::Hwp3 => "hwp3",
            rhwp_reader::model::Format::Hwpml => "hwpml",
        }
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.doc.warnings.clone()
    }
}

/// A copy of `doc` holding only the top-level body blocks at `body` (reading order over all
/// sections; every section kept, perhaps empty) and the furniture at `furniture`, as
/// `Document._ir_of_pages` cuts the IR.
/// The whole document's heading levels (`views::heading_levels`) of the kept top-level blocks.
fn kept_levels(doc: &Document, body: &[usize]) -> Vec<Option<u8>> {
    let levels = rhwp_reader::views::heading_levels(doc);
    body.iter()
        .map(|&i| levels.get(i).copied().flatten())
        .collect()
}

fn selected(
    doc: &Document,
    body: &[usize],
    furniture: &[usize],
    pages: Option<&[u32]>,
) -> Document {
    let body: std::collections::HashSet<usize> = body.iter().copied().collect();
    let furniture: std::collections::HashSet<usize> = furniture.iter().copied().collect();
    let mut next = 0usize;
    let sections = doc
        .sections
        .iter()
        .map(|s| {
            let blocks = s
                .blocks
                .iter()
                .filter(|_| {
                    next += 1;
                    body.contains(&(next - 1))
                })
                .map(|b| pages.map_or_else(|| b.clone(), |p| b.on_pages(p)))
                .collect();
            rhwp_reader::model::Section {
                index: s.index,
                page: s.page.clone(),
                columns: s.columns,
                paragraph_count: s.paragraph_count,
                blocks,
            }
        })
        .collect();
    Document {
        schema_version: doc.schema_version,
        format: doc.format,
        version: doc.version.clone(),
        compressed: doc.compressed,
        distribution: doc.distribution,
        metadata: doc.metadata.clone(),
        styles: doc.styles.clone(),
        bin_data: doc.bin_data.clone(),
        sections,
        furniture: doc
            .furniture
            .iter()
            .enumerate()
            .filter(|(i, _)| furniture.contains(i))
            .map(|(_, f)| f.clone())
            .collect(),
        pages: doc.pages,
        warnings: doc.warnings.clone(),
    }
}

/// A document given as its bytes or as a path (the file is read where the GIL is released).
enum Source<'a> {
    Bytes(&'a [u8]),
    Path(std::path::PathBuf),
}

impl<'a> Source<'a> {
    fn of(source: &'a Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(match source.cast::<pyo3::types::PyBytes>() {
            Ok(b) => Source::Bytes(b.as_bytes()),
            Err(_) => Source::Path(source.extract()?),
        })
    }

    /// `f` over the document's bytes; an unreadable file is the I/O error.
    fn with<T>(&self, f: impl FnOnce(&[u8]) -> T) -> std::io::Result<T> {
        Ok(match self {
            Source::Bytes(data) => f(data),
            Source::Path(path) => f(&std::fs::read(path)?),
        })
    }
}

/// The reader's options. The password only opens the document: it is not kept in the
/// `NativeDocument`, and no error quotes it (each reader says "the password is wrong").
fn options(strict: bool, password: Option<String>) -> Options {
    Options {
        strict,
        password: password.map(rhwp_reader::Password::from),
        ..Options::default()
    }
}

/// One side of a comparison: the document, its pictures' digests, the part to compare.
fn side<'a>(
    doc: &'a Document,
    pictures: Option<&'a std::collections::HashMap<String, [u8; 32]>>,
    only: Option<&'a (Vec<usize>, Vec<usize>)>,
) -> rhwp_reader::diff::Side<'a> {
    rhwp_reader::diff::Side {
        doc,
        pictures,
        only: only.map(|(body, furniture)| rhwp_reader::diff::Selection { body, furniture }),
    }
}

/// Parse a document held in memory.
#[pyfunction]
#[pyo3(signature = (data, strict = false, password = None))]
fn parse_bytes(
    py: Python<'_>,
    data: &[u8],
    strict: bool,
    password: Option<String>,
) -> PyResult<NativeDocument> {
    let opts = options(strict, password);
    let doc = py
        .detach(|| rhwp_reader::read_guarded(data, &opts))
        .map_err(to_py_err)?;
    Ok(NativeDocument { doc: Arc::new(doc) })
}

/// Read a file and parse it; reading the file is done without the GIL too.
/// I/O errors surface as `OSError` subclasses (FileNotFoundError, PermissionError).
#[pyfunction]
#[pyo3(signature = (path, strict = false, password = None))]
fn parse_path(
    py: Python<'_>,
    path: std::path::PathBuf,
    strict: bool,
    password: Option<String>,
) -> PyResult<NativeDocument> {
    let opts = options(strict, password);
    let result = py.detach(
        move || -> Result<Result<Document, rhwp_reader::Error>, std::io::Error> {
            let bytes = std::fs::read(&path)?;
            Ok(rhwp_reader::read_guarded(&bytes, &opts))
        },
    );
    let doc = result?.map_err(to_py_err)?;
    Ok(NativeDocument { doc: Arc::new(doc) })
}

/// The bin-data item `name` (a picture, an OLE object) of the document `source` (bytes or a
/// path), decompressed, with the media type its first bytes show. Reading releases the GIL.
/// A name the document does not hold raises `ReaderError("invalid_input", message, suggestion,
/// names it holds)`; a picture linked instead of embedded, `ReaderError("unsupported_format", ...)`.
#[pyfunction]
#[pyo3(signature = (source, name, password = None))]
fn read_bin_data<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    name: &str,
    password: Option<String>,
) -> PyResult<(Bound<'py, pyo3::types::PyBytes>, Option<&'static str>)> {
    use rhwp_reader::bin_data::{self, Lookup};
    let source = Source::of(source)?;
    let opts = options(false, password);
    let result = py.detach(|| source.with(|data| bin_data::read_bin_data(data, name, &opts)));
    match result?.map_err(to_py_err)? {
        Lookup::Found { data, .. } => Ok((
            pyo3::types::PyBytes::new(py, &data),
            bin_data::media_type(&data),
        )),
        Lookup::Linked { target } => Err(ReaderError::new_err((
            ErrorCode::UnsupportedFormat.as_str(),
            format!(
                "\"{target}\" is linked, not embedded: the document names a file on its author's \
                 machine and holds no bytes for it"
            ),
            "Ask for the linked file itself, or open the document in Hancom Office, embed the picture \
             (그림 넣기 with 문서에 포함) and save it again.",
        ))),
        Lookup::Unknown { stored } => {
            const SHOWN: usize = 50;
            let mut listed = stored
                .iter()
                .take(SHOWN)
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ");
            if stored.len() > SHOWN {
                listed.push_str(&format!(" and {} more", stored.len() - SHOWN));
            }
            let shown: String = name.chars().take(120).collect();
            let suggestion = if stored.is_empty() {
                "The document holds no embedded pictures or objects.".to_string()
            } else {
                format!(
                    "Pass one of the names the document holds: {listed} (Picture.bin_data_name and \
                     HwpDocument.bin_data in the IR)."
                )
            };
            Err(ReaderError::new_err((
                ErrorCode::InvalidInput.as_str(),
                format!("the document holds no bin data item named \"{shown}\""),
                suggestion,
                stored,
            )))
        }
    }
}

/// What changed between two documents (`rhwp_reader::diff`), as JSON in the shape of
/// `rhwp_core.compare.Comparison`. `source_a`/`source_b`, the documents' bytes when the caller
/// has them, let pictures be compared by content (their passwords open them again for that);
/// without them pictures are told apart by bin-data name and size. `scope`: `body` or `all`.
/// `only_a`/`only_b`: `(body blocks, furniture items)` to compare (a page range), ascending
/// indices; addresses stay the whole document's. The work is bounded (`too_large` past it) and
/// runs without the GIL.
#[pyfunction]
#[pyo3(signature = (a, b, source_a=None, source_b=None, password_a=None, password_b=None, scope="body", only_a=None, only_b=None))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    a: &NativeDocument,
    b: &NativeDocument,
    source_a: Option<&[u8]>,
    source_b: Option<&[u8]>,
    password_a: Option<String>,
    password_b: Option<String>,
    scope: &str,
    only_a: Option<(Vec<usize>, Vec<usize>)>,
    only_b: Option<(Vec<usize>, Vec<usize>)>,
) -> PyResult<String> {
    use rhwp_reader::diff;
    let scope = match scope {
        "body" => diff::Scope::Body,
        "all" => diff::Scope::All,
        other => {
            return Err(ReaderError::new_err((
                ErrorCode::InvalidInput.as_str(),
                format!("scope must be \"body\" or \"all\", not {other:?}"),
                "Pass scope=\"body\" (the running text) or scope=\"all\" (with headers, footers, notes and memos).",
            )))
        }
    };
    let (da, db) = (Arc::clone(&a.doc), Arc::clone(&b.doc));
    let (oa, ob) = (options(false, password_a), options(false, password_b));
    let result = py.detach(move || {
        let digests = |doc: &Document, source: Option<&[u8]>, opts: &Options| {
            source.and_then(|bytes| rhwp_reader::bin_data::picture_digests(doc, bytes, opts))
        };
        let (ha, hb) = (digests(&da, source_a, &oa), digests(&db, source_b, &ob));
        let run = || {
            diff::compare(
                &side(&da, ha.as_ref(), only_a.as_ref()),
                &side(&db, hb.as_ref(), only_b.as_ref()),
                scope,
                diff::DEFAULT_WORK,
            )
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
            Ok(result) => result.map(|c| serde_json::to_string(&c).unwrap_or_default()),
            Err(_) => Err(rhwp_reader::Error::corrupt(
                "comparing the documents hit an internal inconsistency (a bug in rhwp_core; please report it)",
            )),
        }
    });
    result.map_err(to_py_err)
}

/// 한글's equation script as LaTeX, or `None` when it does not translate: the translator every
/// equation block's `latex` comes from, for tests and tools that hold a script alone.
#[pyfunction]
fn equation_latex(script: &str) -> Option<String> {
    rhwp_reader::common::equation::to_latex(script)
}

/// Page `page` (1-based) of the document `source` (bytes or a path) as SVG text (`format`
/// "svg") or PNG bytes ("png", `dpi`, the longer side at most `max_side`), drawn with the fonts
/// in `font_dirs`; with the document's page count. Reading, laying out and drawing release the
/// GIL. Errors as `ReaderError` (a page outside the document: `invalid_input` naming the pages).
#[pyfunction]
#[pyo3(signature = (source, page, format, dpi, max_side, font_dirs, password = None))]
#[allow(clippy::too_many_arguments)]
fn render_page<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    page: u32,
    format: &str,
    dpi: u32,
    max_side: Option<u32>,
    font_dirs: Vec<std::path::PathBuf>,
    password: Option<String>,
) -> PyResult<(Bound<'py, pyo3::types::PyBytes>, u32)> {
    use rhwp_reader::render::{self, Format};
    let format = match format {
        "svg" => Format::Svg,
        "png" => Format::Png { dpi, max_side },
        other => {
            return Err(ReaderError::new_err((
                ErrorCode::InvalidInput.as_str(),
                format!(
                    "format {:?} is not one of \"svg\", \"png\"",
                    other.chars().take(40).collect::<String>()
                ),
                "Pass format=\"svg\" or format=\"png\".",
            )))
        }
    };
    let source = Source::of(source)?;
    let opts = options(false, password);
    // A bug in the layout pass becomes an error, never an abort.
    let result = py.detach(|| {
        source.with(|bytes| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                render::render_page(bytes, &opts, page, format, &font_dirs)
            }))
            .unwrap_or_else(|_| {
                Err(rhwp_reader::Error::corrupt(
                    "the page could not be laid out (an internal error, reported as damage)",
                ))
            })
        })
    });
    let rendered = result?.map_err(to_py_err)?;
    Ok((
        pyo3::types::PyBytes::new(py, &rendered.bytes),
        rendered.page_count,
    ))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeDocument>()?;
    m.add_class::<ir_objects::IrClasses>()?;
    m.add_function(wrap_pyfunction!(parse_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(parse_path, m)?)?;
    m.add_function(wrap_pyfunction!(read_bin_data, m)?)?;
    m.add_function(wrap_pyfunction!(fill::fill, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(render_page, m)?)?;
    m.add_function(wrap_pyfunction!(equation_latex, m)?)?;
    m.add("ReaderError", m.py().get_type::<ReaderError>())?;
    // The error vocabulary, `(code, default suggestion, exception class name)` a row, from which
    // `rhwp_core.errors` builds its exception classes.
    let error_codes: Vec<(&str, &str, &str)> = rhwp_reader::error::VOCABULARY
        .iter()
        .map(|row| (row.name, row.suggestion, row.python_class))
        .collect();
    m.add(
        "ERROR_CODES",
        pyo3::types::PyTuple::new(m.py(), error_codes)?,
    )?;
    m.add("SCHEMA_VERSION", rhwp_reader::model::SCHEMA_VERSION)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
