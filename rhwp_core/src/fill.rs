//! `_native.fill`: a form's values in, the filled document and the plan out (GIL released while
//! the writer works).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyString};
use rhwp_reader::common::fill::Value;

/// The caller's value: text, true/false, or lines.
fn value(key: &str, v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Flag(b.is_true()));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::Text(s.to_str()?.to_owned()));
    }
    match v.extract::<Vec<String>>() {
        Ok(lines) => Ok(Value::Lines(lines)),
        Err(_) => Err(crate::ReaderError::new_err((
            rhwp_reader::ErrorCode::InvalidInput.as_str(),
            format!("the value of \"{key}\" is neither text, true/false nor a list of text"),
            "Give each key a string, a boolean (checkboxes) or a list of strings.",
        ))),
    }
}

/// Fill the document `data` with `values` (`(key, value)` pairs in order): the filled document
/// (None when nothing changes), the plan as JSON, and the parts rewritten.
#[pyfunction]
#[pyo3(signature = (data, values, password = None))]
pub fn fill<'py>(
    py: Python<'py>,
    data: &[u8],
    values: Vec<(String, Bound<'py, PyAny>)>,
    password: Option<String>,
) -> PyResult<(Option<Bound<'py, PyBytes>>, String, Vec<String>)> {
    let values = values
        .iter()
        .map(|(k, v)| Ok((k.clone(), value(k, v)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let opts = crate::options(false, password);
    let out = py
        .detach(|| {
            std::panic::catch_unwind(|| rhwp_reader::formats::fill(data, &values, &opts)).ok()
        })
        .ok_or_else(|| {
            // A panic is a bug in the writer, never the document's fault.
            crate::ReaderError::new_err((
                "internal_error",
                "the writer hit an internal inconsistency on this file (a bug in rhwp_core; please report it)",
                "Nothing was written. Report the document.",
            ))
        })?
        .map_err(crate::to_py_err)?;
    let plan = serde_json::to_string(&out.plan).map_err(|e| {
        crate::ReaderError::new_err((
            "internal_error",
            format!("the fill plan could not be written as JSON ({e})"),
            "Report the file; nothing was written.",
        ))
    })?;
    Ok((
        out.bytes.map(|b| PyBytes::new(py, &b)),
        plan,
        out.changed_parts,
    ))
}
