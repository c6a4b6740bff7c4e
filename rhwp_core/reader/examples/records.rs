//! Debug aid: list the records of one stream of an HWP 5.0 file.
//! `cargo run --example records -- FILE [STREAM]` (default `BodyText/Section0`).
// A developer tool over trusted inputs: a failed unwrap stops it with the reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use rhwp_reader::hwp5::{container, record};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: records FILE [STREAM]");
        std::process::exit(2);
    };
    let stream = args
        .get(2)
        .map(String::as_str)
        .unwrap_or("BodyText/Section0");
    let bytes = std::fs::read(path).expect("read file");
    let run = || -> rhwp_reader::Result<()> {
        let mut c = container::Container::open(&bytes, Default::default())?;
        let header = container::FileHeader::parse(&c.read_raw("FileHeader")?)?;
        let data = c.read_stream(stream, header.compressed)?;
        for r in record::frame(&data, u64::MAX)? {
            let d = r.data(&data);
            let id = if r.tag == record::tag::CTRL_HEADER || r.tag == record::tag::SHAPE_COMPONENT {
                String::from_utf8_lossy(&record::ctrl_id(d)).into_owned()
            } else {
                String::new()
            };
            let hex: String = d.iter().take(48).map(|b| format!("{b:02x}")).collect();
            println!(
                "{}{} len={} {id} {hex}",
                "  ".repeat(r.level as usize),
                r.tag,
                r.len
            );
            if r.tag == record::tag::PARA_LINE_SEG && std::env::var_os("LINES").is_some() {
                for seg in d.chunks_exact(36) {
                    let v: Vec<i64> = seg
                        .chunks_exact(4)
                        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64)
                        .collect();
                    println!(
                        "{}  line start={} vpos={} h={} colx={} width={} flags={:#x}",
                        "  ".repeat(r.level as usize),
                        v[0],
                        v[1],
                        v[2],
                        v[6],
                        v[7],
                        v[8]
                    );
                }
            }
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("{}: {}", e.code.as_str(), e.message);
    }
}
