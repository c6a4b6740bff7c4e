//! The Pydantic IR built straight from the model, without JSON and without validation.
//!
//! `rhwp_core.ir` mirrors the model's serde shape field for field, and the model is ours: it
//! needs no validating. Serialising it to JSON only for pydantic-core to parse and check it
//! again cost several times the reading itself. Measured on the five largest IRs of the corpus
//! (16.7, 5.7, 5.7, 4.8 and 1.0 MB of JSON; median of 5, cyclic GC paused as `Document.to_ir`
//! does): 161, 30, 37, 47 and 11 ms built here against 400, 103, 108, 112 and 26 ms for
//! `to_json` + `HwpDocument.model_validate_json`, 2.4 to 3.4 times faster (parsing the largest
//! document takes 41 ms).
//! This module walks the model with its own `Serialize` impls (so the field set can never
//! drift from what `to_json` writes) and makes each struct an instance of the IR class of the
//! same name, the way pydantic-core does after validating: `__dict__` holds the fields in the
//! class's declared order, every field is in `__pydantic_fields_set__` (the reader writes every
//! field), `__pydantic_extra__` and `__pydantic_private__` are `None`.
//!
//! One difference, not visible through pydantic's API: the objects of a class share one
//! `__pydantic_fields_set__` (a `set` holding every field name) instead of a copy each. A
//! set of more than five names is a separate allocation; one per object was a third of the
//! build and two thirds of freeing the IR. Pydantic never changes the set of a frozen model
//! (`model_copy` copies it first, and adding a field name to a set that holds them all
//! changes nothing); only code that mutates `model_fields_set` by hand would notice.
//!
//! Any mismatch between a struct and its class (a field the class lacks or a field the struct
//! does not write, a struct without a class, a serde shape the IR does not use) makes the build
//! report `Shape`, and the caller takes the JSON + validation path instead: the result is the
//! same IR either way, only slower. The tests check the fast path is taken and equal.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySet, PyString, PyTuple, PyType};
use serde::ser::{self, Impossible, Serialize};
use std::collections::HashMap;
use std::fmt;

/// One IR class: the class object, its field names in declared order, and that set of names.
struct ModelClass {
    class: Py<PyType>,
    alloc: ffi::allocfunc,
    fields: Vec<(String, Py<PyString>)>,
    field_set: Py<PySet>,
}

/// The IR classes by the name of the model struct each one mirrors, prepared once.
#[pyclass(frozen, module = "rhwp_core._native")]
pub struct IrClasses {
    by_struct: HashMap<String, ModelClass>,
    dunder_dict: Py<PyString>,
    dunder_fields_set: Py<PyString>,
    dunder_extra: Py<PyString>,
    dunder_private: Py<PyString>,
}

#[pymethods]
impl IrClasses {
    /// `classes`: model struct name -> (Pydantic class, its field names in declared order).
    #[new]
    fn new(py: Python<'_>, classes: &Bound<'_, PyDict>) -> PyResult<Self> {
        let mut by_struct = HashMap::new();
        for (name, entry) in classes.iter() {
            let name: String = name.extract()?;
            let (class, names): (Bound<'_, PyType>, Bound<'_, PyTuple>) = entry.extract()?;
            let mut fields = Vec::with_capacity(names.len());
            for field in names.iter() {
                let field: String = field.extract()?;
                let interned = PyString::intern(py, &field).unbind();
                fields.push((field, interned));
            }
            let field_set = PySet::new(py, fields.iter().map(|(_, f)| f.bind(py)))?;
            untrack(field_set.as_any());
            let field_set = field_set.unbind();
            let alloc = allocator(&class)?;
            by_struct.insert(
                name,
                ModelClass {
                    class: class.unbind(),
                    alloc,
                    fields,
                    field_set,
                },
            );
        }
        Ok(IrClasses {
            by_struct,
            dunder_dict: PyString::intern(py, "__dict__").unbind(),
            dunder_fields_set: PyString::intern(py, "__pydantic_fields_set__").unbind(),
            dunder_extra: PyString::intern(py, "__pydantic_extra__").unbind(),
            dunder_private: PyString::intern(py, "__pydantic_private__").unbind(),
        })
    }
}

/// The allocator `object.__new__` would use for instances of `class` (its tp_alloc slot).
fn allocator(class: &Bound<'_, PyType>) -> PyResult<ffi::allocfunc> {
    let type_ptr: *mut ffi::PyTypeObject = class.as_ptr().cast();
    // SAFETY: `class` is a live type object and the GIL is held; PyType_GetSlot and
    // PyType_GetFlags only read it. A non-null tp_alloc slot is an `allocfunc`.
    unsafe {
        if ffi::PyType_GetFlags(type_ptr) & ffi::Py_TPFLAGS_IS_ABSTRACT != 0 {
            return Err(PyTypeError::new_err(
                "an abstract class cannot be an IR class",
            ));
        }
        let slot = ffi::PyType_GetSlot(type_ptr, ffi::Py_tp_alloc);
        if slot.is_null() {
            return Err(PyTypeError::new_err("an IR class without an allocator"));
        }
        Ok(std::mem::transmute::<*mut std::ffi::c_void, ffi::allocfunc>(slot))
    }
}

