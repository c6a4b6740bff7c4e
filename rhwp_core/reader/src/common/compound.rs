//! The compound file (MS-CFB, "OLE2 structured storage") read from bytes in memory, as leniently
//! as 한글 reads it: each stream is read along its own sector chain, and what the format's
//! bookkeeping gets wrong around it is a warning, not a refusal —
//!
//! - a FAT that points at a sector twice (two chains merging, a free-sector list or a
//!   zero-filled FAT running into a stream): each stream still follows its own chain;
//! - header counts (FAT, mini FAT, DIFAT sectors) that disagree with the DIFAT or the file
//!   size, a DIFAT with entries past the end of the file or with missing ones: the FAT is what
//!   the DIFAT lists, as far as it covers the file;
//! - a file whose last sector is cut short: the missing bytes are read as zeros;
//! - a directory tree that reaches an entry twice or names one past its end: the link is
//!   dropped, every entry reached once is kept.
//!
//! Refused (`corrupt_document`) only when a chain cannot be followed: it loops, leaves the
//! file, or ends before its stream's size. The directory's chain is needed for everything; a
//! stream's chain only for that stream; the mini FAT's and the mini stream's only for the
//! streams under 4096 bytes. Every chain is followed at most once per read and never past the
//! file's own sector count, so the work is linear in the file.

use crate::error::{Error, Result};
use std::collections::HashMap;

pub const SIGNATURE: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
const HEADER_LEN: usize = 512;
/// Sector ids above this are markers (MS-CFB 2.1): end of chain, free, FAT, DIFAT.
const MAX_REGULAR_SECTOR: u32 = 0xFFFF_FFFA;
const END_OF_CHAIN: u32 = 0xFFFF_FFFE;
const FREE_SECTOR: u32 = 0xFFFF_FFFF;
/// A directory link that points nowhere.
const NO_ENTRY: u32 = 0xFFFF_FFFF;
const MINI_SECTOR_LEN: usize = 64;
/// Streams shorter than this live in the mini stream (MS-CFB 2.2: the cutoff is always 4096).
const MINI_STREAM_CUTOFF: u64 = 4096;
const DIR_ENTRY_LEN: usize = 128;
const HEADER_DIFAT_ENTRIES: usize = 109;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Storage,
    Stream,
    Root,
}

#[derive(Debug)]
struct Entry {
    name: String,
    kind: Kind,
    start: u32,
    size: u64,
    /// The entries of a storage (or the root), in the order the directory tree holds them.
    children: Vec<u32>,
}

/// The mini FAT and the regular sectors that hold the mini stream.
#[derive(Debug)]
struct Mini {
    fat: Vec<u32>,
    sectors: Vec<u32>,
    /// Bytes of the mini stream (the root entry's size).
    len: u64,
}

/// An opened compound file: its FAT, mini FAT and directory, read at open; streams are read on
/// demand.
#[derive(Debug)]
pub struct Compound<'a> {
    bytes: &'a [u8],
    sector_len: usize,
    num_sectors: u32,
    fat: Vec<u32>,
    /// The mini stream, or why the streams in it cannot be read.
    mini: std::result::Result<Mini, String>,
    /// Directory entries by stream id; `None` for empty or unknown ones.
    entries: Vec<Option<Entry>>,
    /// Each entry by its storage and its name's key (`name_key`).
    by_name: HashMap<(u32, String), u32>,
    warnings: Vec<String>,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).map_or(FREE_SECTOR, |s| {
        u32::from_le_bytes([s[0], s[1], s[2], s[3]])
    })
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from(u32_at(b, at)) | (u64::from(u32_at(b, at + 4)) << 32)
}

/// One bit per sector (or mini sector): a chain that reaches a sector twice loops.
struct Visited(Vec<u64>);

impl Visited {
    fn new(count: u32) -> Visited {
        Visited(vec![0; (count as usize).div_ceil(64)])
    }

