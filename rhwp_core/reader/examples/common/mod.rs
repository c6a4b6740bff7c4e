//! What the examples share: turning their arguments into a list of documents.

use std::path::PathBuf;

/// The files named, with each folder replaced by its `.hwpx` files in name order.
pub fn hwpx_files<S: AsRef<str>>(inputs: impl IntoIterator<Item = S>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for input in inputs {
        let path = PathBuf::from(input.as_ref());
        match std::fs::read_dir(&path) {
            Ok(entries) => {
                let mut found: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.extension()
                            .is_some_and(|x| x.eq_ignore_ascii_case("hwpx"))
                    })
                    .collect();
                found.sort();
                files.extend(found);
            }
            Err(_) => files.push(path),
        }
    }
    files
}
