//! Render one page of a document: `cargo run --release --example render -- FILE PAGE OUT.(svg|png) [FONT_DIR...]`.
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: render FILE PAGE OUT.svg|OUT.png [FONT_DIR...]");
        std::process::exit(2);
    }
    let bytes = std::fs::read(&args[1]).unwrap_or_else(|e| panic!("{}: {e}", args[1]));
    let page: u32 = args[2].parse().unwrap_or(1);
    let mut dirs: Vec<PathBuf> = args[4..].iter().map(PathBuf::from).collect();
    if dirs.is_empty() {
        dirs.push(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../rhwp_mcp_tools_render/src/rhwp_mcp_tools_render/fonts"),
        );
    }
    let format = if args[3].ends_with(".png") {
        rhwp_reader::render::Format::Png {
            dpi: 96,
            max_side: None,
        }
    } else {
        rhwp_reader::render::Format::Svg
    };
    let started = std::time::Instant::now();
    match rhwp_reader::render::render_page(
        &bytes,
        &rhwp_reader::Options::default(),
        page,
        format,
        &dirs,
    ) {
        Ok(r) => {
            eprintln!("page {page} of {} in {:?}", r.page_count, started.elapsed());
            std::fs::write(&args[3], r.bytes).unwrap_or_else(|e| panic!("{}: {e}", args[3]));
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
