//! The thin PyO3 layer: `rhwp_core._native`.
//!
//! Everything HWP lives in `rhwp-reader`; this file only moves bytes in and
//! strings out. Reading releases the GIL, the model is immutable and shared
//! behind an `Arc`, and it crosses into Python once when the IR is asked for:
//! as the `rhwp_core.ir` objects themselves (`ir_objects`), or as JSON.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use rhwp_reader::{model::Document, Options};
use std::sync::Arc;

mod ir_objects;

/// The reader builds its model from many small allocations (paragraph texts, runs, cells,
/// attribute values). mimalloc serves them faster than glibc's malloc: parse + text 5.7% faster
/// by geometric mean over the HWPX corpus and 13.7% over the HWP corpus, up to 13% on
/// table-heavy documents (benches/README.md, "Where the rest goes (HWPX)"). The price is peak
/// memory: about 6x the inflated size for large documents instead of 2x (README "Decisions");
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

fn to_py_err(e: rhwp_reader::Error) -> PyErr {
    ReaderError::new_err((e.code.as_str(), e.message, e.suggestion))
}

/// A parsed document (immutable; safe to share between threads).
#[pyclass(frozen, module = "rhwp_core._native")]
struct NativeDocument {
    doc: Arc<Document>,
}

#[pymethods]
impl NativeDocument {
    /// All the text the document shows (DESIGN §3), paragraphs joined by `\n`.
    fn extract_text(&self, py: Python<'_>, include_furniture: bool) -> String {
        let doc = Arc::clone(&self.doc);
        py.detach(move || rhwp_reader::text::document_text(&doc, include_furniture))
    }

    /// The text of page headers/footers and notes alone.
    fn furniture_text(&self) -> String {
        rhwp_reader::text::furniture_text(&self.doc)
    }

    /// The text of every top-level block in reading order, with where it comes from:
    /// `(scope, section, paragraph, kind, page, text)`; scope is `body` or `furniture`
    /// (furniture only when asked). Lets consumers (chunkers) align on blocks without the IR.
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
                let kind: &'static str = match f.kind.as_str() {
                    "header" => "header",
                    "footer" => "footer",
                    "footnote" => "footnote",
                    _ => "endnote",
                };
                out.push(("furniture", p.section, p.paragraph, kind, p.page, text));
            }
        }
        out
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
        }
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.doc.warnings.clone()
    }
}

fn options(strict: bool) -> Options {
    Options {
        strict,
        ..Options::default()
    }
}

/// Parse a document held in memory.
#[pyfunction]
#[pyo3(signature = (data, strict = false))]
fn parse_bytes(py: Python<'_>, data: &[u8], strict: bool) -> PyResult<NativeDocument> {
    let opts = options(strict);
    let doc = py
        .detach(|| rhwp_reader::read_guarded(data, &opts))
        .map_err(to_py_err)?;
    Ok(NativeDocument { doc: Arc::new(doc) })
}

/// Read a file and parse it; reading the file is done without the GIL too.
/// I/O errors surface as `OSError` subclasses (FileNotFoundError, PermissionError).
#[pyfunction]
#[pyo3(signature = (path, strict = false))]
fn parse_path(py: Python<'_>, path: std::path::PathBuf, strict: bool) -> PyResult<NativeDocument> {
    let opts = options(strict);
    let result = py.detach(
        move || -> Result<Result<Document, rhwp_reader::Error>, std::io::Error> {
            let bytes = std::fs::read(&path)?;
            Ok(rhwp_reader::read_guarded(&bytes, &opts))
        },
    );
    let doc = result?.map_err(to_py_err)?;
    Ok(NativeDocument { doc: Arc::new(doc) })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeDocument>()?;
    m.add_class::<ir_objects::IrClasses>()?;
    m.add_function(wrap_pyfunction!(parse_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(parse_path, m)?)?;
    m.add("ReaderError", m.py().get_type::<ReaderError>())?;
    m.add("SCHEMA_VERSION", rhwp_reader::model::SCHEMA_VERSION)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
