//! Hyperlink fields: `fieldBegin` of type HYPERLINK, its `Command` parameter
//! (the target, captured as text), and `fieldEnd`; the text between them is
//! given the link.

use super::{Capture, Frame, Parser};
use crate::hwpx::xml::{attr, Tag};

impl Parser<'_> {
    #[inline]
    pub(super) fn field_begin(&mut self, e: &Tag<'_, '_>, depth: u32) {
        if attr(e, "type").as_deref() == Some("HYPERLINK") {
            let id = attr(e, "id").map(|s| s.into_owned());
            self.push(depth, Frame::Field { id, command: None });
        }
    }

    #[inline]
    pub(super) fn string_param(&mut self, e: &Tag<'_, '_>, depth: u32) {
        if self.field_open() && attr(e, "name").as_deref() == Some("Command") {
            self.push(depth, Frame::Capture(Capture::LinkCommand, String::new()));
        }
    }

    #[inline]
    pub(super) fn field_end(&mut self, e: &Tag<'_, '_>) {
        if let Some((id, _)) = &self.link {
            let begin = attr(e, "beginIDRef");
            if id.is_none() || begin.is_none() || begin.as_deref() == id.as_deref() {
                self.link = None;
            }
        }
    }

    fn field_open(&self) -> bool {
        self.stack
            .iter()
            .rev()
            .take(3)
            .any(|(_, f)| matches!(f, Frame::Field { .. }))
    }

    #[inline]
    pub(super) fn close_field(&mut self, id: Option<String>, command: Option<String>) {
        if let Some(target) = command.as_deref().and_then(link_target) {
            self.link = Some((id, target));
        }
    }
}

/// The target of a hyperlink field from its `Command` parameter, which
/// reads `target;flags...` with `\` escaping `:` and `;` inside the target.
fn link_target(command: &str) -> Option<String> {
    let mut out = crate::field::unescaped_target(command);
    // Hancom appends `|-` style suffixes to some targets.
    if let Some(i) = out.find('|') {
        out.truncate(i);
    }
    let out = out.trim().to_string();
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_targets() {
        assert_eq!(
            link_target("http\\://www.hancom.com;1;0;0;").as_deref(),
            Some("http://www.hancom.com")
        );
        assert_eq!(
            link_target("www.daum.net|-;1;0;0").as_deref(),
            Some("www.daum.net")
        );
        assert_eq!(link_target(";1;0"), None);
    }
}