/// Why a build stopped: a Python error (propagated) or a model/IR mismatch (use the JSON path).
pub enum BuildError {
    Python(PyErr),
    Shape(String),
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Python(e) => write!(f, "Python({e})"),
            BuildError::Shape(s) => write!(f, "Shape({s})"),
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}

impl ser::Error for BuildError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        BuildError::Shape(msg.to_string())
    }
}

impl From<PyErr> for BuildError {
    fn from(e: PyErr) -> Self {
        BuildError::Python(e)
    }
}

impl From<std::convert::Infallible> for BuildError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

fn shape<T>(what: &str) -> Result<T, BuildError> {
    Err(BuildError::Shape(what.to_owned()))
}

/// Build the IR object tree for `value` (a model struct) with `classes`.
pub fn build<'py, T: Serialize>(
    py: Python<'py>,
    classes: &IrClasses,
    value: &T,
) -> Result<Bound<'py, PyAny>, BuildError> {
    value.serialize(Builder { py, classes })
}

#[derive(Clone, Copy)]
struct Builder<'a, 'py> {
    py: Python<'py>,
    classes: &'a IrClasses,
}

impl<'py> Builder<'_, 'py> {
    /// `object.__setattr__(target, name, value)`: what pydantic-core does, since the classes are frozen.
    fn force_setattr(
        &self,
        target: &Bound<'py, PyAny>,
        name: &Py<PyString>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<()> {
        // SAFETY: all three are live objects held by the caller while the GIL is held; the call
        // borrows its arguments (no reference is stolen).
        let status =
            unsafe { ffi::PyObject_GenericSetAttr(target.as_ptr(), name.as_ptr(), value.as_ptr()) };
        if status == 0 {
            Ok(())
        } else {
            Err(PyErr::fetch(self.py))
        }
    }

    /// An instance of `model` holding `dict` as its fields, constructed without validation.
    fn instance(
        &self,
        model: &ModelClass,
        dict: Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        // What `object.__new__(class)` does, as pydantic-core does it: the class's allocator
        // (calling `object.__new__` through Python cost a quarter of a small document's build).
        // SAFETY: `alloc` is the class's own tp_alloc slot (checked non-null when the classes
        // were prepared) and the class is kept alive by `model`; it returns a new reference or
        // NULL with an exception set, which from_owned_ptr_or_err turns into Err.
        let object = unsafe {
            Bound::from_owned_ptr_or_err(py, (model.alloc)(model.class.as_ptr().cast(), 0))?
        };
        // Shared by the class's objects (see the module comment).
        let fields_set = model.field_set.bind(py).clone().into_any();
        let none = py.None().into_bound(py);
        self.force_setattr(&object, &self.classes.dunder_dict, dict.as_any())?;
        self.force_setattr(&object, &self.classes.dunder_extra, &none)?;
        self.force_setattr(&object, &self.classes.dunder_fields_set, &fields_set)?;
        self.force_setattr(&object, &self.classes.dunder_private, &none)?;
        untrack(dict.as_any());
        untrack(&object);
        Ok(object)
    }
}

/// Take a container out of the cyclic garbage collector's lists.
///
/// The IR is an immutable tree of many small containers (a 200-page report: half a million)
/// and none is in a cycle: reference counting frees it. Tracked, each of them would be
/// traversed by the next collections after the build (the young generation first, then the
/// older ones), which cost as much as building the IR again. CPython itself untracks tuples
/// and dicts that cannot be in a cycle; this does the same for the IR's objects, dicts,
/// field sets and lists. (A cycle a caller makes by appending the IR into one of its own lists
/// would then not be collected: the IR is not meant to be mutated.)
fn untrack(object: &Bound<'_, PyAny>) {
    // SAFETY: `object` is live and the GIL is held. PyObject_GC_IsTracked is false for objects
    // whose type does not support GC, so PyObject_GC_UnTrack is only called on GC objects.
    unsafe {
        if ffi::PyObject_GC_IsTracked(object.as_ptr()) != 0 {
            ffi::PyObject_GC_UnTrack(object.as_ptr().cast());
        }
    }
}

type Out<'py> = Result<Bound<'py, PyAny>, BuildError>;

