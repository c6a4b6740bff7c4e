//! A real HWP 5.0 document (a fixture) with its compound file damaged the ways 한글 reads
//! past: a FAT that points at a sector twice, header counts that disagree with the DIFAT, a
//! last sector cut short. Each reads with the intact file's text and a warning; a chain that
//! cannot be followed is `corrupt_document`; and no change to the FAT's entries makes the
//! reader panic.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::{read, summary, text, ErrorCode, Options};
use std::io::Cursor;

mod common;
use common::{fat_entry_offset, stream_entry, u32_at, XorShift};

const END_OF_CHAIN: u32 = 0xFFFF_FFFE;
const FREE_SECTOR: u32 = 0xFFFF_FFFF;

/// A 51 KB document written by 한글: 512-byte sectors, two of them free, a mini stream and a
/// 36 KB section in the regular FAT.
fn intact() -> Vec<u8> {
    std::fs::read(common::fixtures().join("hwp/rhwp-nested-cell-pagination.hwp")).unwrap()
}

fn set_u32(file: &mut [u8], at: usize, value: u32) {
    file[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn set_fat(file: &mut [u8], sector: u32, next: u32) {
    let at = fat_entry_offset(file, sector);
    set_u32(file, at, next);
}

/// The sectors of the chain from `start`, `count` of them.
fn chain(file: &[u8], start: u32, count: usize) -> Vec<u32> {
    let mut out = vec![start];
    while out.len() < count {
        out.push(u32_at(file, fat_entry_offset(file, *out.last().unwrap())));
    }
    out
}

/// The sectors of the regular-FAT stream `name` (the mini stream is the root entry's).
fn stream_sectors(file: &[u8], name: &str) -> Vec<u32> {
    let (start, size) = stream_entry(file, name);
    chain(file, start, size.div_ceil(512) as usize)
}

fn file_sectors(file: &[u8]) -> u32 {
    ((file.len() - 512).div_ceil(512)) as u32
}

/// The text the damaged file reads with (against the intact one's) and its warnings.
fn reads_as_intact(damaged: &[u8], warning: &str) {
    let options = Options::default();
    let expected = text::document_text(&read(&intact(), &options).unwrap(), true);
    let doc = read(damaged, &options).unwrap_or_else(|e| panic!("refused: {e}"));
    assert_eq!(text::document_text(&doc, true), expected);
    let warnings = summary::summarize(&doc).warnings;
    assert!(
        warnings.iter().any(|w| w.contains(warning)),
        "no warning saying {warning:?} in {warnings:?}"
    );
    // Strict reading (the tests' mode) refuses what was read past.
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    assert_eq!(
        read(damaged, &strict).unwrap_err().code,
        ErrorCode::CorruptDocument
    );
}

/// What the `cfb` crate, a strict reader, says of the file: the refusal this reader reads past.
fn strict_reader_refusal(file: &[u8]) -> String {
    cfb::CompoundFile::open(Cursor::new(file))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

#[test]
fn two_chains_merging_share_a_sector() {
    // The mini stream's last FAT entry, instead of ending its chain, runs into the section's
    // second sector: that sector is pointed to twice. Each stream is read along its own
    // chain, as far as its size.
    let mut file = intact();
    let mini = stream_sectors(&file, "Root Entry");
    let section = stream_sectors(&file, "Section0");
    set_fat(&mut file, *mini.last().unwrap(), section[1]);
    assert_eq!(
        strict_reader_refusal(&file),
        format!("Malformed FAT (sector {} pointed to twice)", section[1])
    );
    reads_as_intact(&file, &format!("points at sector {} twice", section[1]));
}

#[test]
fn two_chains_merging_in_the_mini_stream() {
    // The same in the mini FAT (streams under 4096 bytes): the summary stream's last mini
    // sector runs into the FileHeader's second one.
    let mut file = intact();
    let minifat = u32_at(&file, 0x3C);
    let mini_entry = |file: &[u8], index: u32| {
        let sector = chain(file, minifat, index as usize / 128 + 1)[index as usize / 128];
        (sector as usize + 1) * 512 + 4 * (index as usize % 128)
    };
    let mini_chain = |file: &[u8], name: &str| {
        let (start, size) = stream_entry(file, name);
        let mut out = vec![start];
        while out.len() < size.div_ceil(64) as usize {
            out.push(u32_at(file, mini_entry(file, *out.last().unwrap())));
        }
        out
    };
    let header = mini_chain(&file, "FileHeader");
    let summary = mini_chain(&file, "\u{5}HwpSummaryInformation");
    let at = mini_entry(&file, *summary.last().unwrap());
    set_u32(&mut file, at, header[1]);
    assert_eq!(
        strict_reader_refusal(&file),
        format!(
            "Malformed MiniFAT (mini sector {} pointed to twice)",
            header[1]
        )
    );
    reads_as_intact(
        &file,
        &format!("mini FAT points at mini sector {} twice", header[1]),
    );
}

#[test]
fn a_zero_filled_fat_points_at_sector_zero_twice() {
    // Writers that leave the FAT entries of unused sectors 0 instead of free: every free
    // sector "points at" sector 0 — the refusal seen on documents 한글 opens.
    let mut file = intact();
    let free: Vec<u32> = (0..file_sectors(&file))
        .filter(|&s| u32_at(&file, fat_entry_offset(&file, s)) == FREE_SECTOR)
        .collect();
    assert!(free.len() >= 2, "the fixture has free sectors");
    for &s in &free {
        set_fat(&mut file, s, 0);
    }
    assert_eq!(
        strict_reader_refusal(&file),
        "Malformed FAT (sector 0 pointed to twice)"
    );
    reads_as_intact(&file, "points at sector 0 twice");
}

#[test]
fn a_free_sector_pointing_into_a_stream() {
    let mut file = intact();
    let section = stream_sectors(&file, "Section0");
    let free = (0..file_sectors(&file))
        .find(|&s| u32_at(&file, fat_entry_offset(&file, s)) == FREE_SECTOR)
        .unwrap();
    set_fat(&mut file, free, section[3]);
    reads_as_intact(&file, &format!("points at sector {} twice", section[3]));
}

#[test]
fn header_counts_and_a_fat_that_disagree_with_the_file() {
    // More FAT sectors counted than the DIFAT lists (a missing entry).
    let mut file = intact();
    let declared = u32_at(&file, 0x2C);
    set_u32(&mut file, 0x2C, declared + 3);
    reads_as_intact(
        &file,
        &format!(
            "header counts {} FAT sectors, its DIFAT lists {declared}",
            declared + 3
        ),
    );
    // An extra DIFAT entry, past the end of the file.
    let mut file = intact();
    set_u32(&mut file, 0x4C + 4 * declared as usize, 40_000);
    reads_as_intact(&file, "its DIFAT lists");
    // A FAT that links sectors past the end of the file (written for a longer file, as if cut
    // after sectors no stream uses).
    let mut file = intact();
    for sector in file_sectors(&file)..file_sectors(&file) + 5 {
        set_fat(&mut file, sector, END_OF_CHAIN);
    }
    reads_as_intact(&file, "FAT links 5 sectors past the end of the file");
    // The DIFAT's last entry dropped: the FAT sectors before it still cover the file.
    let mut file = intact();
    assert!(declared >= 2 && file_sectors(&file) <= 128 * (declared - 1));
    set_u32(&mut file, 0x4C + 4 * (declared as usize - 1), FREE_SECTOR);
    reads_as_intact(&file, "its DIFAT lists");
}

#[test]
fn a_short_last_sector_reads_as_padded() {
    // The section's last sector holds its last bytes and then unused space: cut the file
    // after the section's end, inside that sector.
    let mut file = intact();
    let (_, size) = stream_entry(&file, "Section0");
    let last = *stream_sectors(&file, "Section0").last().unwrap();
    assert_eq!(last + 1, file_sectors(&file), "the section ends the file");
    let used = (size % 512) as usize;
    file.truncate((last as usize + 1) * 512 + used + 10);
    reads_as_intact(&file, "ends 160 bytes into its last 512-byte sector");
}

#[test]
fn a_chain_that_cannot_be_followed_is_refused() {
    let section = stream_sectors(&intact(), "Section0");
    let sectors = file_sectors(&intact());
    let cases: [(&str, u32, u32); 4] = [
        ("past the end", section[5], sectors + 7),
        ("ends early", section[5], END_OF_CHAIN),
        ("loops back", section[5], section[2]),
        ("free in the middle", section[5], FREE_SECTOR),
    ];
    for (what, sector, next) in cases {
        let mut file = intact();
        set_fat(&mut file, sector, next);
        let e = read(&file, &Options::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::CorruptDocument, "{what}: {e}");
        assert!(e.message.contains("Section0"), "{what}: {e}");
    }
    // The directory's own chain, past the end.
    let mut file = intact();
    let directory = u32_at(&file, 0x30);
    set_fat(&mut file, directory, sectors + 1);
    let e = read(&file, &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
}

#[test]
fn any_fat_damage_reads_or_is_a_typed_error() {
    // Property: whatever the FAT's entries say (markers, sectors in or past the file, the
    // sector itself, its neighbours, links between the streams' chains), reading gives a
    // document or a typed error, never a panic, and in time proportional to the file.
    let file = intact();
    let sectors = file_sectors(&file);
    let fat_len = 128 * u32_at(&file, 0x2C);
    let mut rng = XorShift(0x5EED_CFB5);
    let options = Options::default();
    let mut outcomes = [0usize; 2];
    for round in 0..600 {
        let mut damaged = file.clone();
        for _ in 0..=rng.below(3) {
            let sector = rng.below(fat_len as usize) as u32;
            let next = match rng.below(8) {
                0 => END_OF_CHAIN,
                1 => FREE_SECTOR,
                2 => 0xFFFF_FFFD, // the FAT's own marker
                3 => 0,
                4 => sector,
                5 => sector.wrapping_add(1),
                6 => sectors + rng.below(4) as u32,
                _ => rng.below(sectors as usize) as u32,
            };
            set_fat(&mut damaged, sector, next);
        }
        let started = std::time::Instant::now();
        let outcome = std::panic::catch_unwind(|| read(&damaged, &options));
        let Ok(result) = outcome else {
            panic!("round {round}: the reader panicked");
        };
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "round {round}: slow"
        );
        match result {
            Ok(doc) => {
                let _ = text::document_text(&doc, true);
                outcomes[0] += 1;
            }
            Err(e) => {
                assert!(
                    matches!(
                        e.code,
                        ErrorCode::CorruptDocument
                            | ErrorCode::TooLarge
                            | ErrorCode::UnsupportedFormat
                    ),
                    "round {round}: {e}"
                );
                outcomes[1] += 1;
            }
        }
    }
    // Both outcomes occur: the damage reaches the chains the reader follows.
    eprintln!("read {}, refused {}", outcomes[0], outcomes[1]);
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
}
