//! The preview 한글 saves in an HWP 5.0 document (the `PrvImage` stream: PNG, GIF or BMP), written
//! to a file, for `benches/preview_bench.py`: `cargo run --release --example preview -- IN.hwp OUT`.

use rhwp_reader::common::compound::Compound;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(input), Some(output)) = (args.get(1), args.get(2)) else {
        return Err("usage: preview IN.hwp OUT".into());
    };
    let bytes = std::fs::read(input)?;
    let compound = Compound::open(&bytes, 1 << 16)?;
    let image = compound.read_stream("PrvImage")?;
    std::fs::write(output, image)?;
    Ok(())
}
