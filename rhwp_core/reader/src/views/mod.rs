//! The views rendered natively from the model: Markdown (`markdown`, its escaping and inline
//! delimiters in `markdown_inline`) and HTML (`html`), whose blocks are written by the renderer
//! of the HTML fragments Markdown uses for complex tables (`html_fragment`); equation scripts as
//! LaTeX (`equation`), headings found by chapter number (`headings`), what they share
//! (`common`); Python's string rules are `crate::common::chars`. They reproduce
//! `rhwp_core.views` byte for byte.

mod common;
mod equation;
mod headings;
mod html;
mod html_fragment;
mod markdown;
mod markdown_inline;

pub use equation::to_latex;
pub use headings::{heading_levels, outline_headings, HeadingAt};
pub use html::{render_html, render_html_with_levels};
pub use markdown::{render_block_markdown, render_markdown, render_markdown_with_levels};