impl<'a, 'py> ser::Serializer for Builder<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = BuildError;
    type SerializeSeq = SeqBuilder<'a, 'py>;
    type SerializeTuple = SeqBuilder<'a, 'py>;
    type SerializeTupleStruct = SeqBuilder<'a, 'py>;
    type SerializeTupleVariant = Impossible<Bound<'py, PyAny>, BuildError>;
    type SerializeMap = Impossible<Bound<'py, PyAny>, BuildError>;
    type SerializeStruct = StructBuilder<'a, 'py>;
    type SerializeStructVariant = Impossible<Bound<'py, PyAny>, BuildError>;

    fn serialize_bool(self, v: bool) -> Out<'py> {
        Ok(v.into_pyobject(self.py)?.to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Out<'py> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Out<'py> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Out<'py> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Out<'py> {
        Ok(v.into_pyobject(self.py)?.into_any())
    }
    fn serialize_u8(self, v: u8) -> Out<'py> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Out<'py> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Out<'py> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Out<'py> {
        Ok(v.into_pyobject(self.py)?.into_any())
    }
    fn serialize_f32(self, v: f32) -> Out<'py> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Out<'py> {
        Ok(v.into_pyobject(self.py)?.into_any())
    }
    fn serialize_char(self, v: char) -> Out<'py> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }
    fn serialize_str(self, v: &str) -> Out<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Out<'py> {
        shape("bytes")
    }
    fn serialize_none(self) -> Out<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Out<'py> {
        // As JSON writes it: the (renamed) variant name, e.g. the format `hwp`.
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Out<'py> {
        shape(&format!("externally tagged enum {name}"))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder<'a, 'py>, BuildError> {
        Ok(SeqBuilder {
            builder: self,
            items: Vec::with_capacity(len.unwrap_or(0)),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder<'a, 'py>, BuildError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<SeqBuilder<'a, 'py>, BuildError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, BuildError> {
        shape(&format!("tuple variant of {name}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, BuildError> {
        shape("map")
    }
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<StructBuilder<'a, 'py>, BuildError> {
        let Some(model) = self.classes.by_struct.get(name) else {
            return shape(&format!("no IR class for struct {name}"));
        };
        Ok(StructBuilder {
            builder: self,
            model,
            values: Vec::with_capacity(len),
        })
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, BuildError> {
        shape(&format!("struct variant of {name}"))
    }
}

pub struct SeqBuilder<'a, 'py> {
    builder: Builder<'a, 'py>,
    items: Vec<Bound<'py, PyAny>>,
}

impl<'py> SeqBuilder<'_, 'py> {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), BuildError> {
        self.items.push(value.serialize(self.builder)?);
        Ok(())
    }
    fn list(self) -> Out<'py> {
        let list = PyList::new(self.builder.py, self.items)?.into_any();
        untrack(&list);
        Ok(list)
    }
}

/// Sequences, tuples and tuple structs all become a Python list.
macro_rules! list_serializer {
    ($serialize:ident, $add:ident) => {
        impl<'py> ser::$serialize for SeqBuilder<'_, 'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = BuildError;
            fn $add<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), BuildError> {
                self.push(value)
            }
            fn end(self) -> Out<'py> {
                self.list()
            }
        }
    };
}

list_serializer!(SerializeSeq, serialize_element);
list_serializer!(SerializeTuple, serialize_element);
list_serializer!(SerializeTupleStruct, serialize_field);

pub struct StructBuilder<'a, 'py> {
    builder: Builder<'a, 'py>,
    model: &'a ModelClass,
    values: Vec<(&'static str, Bound<'py, PyAny>)>,
}

impl<'py> ser::SerializeStruct for StructBuilder<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = BuildError;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), BuildError> {
        let value = value.serialize(self.builder)?;
        self.values.push((key, value));
        Ok(())
    }

    fn end(self) -> Out<'py> {
        let py = self.builder.py;
        let fields = &self.model.fields;
        if self.values.len() != fields.len() {
            return shape("a struct and its IR class have different fields");
        }
        // Fields in the class's declared order (model_dump and repr follow `__dict__` order);
        // the struct writes them mostly in the same order, so the same index is tried first.
        let dict = PyDict::new(py);
        for (index, (name, interned)) in fields.iter().enumerate() {
            let value = match self.values.get(index) {
                Some((key, value)) if key == name => value,
                _ => match self.values.iter().find(|(key, _)| key == name) {
                    Some((_, value)) => value,
                    None => return shape(&format!("the model does not write field {name}")),
                },
            };
            dict.set_item(interned.bind(py), value)?;
        }
        // Equal counts and every class field found: the struct wrote exactly the class's fields
        // (serde never writes a key twice).
        Ok(self.builder.instance(self.model, dict)?)
    }
}

/// Turn a build result into what `NativeDocument.to_ir` returns: the IR, or `None` on a mismatch.
pub fn into_result(result: Result<Bound<'_, PyAny>, BuildError>) -> PyResult<Option<Py<PyAny>>> {
    match result {
        Ok(object) => Ok(Some(object.unbind())),
        Err(BuildError::Python(e)) => Err(e),
        Err(BuildError::Shape(_)) => Ok(None),
    }
}