    /// Marks `id`; false when it was marked already.
    fn first_visit(&mut self, id: u32) -> bool {
        let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
        match self.0.get_mut(word) {
            Some(w) if *w & bit == 0 => {
                *w |= bit;
                true
            }
            _ => false,
        }
    }
}

/// The chain from `start` in `table` (the FAT or the mini FAT): `want` sectors, or (`None`) all
/// of them to the end of the chain; each must be below `count` (inside the file or the mini
/// stream) and none may come twice.
fn follow(
    table: &[u32],
    start: u32,
    count: u32,
    want: Option<usize>,
) -> std::result::Result<Vec<u32>, String> {
    let mut chain = Vec::with_capacity(want.unwrap_or(0).min(count as usize));
    // A chain of unknown length is checked for loops as it goes (one bit per sector); one of
    // known length stops there, and a loop shows as a sector met twice (checked at the end, in
    // proportion to the chain, not to the file: a document has many short streams).
    let mut visited = want.is_none().then(|| Visited::new(count));
    let mut id = start;
    while want.is_none_or(|w| chain.len() < w) {
        if id == END_OF_CHAIN || (want.is_none() && id == FREE_SECTOR) {
            if let Some(w) = want {
                return Err(format!(
                    "its sector chain ends after {} of its {w} sectors",
                    chain.len()
                ));
            }
            return Ok(chain);
        }
        if id > MAX_REGULAR_SECTOR || id >= count {
            return Err(format!(
                "its sector chain leads to sector {id}, past the end ({count} sectors)"
            ));
        }
        if visited.as_mut().is_some_and(|v| !v.first_visit(id)) {
            return Err(format!("its sector chain loops back to sector {id}"));
        }
        chain.push(id);
        id = table.get(id as usize).copied().unwrap_or(END_OF_CHAIN);
    }
    let mut sorted = chain.clone();
    sorted.sort_unstable();
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(format!("its sector chain loops back to sector {}", pair[0]));
    }
    Ok(chain)
}

/// Sectors that two chains share, as a FAT (or the mini FAT) shows them: the first one it points
/// at from two places, and how many such second links it holds.
struct Shared {
    /// "sector" or "mini sector".
    unit: &'static str,
    first: u32,
    links: usize,
}

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "points at {} {} twice", self.unit, self.first)?;
        if self.links > 1 {
            write!(f, " ({} second links in all)", self.links)?;
        }
        f.write_str(": each stream is read along its own chain")
    }
}

/// The sectors `table` makes chains share, if any; links to `count` and past lead nowhere a chain
/// is read from.
fn shared_links(table: &[u32], count: u32, unit: &'static str) -> Option<Shared> {
    let mut pointed = Visited::new(count);
    let mut first = None;
    let mut links = 0usize;
    for &to in table {
        if to < count && !pointed.first_visit(to) {
            links += 1;
            first.get_or_insert(to);
        }
    }
    first.map(|first| Shared { unit, first, links })
}

/// Mini sectors in a mini stream of `len` bytes.
fn mini_sector_count(len: u64) -> u32 {
    u32::try_from(len.div_ceil(MINI_SECTOR_LEN as u64))
        .unwrap_or(MAX_REGULAR_SECTOR)
        .min(MAX_REGULAR_SECTOR)
}

/// The key a name is looked up by (MS-CFB compares names case-insensitively, by simple
/// uppercase).
fn name_key(name: &str) -> String {
    name.chars().flat_map(char::to_uppercase).collect()
}

