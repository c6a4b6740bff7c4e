//! HWPX's bin data: the zip entry of that name. The model lists the manifest's `href`
//! (`BinData/image1.png`); the same name without or with the `BinData/` folder, or under
//! `Contents/`, is accepted too, as the package reader does. Only bin data is handed out
//! (entries under `BinData/`, or pictures the manifest lists elsewhere), never the package's
//! XML parts, and a password-protected package is refused rather than read as ciphertext.

use super::package::{self, Package};
use crate::common::bin_data::{media_type, Lookup};
use crate::{Error, Options, Result};

/// The folder HWPX packages keep bin data in.
const BIN_DIR: &str = "BinData/";

pub fn item(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    let mut pkg = Package::open_with(bytes, options)?;
    package::check_is_hwpx(&mut pkg)?;
    let entries: Vec<String> = pkg
        .names()
        .into_iter()
        .filter(|n| !n.ends_with('/'))
        .collect();
    let bare = name.trim_start_matches(['/', '\\']);
    let mut candidates = vec![name.to_string(), bare.to_string()];
    match bare.strip_prefix(BIN_DIR) {
        Some(inside) => candidates.push(inside.to_string()),
        None => candidates.push(format!("{BIN_DIR}{bare}")),
    }
    candidates.push(format!("Contents/{bare}"));
    let found = candidates
        .iter()
        .find_map(|c| entries.iter().find(|e| *e == c))
        .or_else(|| {
            candidates
                .iter()
                .find_map(|c| entries.iter().find(|e| e.eq_ignore_ascii_case(c)))
        })
        .cloned();
    // Only bin data, never the package's own parts: `name` is untrusted.
    let mut listed: Option<Vec<String>> = None;
    if let Some(entry) = found {
        if is_bin_entry(&entry) || manifest_images(&mut pkg, options, &mut listed).contains(&entry)
        {
            let Some(data) = pkg.read(&entry)? else {
                return Err(Error::corrupt(format!(
                    "{entry}: listed by the zip directory but unreadable"
                )));
            };
            // A password-protected package reads as ciphertext: say so instead of handing it out.
            if media_type(&data).is_none() && package::is_encrypted(&mut pkg)? {
                return Err(Error::password_required(
                    "the HWPX document is password-protected (its parts are encrypted)",
                ));
            }
            return Ok(Lookup::Found { name: entry, data });
        }
    }
    if is_outside_path(name) {
        // The model lists a manifest item whose href is a path on the author's machine.
        return Ok(Lookup::Linked {
            target: name.to_string(),
        });
    }
    let images = manifest_images(&mut pkg, options, &mut listed);
    Ok(Lookup::Unknown {
        stored: entries
            .into_iter()
            .filter(|e| is_bin_entry(e) || images.contains(e))
            .collect(),
    })
}

/// Entries under a `BinData/` folder (at the top, as Hancom writes them, or deeper).
fn is_bin_entry(entry: &str) -> bool {
    entry.starts_with(BIN_DIR) || entry.contains("/BinData/")
}

/// The package paths of the manifest's pictures (media type `image/*`), which the model lists
/// as bin data wherever they lie; read once, on first need. An unreadable manifest lists none.
fn manifest_images<'l>(
    pkg: &mut Package<'_>,
    options: &Options,
    listed: &'l mut Option<Vec<String>>,
) -> &'l [String] {
    listed.get_or_insert_with(|| {
        let Ok(Some(hpf)) = pkg.read(package::CONTENT_HPF) else {
            return Vec::new();
        };
        let Ok(doc) = super::content::parse(&hpf, &options.limits) else {
            return Vec::new();
        };
        doc.manifest
            .into_iter()
            .filter(|item| item.media_type.starts_with("image/"))
            .flat_map(|item| [format!("Contents/{}", item.href), item.href])
            .collect()
    })
}

/// A path no package entry can have (`Package::open` refuses such entries): absolute, with a
/// drive letter, or a UNC share.
fn is_outside_path(name: &str) -> bool {
    let b = name.as_bytes();
    name.starts_with("\\\\")
        || name.starts_with('/')
        || (b.len() >= 3
            && b[1] == b':'
            && b[0].is_ascii_alphabetic()
            && matches!(b[2], b'\\' | b'/'))
}
