//! A model value read when first asked for, not while the document is read.

use serde::{Serialize, Serializer};
use std::sync::{Arc, OnceLock};

/// A value known when reading, or read from what the reader kept when first asked for (once;
/// the read cannot fail: it gives `T::default()` for "unknown"). Serializes as the value.
#[derive(Clone, Default)]
pub struct Deferred<T> {
    value: OnceLock<T>,
    read: Option<Arc<dyn Fn() -> T + Send + Sync>>,
}

impl<T: Default> Deferred<T> {
    pub fn known(value: T) -> Self {
        Deferred {
            value: OnceLock::from(value),
            read: None,
        }
    }

    pub fn when_asked(read: impl Fn() -> T + Send + Sync + 'static) -> Self {
        Deferred {
            value: OnceLock::new(),
            read: Some(Arc::new(read)),
        }
    }

    pub fn get(&self) -> &T {
        self.value
            .get_or_init(|| self.read.as_ref().map(|read| read()).unwrap_or_default())
    }
}

impl<T: Default + std::fmt::Debug> std::fmt::Debug for Deferred<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl<T: Default + Serialize> Serialize for Deferred<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn read_once_when_first_asked_for() {
        let reads = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&reads);
        let v = Deferred::when_asked(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            "5.1.1.0".to_string()
        });
        assert_eq!(reads.load(Ordering::SeqCst), 0);
        assert_eq!(v.get(), "5.1.1.0");
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"5.1.1.0\"");
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        assert_eq!(Deferred::<String>::default().get(), "");
        assert_eq!(Deferred::known(7u32).get(), &7);
    }
}
