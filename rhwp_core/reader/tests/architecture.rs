//! The reader's import graph, read from its source: each top-level module of `src/` (a file
//! `src/X.rs` or a folder `src/X/`) and the top-level modules it names through `crate::…` or
//! `super::…` paths. Held to three rules:
//!
//! - no cycle among the top-level modules;
//! - a format (the modules the table in `src/formats.rs` lists) is named by `formats` alone:
//!   no shared module (common, model, owpml, text, views...) and no other format names one;
//! - no module names the crate root's own items (`lib.rs` is the top: it declares the modules
//!   and re-exports; `crate::Options` and the like count as the module they come from).
//!
//! Read outside tests: comments and string literals are dropped, and so are `#[cfg(test)]`
//! items and the files only tests compile (`tests.rs`, a `tests/` folder), because test code is
//! not shipped and may reach anywhere to build its inputs. Code behind the `fuzzing` feature is
//! read: the fuzz layers in the format folders are held to the rules like the rest.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.map(|e| e.path()).unwrap_or_default())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments and without the contents of string and character literals.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'r' if matches!(b.get(i + 1), Some(b'#' | b'"'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let open = i + 1 + hashes;
                if b.get(open) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let mut j = open + 1;
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                out.push_str("\"\"");
                i = j + close.len();
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}', '"') or a lifetime ('a).
                let rest = &text[i + 1..];
                let len = if rest.starts_with('\\') {
                    rest.find('\'').map(|end| end + 2)
                } else {
                    rest.chars()
                        .next()
                        .filter(|c| rest[c.len_utf8()..].starts_with('\''))
                        .map(|c| c.len_utf8() + 2)
                };
                match len {
                    Some(len) => {
                        out.push_str("' '");
                        i += len;
                    }
                    None => {
                        out.push('\'');
                        i += 1;
                    }
                }
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// The code without `#[cfg(test)]` items (a `mod … { … }` or any item up to its closing brace
/// or semicolon).
fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (k, c) in item.char_indices().skip("#[cfg(test)]".len()) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The first segment of each path that follows `prefix_end` (`name` or `{a, b::c}`).
fn first_segments(after: &str) -> Vec<String> {
    let after = after.trim_start();
    if let Some(group) = after.strip_prefix('{') {
        let mut depth = 1;
        let mut end = group.len();
        for (k, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let mut names = Vec::new();
        let mut depth = 0;
        let mut start = 0;
        let inner = &group[..end];
        for (k, c) in inner
            .char_indices()
            .chain(std::iter::once((inner.len(), ',')))
        {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    let part = inner[start..k].trim();
                    let name: String = part.chars().take_while(|&c| is_ident(c)).collect();
                    if !name.is_empty() && name != "self" {
                        names.push(name);
                    }
                    start = k + 1;
                }
                _ => {}
            }
        }
        names
    } else {
        let name: String = after.chars().take_while(|&c| is_ident(c)).collect();
        if name.is_empty() {
            Vec::new()
        } else {
            vec![name]
        }
    }
}

/// The module path of a file below `src/` (`hwp5/body.rs` → [hwp5, body]; `hwp5/mod.rs` →
/// [hwp5]; `lib.rs` → []).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

struct Graph {
    modules: BTreeSet<String>,
    /// (from, to) → the files that name `to` from `from`.
    arrows: BTreeMap<(String, String), BTreeSet<String>>,
    formats: BTreeSet<String>,
}

