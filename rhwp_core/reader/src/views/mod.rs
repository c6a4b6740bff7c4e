//! The views rendered natively from the model: Markdown (`markdown`, its escaping and inline
//! delimiters in `markdown_inline`) and HTML (`html`), whose blocks are written by the renderer
//! of the HTML fragments Markdown uses for complex tables (`html_fragment`), and what they share
//! (`common`); equations show the LaTeX the model carries (`crate::common::equation`). They reproduce `rhwp_core.views` byte
//! for byte. Below them: the headings (`crate::outline`), the text (`crate::text`) and Python's
//! string rules (`crate::common::chars`).

mod common;
mod html;
mod html_fragment;
mod markdown;
mod markdown_inline;

pub use crate::outline::{heading_levels, outline_headings, HeadingAt};
pub use html::{render_html, render_html_with_levels};
pub use markdown::{
    render_block_markdown, render_block_markdown_on_pages, render_markdown,
    render_markdown_with_levels,
};
