//! The character formatting runs carry, said once for every reader. Not serialized as such
//! (a run's flags are its own fields in the IR), so kept out of `model.rs`, whose structs are
//! the IR's and are mirrored field for field by `rhwp_core/python/rhwp_core/ir.py`.

/// The character formatting the model keeps: what a run carries, and what every reader takes
/// from its format's character shapes (HWP 5.0 char shapes, OWPML `charPr`, HWP 3.x).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CharFormat {
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    pub superscript: bool,
    pub subscript: bool,
}
