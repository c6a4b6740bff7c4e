//! What HWP 5.0 and HWPX share about fields: a hyperlink field's command string.
//!
//! Both formats store a hyperlink as `target;flags...`, with `\` escaping `:` and `;` inside the
//! target; each format then tidies the target its own way.

/// The raw target of a hyperlink command: up to the first unescaped `;`, `\` escapes removed.
pub(crate) fn unescaped_target(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            ';' => break,
            _ => out.push(c),
        }
    }
    out
}