impl<'a> Compound<'a> {
    /// Open the compound file in `bytes`: header, DIFAT, FAT, directory and mini FAT. Refused
    /// (`corrupt_document`) when it is not one or its directory cannot be followed; more than
    /// `max_entries` directory entries is `too_large`.
    pub fn open(bytes: &'a [u8], max_entries: u64) -> Result<Compound<'a>> {
        let damaged =
            |why: String| Error::corrupt(format!("the compound-file structure is damaged: {why}"));
        if bytes.len() < HEADER_LEN {
            return Err(damaged(format!(
                "the file is {} bytes, shorter than the 512-byte header",
                bytes.len()
            )));
        }
        if bytes[..8] != SIGNATURE {
            return Err(damaged("no compound-file signature".into()));
        }
        let mut warnings = Vec::new();
        // The sector size: the header's shift, else what its major version implies.
        let sector_len = match (u16_at(bytes, 0x1E), u16_at(bytes, 0x1A)) {
            (9, _) | (_, 3) => 512,
            (12, _) | (_, 4) => 4096,
            (shift, version) => {
                return Err(damaged(format!(
                    "sector shift {shift} with major version {version}: neither 512- nor 4096-byte sectors"
                )))
            }
        };
        // The header fills sector -1; a last sector cut short is read padded with zeros.
        let body = bytes.len().saturating_sub(sector_len);
        let num_sectors = u32::try_from(body.div_ceil(sector_len))
            .unwrap_or(MAX_REGULAR_SECTOR)
            .min(MAX_REGULAR_SECTOR);
        if body % sector_len != 0 {
            warnings.push(format!(
                "the compound file ends {} bytes into its last {sector_len}-byte sector (read as if padded with zeros)",
                body % sector_len
            ));
        }
        let mut compound = Compound {
            bytes,
            sector_len,
            num_sectors,
            fat: Vec::new(),
            mini: Err(String::new()),
            entries: Vec::new(),
            by_name: HashMap::new(),
            warnings,
        };
        compound.fat = compound.read_fat();
        // Chains that merge or run into one another: what a strict reader refuses the whole
        // file for.
        if let Some(shared) = shared_links(&compound.fat, num_sectors, "sector") {
            compound
                .warnings
                .push(format!("the compound file's FAT {shared}"));
        }

        let directory = follow(&compound.fat, u32_at(bytes, 0x30), num_sectors, None)
            .map_err(|why| damaged(format!("the directory cannot be read: {why}")))?;
        compound.read_directory(&directory, max_entries)?;
        compound.mini = compound.read_mini();
        let note = match &compound.mini {
            Err(why) => Some(format!(
                "the compound file's mini stream cannot be read ({why}): streams under 4096 bytes are unreadable"
            )),
            Ok(mini) => shared_links(&mini.fat, mini_sector_count(mini.len), "mini sector")
                .map(|shared| format!("the compound file's mini FAT {shared}")),
        };
        compound.warnings.extend(note);
        Ok(compound)
    }

    /// What was read past (see the module's header), one sentence each, for the document's
    /// warnings.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The bytes of sector `id` (inside the file: `id < num_sectors`), `take` of them from
    /// `offset`, onto `out`; past a short last sector, zeros.
    fn copy_sector(&self, id: u32, offset: usize, take: usize, out: &mut Vec<u8>) {
        let start = (id as usize + 1)
            .saturating_mul(self.sector_len)
            .saturating_add(offset);
        let end = start.saturating_add(take);
        let present = self
            .bytes
            .get(start.min(self.bytes.len())..end.min(self.bytes.len()))
            .unwrap_or(&[]);
        out.extend_from_slice(present);
        out.resize(out.len() + (take - present.len()), 0);
    }

    /// The FAT, as the DIFAT lists its sectors (the header's 109 entries, then the DIFAT
    /// sectors' chain), covering the file's sectors and no more.
    fn read_fat(&mut self) -> Vec<u32> {
        let per_sector = self.sector_len / 4;
        let needed = (self.num_sectors as usize).div_ceil(per_sector);
        let declared = u32_at(self.bytes, 0x2C) as usize;
        let mut listed: Vec<u32> = Vec::new();
        // The list ends at a marker, or at zero filling past the declared count (writers that
        // pad the DIFAT with zeros instead of free entries).
        let take = |listed: &mut Vec<u32>, index: usize, id: u32| -> bool {
            let padding = index >= declared.max(1) && id == 0;
            if id > MAX_REGULAR_SECTOR || padding {
                return false;
            }
            listed.push(id);
            true
        };
        let mut ended = false;
        for i in 0..HEADER_DIFAT_ENTRIES {
            if !take(&mut listed, i, u32_at(self.bytes, 0x4C + 4 * i)) {
                ended = true;
                break;
            }
        }
        // The DIFAT sectors: each holds per_sector - 1 entries and the next one's id; their
        // chain is no longer than the file.
        let mut next = u32_at(self.bytes, 0x44);
        let mut visited = Visited::new(self.num_sectors);
        let mut difat_sectors = 0usize;
        let mut buf = Vec::with_capacity(self.sector_len);
        while !ended && next <= MAX_REGULAR_SECTOR {
            if next >= self.num_sectors || !visited.first_visit(next) {
                self.warnings.push(format!(
                    "the compound file's DIFAT chain leads to sector {next} (past the end or back on itself): the FAT sectors listed before it are used"
                ));
                break;
            }
            difat_sectors += 1;
            buf.clear();
            self.copy_sector(next, 0, self.sector_len, &mut buf);
            for k in 0..per_sector - 1 {
                let index = HEADER_DIFAT_ENTRIES + (difat_sectors - 1) * (per_sector - 1) + k;
                if !take(&mut listed, index, u32_at(&buf, 4 * k)) {
                    ended = true;
                    break;
                }
            }
            next = u32_at(&buf, 4 * (per_sector - 1));
        }
        if listed.len() != declared {
            self.warnings.push(format!(
                "the compound file's header counts {declared} FAT sectors, its DIFAT lists {}",
                listed.len()
            ));
        }
        let mut fat = Vec::with_capacity(needed * per_sector);
        for &id in listed.iter().take(needed) {
            if id < self.num_sectors {
                let mut sector = Vec::with_capacity(self.sector_len);
                self.copy_sector(id, 0, self.sector_len, &mut sector);
                fat.extend((0..per_sector).map(|k| u32_at(&sector, 4 * k)));
            } else {
                // Kept in its place (the FAT sectors after it describe later sectors), empty.
                self.warnings.push(format!(
                    "the compound file's DIFAT lists FAT sector {id}, past the end of the file: the sectors it would describe are read as free"
                ));
                fat.extend(std::iter::repeat_n(FREE_SECTOR, per_sector));
            }
        }
        let described = self.num_sectors as usize;
        let past_end = fat
            .get(described..)
            .unwrap_or(&[])
            .iter()
            .filter(|&&id| id == END_OF_CHAIN || (id != 0 && id <= MAX_REGULAR_SECTOR))
            .count();
        if past_end > 0 {
            self.warnings.push(format!(
                "the compound file's FAT links {past_end} sectors past the end of the file ({} sectors): the file is shorter than written",
                self.num_sectors
            ));
        }
        fat.resize(described, FREE_SECTOR);
        fat
    }

    /// The directory entries in the sectors of `chain`, and each storage's children from the
    /// red-black tree of its entries (followed without trusting its order or its links).
    fn read_directory(&mut self, chain: &[u32], max_entries: u64) -> Result<()> {
        let mut raw = Vec::with_capacity(chain.len() * self.sector_len);
        for &id in chain {
            self.copy_sector(id, 0, self.sector_len, &mut raw);
        }
        // Version 3 files (512-byte sectors) keep only the low 32 bits of a stream's size.
        let size_mask = if self.sector_len == 512 {
            u64::from(u32::MAX)
        } else {
            u64::MAX
        };
        let mut links = Vec::new();
        let mut used = 0u64;
        for record in raw.chunks_exact(DIR_ENTRY_LEN) {
            let kind = match record[66] {
                1 => Some(Kind::Storage),
                2 => Some(Kind::Stream),
                5 => Some(Kind::Root),
                _ => None,
            };
            links.push([u32_at(record, 68), u32_at(record, 72), u32_at(record, 76)]);
            let Some(kind) = kind else {
                self.entries.push(None);
                continue;
            };
            used += 1;
            if used > max_entries {
                return Err(Error::too_large(format!(
                    "the compound file's directory holds more than {max_entries} entries"
                )));
            }
            let units: Vec<u16> = (0..32)
                .map(|k| u16_at(record, 2 * k))
                .take_while(|&u| u != 0)
                .collect();
            let (start, size) = match kind {
                Kind::Storage => (0, 0),
                _ => (u32_at(record, 116), u64_at(record, 120) & size_mask),
            };
            self.entries.push(Some(Entry {
                name: String::from_utf16_lossy(&units),
                kind,
                start,
                size,
                children: Vec::new(),
            }));
        }
        match self.entries.first() {
            Some(Some(_)) => {}
            _ => {
                return Err(Error::corrupt(
                    "the compound-file structure is damaged: its directory has no root entry",
                ))
            }
        }
        // Every entry belongs to one storage: one visit each, from the root down.
        let count = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        let mut visited = Visited::new(count);
        visited.first_visit(0);
        let mut storages = vec![0u32];
        let mut bad_links = 0usize;
        while let Some(storage) = storages.pop() {
            let mut children = Vec::new();
            let mut stack = vec![links[storage as usize][2]];
            while let Some(id) = stack.pop() {
                if id == NO_ENTRY {
                    continue;
                }
                let entry = self.entries.get(id as usize).and_then(Option::as_ref);
                let Some(entry) = entry.filter(|_| visited.first_visit(id)) else {
                    bad_links += 1;
                    continue;
                };
                let [left, right, _] = links[id as usize];
                stack.push(right);
                stack.push(left);
                if entry.kind == Kind::Storage {
                    storages.push(id);
                }
                children.push(id);
            }
            // In the order MS-CFB sorts names: shorter first, then by uppercase.
            let mut keyed: Vec<(usize, String, u32)> = children
                .into_iter()
                .filter_map(|id| {
                    let name = &self.entries.get(id as usize)?.as_ref()?.name;
                    Some((name.encode_utf16().count(), name_key(name), id))
                })
                .collect();
            keyed.sort_unstable();
            let mut children = Vec::with_capacity(keyed.len());
            for (_, key, id) in keyed {
                self.by_name.entry((storage, key)).or_insert(id);
                children.push(id);
            }
            if let Some(Some(entry)) = self.entries.get_mut(storage as usize) {
                entry.children = children;
            }
        }
        if bad_links > 0 {
            self.warnings.push(format!(
                "the compound file's directory tree has {bad_links} links to empty, missing or already reached entries: they are skipped"
            ));
        }
        Ok(())
    }

    /// The mini FAT (its chain to the end) and the mini stream (the root entry's chain).
    fn read_mini(&self) -> std::result::Result<Mini, String> {
        let Some(Some(root)) = self.entries.first() else {
            return Err("no root entry".into());
        };
        let len = root.size;
        let want = usize::try_from(len.div_ceil(self.sector_len as u64)).unwrap_or(usize::MAX);
        if want > self.num_sectors as usize {
            return Err(format!(
                "the root entry claims a {len}-byte mini stream, more than the file holds"
            ));
        }
        let sectors = follow(&self.fat, root.start, self.num_sectors, Some(want))
            .map_err(|why| format!("the mini stream: {why}"))?;
        let start = u32_at(self.bytes, 0x3C);
        let fat_sectors = follow(&self.fat, start, self.num_sectors, None)
            .map_err(|why| format!("the mini FAT: {why}"))?;
        let mut raw = Vec::with_capacity(fat_sectors.len() * self.sector_len);
        for &id in &fat_sectors {
            self.copy_sector(id, 0, self.sector_len, &mut raw);
        }
        let fat = raw.chunks_exact(4).map(|b| u32_at(b, 0)).collect();
        Ok(Mini { fat, sectors, len })
    }

    /// The entry at `path` (names separated by `/`, from the root; compared case-insensitively).
    fn entry(&self, path: &str) -> Option<&Entry> {
        let mut id = 0u32;
        for name in path.split('/').filter(|n| !n.is_empty()) {
            id = *self.by_name.get(&(id, name_key(name)))?;
        }
        self.entries.get(id as usize)?.as_ref()
    }

    /// Whether `path` names a stream.
    pub fn is_stream(&self, path: &str) -> bool {
        self.entry(path).is_some_and(|e| e.kind == Kind::Stream)
    }

    /// The size the directory gives the stream at `path`.
    pub fn stream_len(&self, path: &str) -> Option<u64> {
        self.entry(path)
            .filter(|e| e.kind == Kind::Stream)
            .map(|e| e.size)
    }

    /// The streams directly inside the storage `dir` (`""`: the root), with their sizes.
    pub fn stream_names(&self, dir: &str) -> Vec<(String, u64)> {
        let Some(storage) = self.entry(dir).filter(|e| e.kind != Kind::Stream) else {
            return Vec::new();
        };
        storage
            .children
            .iter()
            .filter_map(|&id| self.entries.get(id as usize)?.as_ref())
            .filter(|e| e.kind == Kind::Stream)
            .map(|e| (e.name.clone(), e.size))
            .collect()
    }

    /// The bytes of the stream at `path`, along its chain; `corrupt_document` when it is not
    /// there or its chain cannot be followed to its size. Callers bound the size first
    /// (`stream_len`).
    pub fn read_stream(&self, path: &str) -> Result<Vec<u8>> {
        let entry = self
            .entry(path)
            .filter(|e| e.kind == Kind::Stream)
            .ok_or_else(|| Error::corrupt(format!("{path}: no such stream")))?;
        let size = usize::try_from(entry.size)
            .map_err(|_| Error::corrupt(format!("{path}: a stream of {} bytes", entry.size)))?;
        let cannot = |why: String| Error::corrupt(format!("{path}: {why}"));
        let mut out = Vec::with_capacity(size.min(self.bytes.len()));
        if size == 0 {
            return Ok(out);
        }
        if entry.size >= MINI_STREAM_CUTOFF {
            let want = size.div_ceil(self.sector_len);
            if want > self.num_sectors as usize {
                return Err(cannot(format!(
                    "it claims {size} bytes, more than the file holds"
                )));
            }
            for id in
                follow(&self.fat, entry.start, self.num_sectors, Some(want)).map_err(cannot)?
            {
                let take = (size - out.len()).min(self.sector_len);
                self.copy_sector(id, 0, take, &mut out);
            }
            return Ok(out);
        }
        let mini = self.mini.as_ref().map_err(|why| {
            cannot(format!(
                "the mini stream that holds it cannot be read ({why})"
            ))
        })?;
        let mini_count = mini_sector_count(mini.len);
        let chain = follow(
            &mini.fat,
            entry.start,
            mini_count,
            Some(size.div_ceil(MINI_SECTOR_LEN)),
        )
        .map_err(|why| cannot(format!("in the mini stream, {why}")))?;
        let per_sector = self.sector_len / MINI_SECTOR_LEN;
        for id in chain {
            let at = id as usize;
            // mini_count keeps `id` inside the mini stream, whose sectors `read_mini` followed.
            let Some(&sector) = mini.sectors.get(at / per_sector) else {
                return Err(cannot(format!("mini sector {id} is past the mini stream")));
            };
            let take = (size - out.len()).min(MINI_SECTOR_LEN);
            self.copy_sector(sector, (at % per_sector) * MINI_SECTOR_LEN, take, &mut out);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};

    /// A compound file the `cfb` crate writes, of `version`, holding `streams`.
    fn written(version: cfb::Version, streams: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut file =
            cfb::CompoundFile::create_with_version(version, Cursor::new(Vec::new())).unwrap();
        for (path, data) in streams {
            if let Some((dir, _)) = path.rsplit_once('/') {
                file.create_storage_all(dir).unwrap();
            }
            file.create_stream(path).unwrap().write_all(data).unwrap();
        }
        file.flush().unwrap();
        file.into_inner().into_inner()
    }

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn both_sector_sizes_and_both_allocators() {
        let streams = vec![
            ("Small", pattern(300, 1)),
            ("Cutoff", pattern(4096, 2)),
            ("Storage/Large", pattern(70_000, 3)),
            ("Storage/Inner/Tiny", pattern(1, 4)),
            ("Empty", Vec::new()),
        ];
        for version in [cfb::Version::V3, cfb::Version::V4] {
            let bytes = written(version, &streams);
            let compound = Compound::open(&bytes, 100).unwrap();
            assert!(compound.warnings().is_empty(), "{:?}", compound.warnings());
            for (path, data) in &streams {
                assert_eq!(
                    &compound.read_stream(path).unwrap(),
                    data,
                    "{version:?} {path}"
                );
            }
            // Names compare case-insensitively; storages are not streams.
            assert_eq!(compound.read_stream("storage/LARGE").unwrap(), streams[2].1);
            assert!(!compound.is_stream("Storage"));
            assert_eq!(
                compound.stream_names("Storage"),
                vec![("Large".to_string(), 70_000)]
            );
            assert!(compound.read_stream("Missing").is_err());
        }
    }

    #[test]
    fn a_fat_beyond_the_header_difat() {
        // Over 109 FAT sectors (7 MB in 512-byte sectors): the rest are listed by DIFAT sectors.
        let big = pattern(8 << 20, 5);
        let bytes = written(cfb::Version::V3, &[("Big", big.clone())]);
        assert!(u32_at(&bytes, 0x48) > 0, "DIFAT sectors written");
        let compound = Compound::open(&bytes, 100).unwrap();
        assert!(compound.warnings().is_empty(), "{:?}", compound.warnings());
        assert_eq!(compound.read_stream("Big").unwrap(), big);
    }

    #[test]
    fn a_short_last_sector_of_4096_bytes() {
        let data = pattern(5000, 6);
        let mut bytes = written(cfb::Version::V4, &[("Data", data.clone())]);
        // The stream's two sectors end the file; cut the unused end of the last one.
        bytes.truncate(bytes.len() - 4096 + (5000 - 4096) + 1);
        let compound = Compound::open(&bytes, 100).unwrap();
        assert_eq!(compound.read_stream("Data").unwrap(), data);
        assert!(compound.warnings()[0].contains("last 4096-byte sector"));
    }

    #[test]
    fn hostile_headers_and_directories() {
        let bytes = written(cfb::Version::V3, &[("A", pattern(100, 7))]);
        let code = |b: &[u8]| Compound::open(b, 100).map(|_| ()).unwrap_err().code;
        assert_eq!(code(&bytes[..300]), crate::ErrorCode::CorruptDocument);
        // A sector shift that is neither 9 nor 12, with an unknown major version.
        let mut odd = bytes.clone();
        odd[0x1A] = 7;
        odd[0x1E] = 20;
        assert_eq!(code(&odd), crate::ErrorCode::CorruptDocument);
        // A directory of more entries than allowed.
        assert_eq!(
            Compound::open(&bytes, 1).map(|_| ()).unwrap_err().code,
            crate::ErrorCode::TooLarge
        );
        // A directory tree whose entry links back to the root: the link is dropped.
        let mut looped = bytes.clone();
        let dir = (u32_at(&bytes, 0x30) as usize + 1) * 512;
        let child = u32_at(&bytes, dir + 76) as usize;
        looped[dir + 128 * child + 68..dir + 128 * child + 72].copy_from_slice(&0u32.to_le_bytes());
        let compound = Compound::open(&looped, 100).unwrap();
        assert_eq!(compound.read_stream("A").unwrap(), pattern(100, 7));
        assert!(compound.warnings()[0].contains("directory tree"));
    }
}
