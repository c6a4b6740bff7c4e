//! HWP 3.x's bin data: embedded pictures kept in the extra blocks after the paragraph list
//! (`super::bin_item` finds them by the name the model gives them).

use crate::common::bin_data::Lookup;
use crate::{Options, Result};

pub fn item(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    let (doc, data) = super::bin_item(bytes, name, options)?;
    Ok(match data {
        Some(data) => Lookup::Found {
            name: name.to_string(),
            data,
        },
        None => Lookup::Unknown {
            stored: doc.bin_data.into_iter().map(|b| b.name).collect(),
        },
    })
}
