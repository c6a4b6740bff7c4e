//! One error vocabulary for both readers. Each error carries a stable code
//! (DESIGN §4) and a suggestion the user can act on; the Python layer turns
//! them into `rhwp_core.HwpError` subclasses with the same two attributes.

use std::fmt;

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
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnsupportedFormat => "unsupported_format",
            ErrorCode::PasswordRequired => "password_required",
            ErrorCode::CorruptDocument => "corrupt_document",
            ErrorCode::TooLarge => "too_large",
        }
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
        Error {
            code: ErrorCode::PasswordRequired,
            message: message.into(),
            suggestion:
                "The document is protected by a password: pass it as the `password` argument \
                         (it is used to open the document only, never stored or echoed)."
                    .into(),
        }
    }

    pub fn corrupt(message: impl Into<String>) -> Self {
        Error {
            code: ErrorCode::CorruptDocument,
            message: message.into(),
            suggestion: "The file is damaged or incomplete. Open it in Hancom Office (or another HWP viewer) \
                         and save it again, or obtain an intact copy."
                .into(),
        }
    }

    pub fn too_large(message: impl Into<String>) -> Self {
        Error {
            code: ErrorCode::TooLarge,
            message: message.into(),
            suggestion: "The document exceeds the reader's safety limits (decompressed size, record count or \
                         nesting depth). If it is a genuine document, split it into smaller files."
                .into(),
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
