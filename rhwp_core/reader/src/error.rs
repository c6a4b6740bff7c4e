//! The error vocabulary of `rhwp_core`, said once: every error carries a stable code and a
//! suggestion the user can act on. A failed MCP tool call shows both (`{"error": code,
//! "message": ..., "suggestion": ...}`), so the codes are a public contract: a client branches on
//! them. [`VOCABULARY`] is the one table of codes, their default suggestions and the
//! `rhwp_core` exception class that carries each; the Python layer builds its exception classes
//! from it (exported as `rhwp_core._native.ERROR_CODES`) instead of restating it.

use std::fmt;

/// What went wrong, as a client sees it. The order is [`VOCABULARY`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// Not a document we read: HWP 1.x/2.x, DRM or an encryption scheme we cannot open, other files.
    UnsupportedFormat,
    /// Password-protected, and opened without its password or with a wrong one.
    PasswordRequired,
    /// Truncated, bit-damaged, or internally inconsistent.
    CorruptDocument,
    /// A bound from `limits` was exceeded (decompression bomb, absurd nesting, record counts).
    TooLarge,
    /// A request the document cannot answer as asked: a bin-data name it does not hold, pages it
    /// does not have, a malformed argument. Raised by the layers above the readers.
    InvalidInput,
    /// The file to read does not exist. Raised where files are opened (the Python layer).
    FileNotFound,
    /// The operating system refused to read the file. Raised where files are opened.
    PermissionDenied,
}

/// One row of [`VOCABULARY`].
#[derive(Debug)]
pub struct ErrorCodeInfo {
    pub code: ErrorCode,
    /// The code as clients see it.
    pub name: &'static str,
    /// What to do about it when the error has nothing more specific to say.
    pub suggestion: &'static str,
    /// The `rhwp_core` exception class (Python) that carries this code.
    pub python_class: &'static str,
}

/// Every code, in [`ErrorCode`]'s order: the single source of the codes and their default
/// suggestions (the reader's constructors below and `rhwp_core.errors` both take them from here).
pub const VOCABULARY: [ErrorCodeInfo; 7] = [
    ErrorCodeInfo {
        code: ErrorCode::UnsupportedFormat,
        name: "unsupported_format",
        suggestion: "Pass an HWP 5.0 or 3.x (.hwp), HWPX (.hwpx) or HWPML (.hml) file; other formats \
                     (PDF, DOCX, images, text) are not read here.",
        python_class: "UnsupportedFormatError",
    },
    ErrorCodeInfo {
        code: ErrorCode::PasswordRequired,
        name: "password_required",
        suggestion: "The document is protected by a password: pass it as the `password` argument \
                     (it is used to open the document only, never stored or echoed).",
        python_class: "PasswordRequiredError",
    },
    ErrorCodeInfo {
        code: ErrorCode::CorruptDocument,
        name: "corrupt_document",
        suggestion: "The file is damaged or incomplete. Open it in Hancom Office (or another HWP viewer) \
                     and save it again, or obtain an intact copy.",
        python_class: "CorruptDocumentError",
    },
    ErrorCodeInfo {
        code: ErrorCode::TooLarge,
        name: "too_large",
        suggestion: "The document exceeds the reader's safety limits (decompressed size, record count or \
                     nesting depth). If it is a genuine document, split it into smaller files.",
        python_class: "TooLargeError",
    },
    ErrorCodeInfo {
        code: ErrorCode::InvalidInput,
        name: "invalid_input",
        suggestion: "Check the arguments.",
        python_class: "InvalidRequestError",
    },
    ErrorCodeInfo {
        code: ErrorCode::FileNotFound,
        name: "file_not_found",
        suggestion: "Check the path. It must name a file on the machine where rhwp-mcp runs; a file that \
                     lives only on the client's side (an upload, an attachment) has to be saved to this \
                     machine first.",
        python_class: "DocumentNotFoundError",
    },
    ErrorCodeInfo {
        code: ErrorCode::PermissionDenied,
        name: "permission_denied",
        suggestion: "Make the file readable by the user rhwp-mcp runs as, or copy it somewhere readable.",
        python_class: "DocumentPermissionError",
    },
];

impl ErrorCode {
    /// This code's row of [`VOCABULARY`].
    pub fn info(self) -> &'static ErrorCodeInfo {
        &VOCABULARY[self as usize]
    }

    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    /// What to do about it when the error has nothing more specific to say.
    pub fn default_suggestion(self) -> &'static str {
        self.info().suggestion
    }
}

#[derive(Debug, Clone)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub suggestion: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn unsupported(message: impl Into<String>, suggestion: impl Into<String>) -> Self {
        Error {
            code: ErrorCode::UnsupportedFormat,
            message: message.into(),
            suggestion: suggestion.into(),
        }
    }

    /// A password-protected document opened without its password, or with a wrong one. The
    /// message says which; it never quotes the password.
    pub fn password_required(message: impl Into<String>) -> Self {
        Error::with_default_suggestion(ErrorCode::PasswordRequired, message)
    }

    pub fn corrupt(message: impl Into<String>) -> Self {
        Error::with_default_suggestion(ErrorCode::CorruptDocument, message)
    }

    pub fn too_large(message: impl Into<String>) -> Self {
        Error::with_default_suggestion(ErrorCode::TooLarge, message)
    }

    fn with_default_suggestion(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            suggestion: code.default_suggestion().into(),
        }
    }

    /// Prefix the message with where the error happened, keeping code and suggestion.
    pub fn context(mut self, what: &str) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_is_its_own_row_of_the_vocabulary() {
        for (i, row) in VOCABULARY.iter().enumerate() {
            assert_eq!(row.code as usize, i, "{}", row.name);
            assert_eq!(row.code.as_str(), row.name);
        }
        let mut names: Vec<_> = VOCABULARY.iter().map(|v| v.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), VOCABULARY.len());
    }

    #[test]
    fn the_constructors_take_the_vocabularys_suggestions() {
        assert_eq!(
            Error::corrupt("x").suggestion,
            ErrorCode::CorruptDocument.default_suggestion()
        );
        assert_eq!(
            Error::too_large("x").suggestion,
            ErrorCode::TooLarge.default_suggestion()
        );
        assert_eq!(
            Error::password_required("x").suggestion,
            ErrorCode::PasswordRequired.default_suggestion()
        );
    }
}