fn graph() -> Graph {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_path(f.strip_prefix(&root).ok()?).first().cloned())
        .collect();
    let lib = std::fs::read_to_string(root.join("lib.rs")).expect("lib.rs");
    // Names lib.rs re-exports: `pub use module::{A, B}` → A, B come from `module`.
    let mut reexported: BTreeMap<String, String> = BTreeMap::new();
    for line in code_only(&lib).lines() {
        if let Some(rest) = line.trim().strip_prefix("pub use ") {
            let (module, names) = rest.split_once("::").unwrap_or((rest, ""));
            for name in first_segments(names).into_iter().chain(
                names
                    .split("::")
                    .last()
                    .map(|n| n.trim_end_matches(';').to_string()),
            ) {
                reexported.insert(name, module.to_string());
            }
        }
    }
    let table = std::fs::read_to_string(root.join("formats.rs")).expect("formats.rs");
    let table = code_only(&table);
    let start = table.find("FORMATS").expect("the FORMATS table");
    let end = start
        + table[start..]
            .find("];")
            .expect("the end of the FORMATS table");
    let formats: BTreeSet<String> = table[start..end]
        .split("&crate::")
        .skip(1)
        .filter_map(|entry| entry.split("::").next().map(str::to_string))
        .collect();
    assert!(
        formats.len() >= 4,
        "formats read from the table: {formats:?}"
    );

    let mut arrows: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&root).expect("below src");
        if rel.iter().any(|p| p == "tests" || p == "tests.rs") {
            continue;
        }
        let path = module_path(rel);
        let from = path.first().cloned().unwrap_or_else(|| "lib".into());
        let text = std::fs::read_to_string(file).expect("source");
        let code = without_test_items(&code_only(&text));
        let shown = rel.display().to_string();
        let mut at = 0;
        while let Some(found) = code[at..].find(['c', 's']) {
            let i = at + found;
            at = i + 1;
            if i > 0 && code[..i].ends_with(|c: char| is_ident(c) || c == ':') {
                continue;
            }
            let tail = &code[i..];
            // The module the path starts from, then what follows it.
            let (mut base, mut rest): (Vec<String>, &str) =
                if let Some(r) = tail.strip_prefix("crate::") {
                    (Vec::new(), r)
                } else if tail.starts_with("super::") {
                    let mut base = path.clone();
                    let mut r = tail;
                    while let Some(next) = r.strip_prefix("super::") {
                        base.pop();
                        r = next;
                    }
                    (base, r)
                } else {
                    continue;
                };
            if let Some(r) = rest.strip_prefix("self::") {
                rest = r;
            }
            let targets: Vec<String> = if base.is_empty() {
                first_segments(rest)
                    .into_iter()
                    .map(|name| {
                        if modules.contains(&name) {
                            name
                        } else {
                            reexported
                                .get(&name)
                                .cloned()
                                .unwrap_or_else(|| "lib".into())
                        }
                    })
                    .collect()
            } else {
                vec![base.remove(0)]
            };
            for to in targets {
                if to != from {
                    arrows
                        .entry((from.clone(), to))
                        .or_default()
                        .insert(shown.clone());
                }
            }
        }
    }
    Graph {
        modules,
        arrows,
        formats,
    }
}

fn cycles(g: &Graph) -> Vec<Vec<String>> {
    let next = |m: &str| -> Vec<String> {
        g.arrows
            .keys()
            .filter(|(from, _)| from == m)
            .map(|(_, to)| to.clone())
            .collect()
    };
    let mut found = Vec::new();
    for start in &g.modules {
        // Paths from `start` back to itself through modules after it (each cycle once).
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((m, trail)) = stack.pop() {
            for to in next(&m) {
                if &to == start {
                    found.push(trail.clone());
                } else if to > *start && !trail.contains(&to) {
                    let mut longer = trail.clone();
                    longer.push(to.clone());
                    stack.push((to, longer));
                }
            }
        }
    }
    found
}

fn arrow_list(g: &Graph, keep: impl Fn(&str, &str) -> bool) -> Vec<String> {
    g.arrows
        .iter()
        .filter(|((from, to), _)| keep(from, to))
        .map(|((from, to), files)| format!("{from} -> {to} ({files:?})"))
        .collect()
}

#[test]
fn no_cycle_among_top_level_modules() {
    let g = graph();
    let found = cycles(&g);
    assert!(found.is_empty(), "import cycles: {found:?}");
}

#[test]
fn only_the_table_names_a_format() {
    let g = graph();
    let wrong = arrow_list(&g, |from, to| g.formats.contains(to) && from != "formats");
    assert!(
        wrong.is_empty(),
        "a format is named by a module other than the table of formats (a shared module \
         must not know the formats, nor a format another): {wrong:?}"
    );
}

#[test]
fn nothing_names_the_crate_root() {
    let g = graph();
    let wrong = arrow_list(&g, |_, to| to == "lib");
    assert!(wrong.is_empty(), "arrows up to lib.rs: {wrong:?}");
}

#[test]
fn the_graph_is_read() {
    // The reading itself: the arrows every reader has, and test code left out.
    let g = graph();
    for (from, to) in [
        ("hwp5", "model"),
        ("hwpx", "owpml"),
        ("hwpml", "owpml"),
        ("views", "outline"),
        ("formats", "hwp3"),
    ] {
        assert!(
            g.arrows.contains_key(&(from.to_string(), to.to_string())),
            "{from} -> {to} not found in {:?}",
            g.arrows.keys().collect::<Vec<_>>()
        );
    }
    assert_eq!(
        g.formats,
        ["hwp3", "hwp5", "hwpml", "hwpx"].map(String::from).into(),
    );
    // hwp3's tests read whole files through `crate::read`: not an arrow.
    assert!(!g
        .arrows
        .contains_key(&("hwp3".to_string(), "lib".to_string())));
    assert_eq!(code_only("a(\"crate::x\") // crate::y\nb"), "a(\"\") \nb");
    assert_eq!(
        without_test_items("use crate::a;\n#[cfg(test)]\nmod tests { use crate::b; }\nfn c() {}"),
        "use crate::a;\n\nfn c() {}"
    );
}
