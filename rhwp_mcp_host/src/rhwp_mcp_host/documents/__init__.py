"""Where documents come from besides local files: data: URIs, uploads and downloads kept in a
private store and named by doc: handles (``store``), the built-in plugin that turns a call's
sources into local files (``sources``), and the guarded HTTP download (``fetch``)."""
