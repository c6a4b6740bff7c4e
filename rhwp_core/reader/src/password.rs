//! The password a caller gives to open a protected document (HWPX AES-256-CBC with PBKDF2,
//! HWP 3.x and HWP 5.0 encryption; a missing or wrong one is `password_required`).
//!
//! It is held only as long as the read that needs it and never shown: `Debug` prints a
//! placeholder, no error message quotes it (each format's decryption says "the password is
//! wrong", never which), and its bytes are overwritten when it is dropped.

use std::fmt;

#[derive(Clone, Default, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    pub fn new(password: impl Into<String>) -> Self {
        Password(password.into())
    }

    /// The password as typed (UTF-8), the form HWP 5.0 and HWPX derive their keys from.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The password as text, for schemes that derive their keys from another encoding
    /// (HWP 3.x: UTF-16LE).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Password {
    fn from(password: &str) -> Self {
        Password::new(password)
    }
}

impl From<String> for Password {
    fn from(password: String) -> Self {
        Password::new(password)
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

impl Drop for Password {
    fn drop(&mut self) {
        // Best effort: the heap copy we own is zeroed (copies the caller made are theirs).
        let mut bytes = std::mem::take(&mut self.0).into_bytes();
        bytes.iter_mut().for_each(|b| *b = 0);
        std::hint::black_box(&bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_password() {
        let p = Password::from("s3cret-비밀");
        assert_eq!(format!("{p:?}"), "Password(<redacted>)");
        let options = crate::Options {
            password: Some(p.clone()),
            ..crate::Options::default()
        };
        let shown = format!("{options:?} {options:#?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!(p.as_bytes(), "s3cret-비밀".as_bytes());
    }
}
