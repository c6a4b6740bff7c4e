//! The `\x05HwpSummaryInformation` stream: an OLE property set.
//!
//! Layout ([MS-OLEPS] 2.21 PropertySetStream): a 28-byte header (byte order
//! mark 0xFFFE, version, system id, CLSID, number of property sets), then one
//! (FMTID, offset) pair per set. A property set starts with its size and
//! property count, followed by (property id, offset) pairs whose offsets
//! are relative to the start of the set; each value is a TypedPropertyValue
//! (u16 type, u16 padding, data). Hancom writes one set with the standard
//! SummaryInformation ids and UTF-16 strings (VT_LPWSTR).

use crate::model::Metadata;

const PID_CODEPAGE: u32 = 1;
const PID_TITLE: u32 = 2;
const PID_SUBJECT: u32 = 3;
const PID_AUTHOR: u32 = 4;
const PID_KEYWORDS: u32 = 5;
const PID_COMMENTS: u32 = 6;
const PID_LAST_SAVED_BY: u32 = 8;
const PID_CREATE_TIME: u32 = 12;
const PID_LAST_SAVE_TIME: u32 = 13;

const VT_I2: u16 = 0x0002;
const VT_LPSTR: u16 = 0x001E;
const VT_LPWSTR: u16 = 0x001F;
const VT_FILETIME: u16 = 0x0040;

/// Code page id meaning "VT_LPSTR strings are UTF-16LE" ([MS-OLEPS] 2.5).
const CODEPAGE_UTF16: u16 = 1200;
const CODEPAGE_LATIN1: u16 = 28591;

/// PropertySetStream header: 2+2+4+16+4 bytes, then 20 bytes per FMTID/offset.
const STREAM_HEADER_LEN: usize = 28;

/// Title, subject, author, keywords, comments, last author and dates. Lenient:
/// anything unreadable is left `None`; never fails, never panics.
pub fn read_summary_information(stream: &[u8]) -> Metadata {
    let mut metadata = Metadata::default();
    let Some(set) = first_property_set(stream) else {
        return metadata;
    };
    let properties = property_offsets(set);
    // The code page governs VT_LPSTR only; HWP strings are normally VT_LPWSTR.
    let codepage = properties
        .iter()
        .find(|(id, _)| *id == PID_CODEPAGE)
        .and_then(|&(_, offset)| match read_u16(set, offset)? {
            VT_I2 => read_u16(set, offset + 4),
            _ => None,
        });
    for &(id, offset) in &properties {
        let slot = match id {
            PID_TITLE => &mut metadata.title,
            PID_SUBJECT => &mut metadata.subject,
            PID_AUTHOR => &mut metadata.author,
            PID_KEYWORDS => &mut metadata.keywords,
            PID_COMMENTS => &mut metadata.comments,
            PID_LAST_SAVED_BY => &mut metadata.last_saved_by,
            PID_CREATE_TIME => &mut metadata.created,
            PID_LAST_SAVE_TIME => &mut metadata.modified,
            _ => continue,
        };
        // A duplicated id keeps its first readable value.
        if slot.is_none() {
            *slot = read_value(set, offset, codepage);
        }
    }
    metadata
}

/// The bytes of the first property set (from its start to the end of the
/// stream: its declared size is not trusted, offsets are checked instead).
fn first_property_set(stream: &[u8]) -> Option<&[u8]> {
    // Byte order mark 0xFFFE, stored little-endian.
    if read_u16(stream, 0)? != 0xFFFE {
        return None;
    }
    if read_u32(stream, 24)? == 0 {
        return None;
    }
    // FMTID (16 bytes) then the offset of the set from the stream start.
    let offset = read_u32(stream, STREAM_HEADER_LEN + 16)? as usize;
    stream.get(offset..)
}

/// (property id, offset within the set) pairs that fit in the set.
fn property_offsets(set: &[u8]) -> Vec<(u32, usize)> {
    let Some(count) = read_u32(set, 4) else {
        return Vec::new();
    };
    // Each pair takes 8 bytes after the 8-byte set header: a count larger
    // than what fits is a damaged header, so cap it instead of trusting it.
    let fitting = set.len().saturating_sub(8) / 8;
    (0..(count as usize).min(fitting))
        .filter_map(|i| {
            let at = 8 + i * 8;
            Some((read_u32(set, at)?, read_u32(set, at + 4)? as usize))
        })
        .collect()
}

/// A string or date property as text; `None` for other types or damage.
fn read_value(set: &[u8], offset: usize, codepage: Option<u16>) -> Option<String> {
    let kind = read_u16(set, offset)?;
    let data = offset.checked_add(4)?;
    let text = match kind {
        VT_LPWSTR => {
            // Length in UTF-16 code units, terminating NUL included.
            let units = read_u32(set, data)? as usize;
            utf16_le(set.get(data + 4..)?, units)
        }
        VT_LPSTR => {
            // Length in bytes, terminating NUL(s) included.
            let len = read_u32(set, data)? as usize;
            let bytes = set.get(data + 4..)?;
            if codepage == Some(CODEPAGE_UTF16) {
                utf16_le(bytes, len / 2)
            } else {
                eight_bit_string(bytes.get(..len.min(bytes.len()))?, codepage)?
            }
        }
        VT_FILETIME => filetime_to_iso8601(read_u64(set, data)?)?,
        _ => return None,
    };
    let text = text.trim_end_matches('\0');
    (!text.trim().is_empty()).then(|| text.to_owned())
}

/// Up to `units` UTF-16LE code units from `bytes`, stopping at the first NUL.
/// A length running past the stream reads what is there.
fn utf16_le(bytes: &[u8], units: usize) -> String {
    let units = bytes
        .chunks_exact(2)
        .take(units)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .take_while(|&unit| unit != 0);
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// A code-page string. Without code-page tables in this crate, UTF-8 (and
/// so plain ASCII, the same in every code page) and Latin-1 are decoded;
/// other non-ASCII text (e.g. CP949) is dropped rather than shown as mojibake.
fn eight_bit_string(bytes: &[u8], codepage: Option<u16>) -> Option<String> {
    let bytes = bytes.split(|&b| b == 0).next().unwrap_or_default();
    if codepage == Some(CODEPAGE_LATIN1) {
        return Some(bytes.iter().map(|&b| char::from(b)).collect());
    }
    // Whatever the declared code page, text that is valid UTF-8 is taken as
    // such: ASCII always is, and some writers label UTF-8 with the system code page.
    std::str::from_utf8(bytes).ok().map(str::to_owned)
}

/// FILETIME (100 ns ticks since 1601-01-01 UTC) → "YYYY-MM-DDTHH:MM:SSZ".
/// Zero means "not set"; dates before 1970 or after 9999 are treated as damage.
fn filetime_to_iso8601(ticks: u64) -> Option<String> {
    const TICKS_PER_SECOND: u64 = 10_000_000;
    const SECONDS_1601_TO_1970: u64 = 11_644_473_600;
    let unix_seconds = (ticks / TICKS_PER_SECOND).checked_sub(SECONDS_1601_TO_1970)?;
    let days = unix_seconds / 86_400;
    let seconds_of_day = unix_seconds % 86_400;
    let (year, month, day) = civil_from_days(days);
    if year > 9999 {
        return None;
    }
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        seconds_of_day / 3600,
        seconds_of_day / 60 % 60,
        seconds_of_day % 60
    ))
}

/// Days since 1970-01-01 → proleptic Gregorian (year, month, day), using
/// 400-year eras of 146 097 days (H. Hinnant's civil-from-days method).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let shifted = days + 719_468; // days since 0000-03-01
    let era = shifted / 146_097;
    let day_of_era = shifted % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153; // 0 = March
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        bytes.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        bytes.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        bytes.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Read};

    /// What a property-set writer would produce for `properties` (id, type, data).
    fn property_set_stream(properties: &[(u32, u16, Vec<u8>)]) -> Vec<u8> {
        let mut stream = Vec::new();
        stream.extend_from_slice(&0xFFFEu16.to_le_bytes());
        stream.extend_from_slice(&0u16.to_le_bytes());
        stream.extend_from_slice(&0x0002_0005u32.to_le_bytes());
        stream.extend_from_slice(&[0; 16]);
        stream.extend_from_slice(&1u32.to_le_bytes());
        stream.extend_from_slice(&[0xAB; 16]); // FMTID
        stream.extend_from_slice(&48u32.to_le_bytes());
        let mut values = Vec::new();
        let mut pairs = Vec::new();
        let values_start = 8 + 8 * properties.len();
        for (id, kind, data) in properties {
            pairs.extend_from_slice(&id.to_le_bytes());
            pairs.extend_from_slice(&((values_start + values.len()) as u32).to_le_bytes());
            values.extend_from_slice(&kind.to_le_bytes());
            values.extend_from_slice(&[0, 0]);
            values.extend_from_slice(data);
            values.resize(values.len().div_ceil(4) * 4, 0);
        }
        let size = (8 + pairs.len() + values.len()) as u32;
        stream.extend_from_slice(&size.to_le_bytes());
        stream.extend_from_slice(&(properties.len() as u32).to_le_bytes());
        stream.extend_from_slice(&pairs);
        stream.extend_from_slice(&values);
        stream
    }

    fn lpwstr(text: &str) -> Vec<u8> {
        let units: Vec<u16> = text.encode_utf16().chain([0]).collect();
        let mut data = (units.len() as u32).to_le_bytes().to_vec();
        data.extend(units.iter().flat_map(|u| u.to_le_bytes()));
        data
    }

    fn lpstr(bytes: &[u8]) -> Vec<u8> {
        let mut data = ((bytes.len() + 1) as u32).to_le_bytes().to_vec();
        data.extend_from_slice(bytes);
        data.push(0);
        data
    }

    fn sample_stream() -> Vec<u8> {
        property_set_stream(&[
            (PID_CODEPAGE, VT_I2, 1200u16.to_le_bytes().to_vec()),
            (PID_TITLE, VT_LPWSTR, lpwstr("입찰 공고")),
            (PID_SUBJECT, VT_LPWSTR, lpwstr("")),
            (PID_AUTHOR, VT_LPWSTR, lpwstr("홍길동")),
            (PID_KEYWORDS, VT_LPWSTR, lpwstr("  ")),
            (PID_COMMENTS, VT_LPWSTR, lpwstr("note")),
            (PID_LAST_SAVED_BY, VT_LPWSTR, lpwstr("editor")),
            // 2024-12-13T01:10:00Z
            (
                PID_CREATE_TIME,
                VT_FILETIME,
                (133_785_258_000_000_000u64).to_le_bytes().to_vec(),
            ),
            (PID_LAST_SAVE_TIME, VT_FILETIME, 0u64.to_le_bytes().to_vec()),
        ])
    }

    #[test]
    fn reads_strings_and_dates() {
        let metadata = read_summary_information(&sample_stream());
        assert_eq!(metadata.title.as_deref(), Some("입찰 공고"));
        assert_eq!(metadata.subject, None);
        assert_eq!(metadata.author.as_deref(), Some("홍길동"));
        assert_eq!(metadata.keywords, None);
        assert_eq!(metadata.comments.as_deref(), Some("note"));
        assert_eq!(metadata.last_saved_by.as_deref(), Some("editor"));
        assert_eq!(metadata.created.as_deref(), Some("2024-12-13T01:10:00Z"));
        assert_eq!(metadata.modified, None);
    }

    #[test]
    fn reads_lpstr_by_code_page() {
        let utf16: Vec<u8> = "제목\0"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        let mut utf16_value = (utf16.len() as u32).to_le_bytes().to_vec();
        utf16_value.extend_from_slice(&utf16);
        let stream = property_set_stream(&[
            (PID_CODEPAGE, VT_I2, 1200u16.to_le_bytes().to_vec()),
            (PID_TITLE, VT_LPSTR, utf16_value),
        ]);
        assert_eq!(
            read_summary_information(&stream).title.as_deref(),
            Some("제목")
        );

        let stream = property_set_stream(&[
            (PID_CODEPAGE, VT_I2, 949u16.to_le_bytes().to_vec()),
            (PID_TITLE, VT_LPSTR, lpstr(b"Plain ASCII")),
            (PID_AUTHOR, VT_LPSTR, lpstr(&[0xC1, 0xA6, 0xB8, 0xF1])), // "제목" in CP949
            (PID_SUBJECT, VT_LPSTR, lpstr("한글".as_bytes())),
        ]);
        let metadata = read_summary_information(&stream);
        assert_eq!(metadata.title.as_deref(), Some("Plain ASCII"));
        assert_eq!(
            metadata.author, None,
            "CP949 is not decoded: dropped, not mojibake"
        );
        assert_eq!(metadata.subject.as_deref(), Some("한글"));

        let stream = property_set_stream(&[
            (PID_CODEPAGE, VT_I2, CODEPAGE_LATIN1.to_le_bytes().to_vec()),
            (PID_TITLE, VT_LPSTR, lpstr(b"Caf\xe9")),
        ]);
        assert_eq!(
            read_summary_information(&stream).title.as_deref(),
            Some("Café")
        );
    }

    #[test]
    fn filetime_conversion() {
        assert_eq!(
            filetime_to_iso8601(116_444_736_000_000_000).as_deref(),
            Some("1970-01-01T00:00:00Z")
        );
        // 2000-02-29T23:59:59Z (leap day).
        assert_eq!(
            filetime_to_iso8601(125_963_423_990_000_000).as_deref(),
            Some("2000-02-29T23:59:59Z")
        );
        assert_eq!(filetime_to_iso8601(0), None);
        assert_eq!(filetime_to_iso8601(u64::MAX), None);
        // 9999-12-31T23:59:59Z is the last accepted second.
        assert_eq!(
            filetime_to_iso8601(2_650_467_743_990_000_000).as_deref(),
            Some("9999-12-31T23:59:59Z")
        );
        assert_eq!(filetime_to_iso8601(2_650_467_744_000_000_000), None);
    }

    #[test]
    fn damaged_streams_never_panic() {
        let stream = sample_stream();
        for len in 0..=stream.len() {
            let _ = read_summary_information(&stream[..len]);
        }
        assert!(is_empty(&read_summary_information(&[])));
        // Flip every byte in turn.
        for i in 0..stream.len() {
            let mut damaged = stream.clone();
            damaged[i] ^= 0xFF;
            let _ = read_summary_information(&damaged);
        }
        // Random bytes, with and without a valid-looking header.
        let mut state = 0x9E37_79B9u32;
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 24) as u8
        };
        for round in 0..3000 {
            let len = usize::from(next()) * 2;
            let mut bytes: Vec<u8> = (0..len).map(|_| next()).collect();
            if round % 2 == 0 && bytes.len() >= 48 {
                bytes[..28].copy_from_slice(&stream[..28]);
                bytes[44..48].copy_from_slice(&48u32.to_le_bytes());
            }
            let _ = read_summary_information(&bytes);
        }
    }

    #[test]
    fn absurd_counts_and_lengths_are_capped() {
        let mut stream = property_set_stream(&[(PID_TITLE, VT_LPWSTR, lpwstr("title"))]);
        // Property count u32::MAX.
        stream[52..56].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            read_summary_information(&stream).title.as_deref(),
            Some("title")
        );
        // String length u32::MAX: reads what is there.
        let mut stream = property_set_stream(&[(PID_TITLE, VT_LPWSTR, lpwstr("title"))]);
        let value_at = 48 + 16 + 4;
        stream[value_at..value_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            read_summary_information(&stream).title.as_deref(),
            Some("title")
        );
        // Set offset beyond the stream.
        let mut stream = property_set_stream(&[(PID_TITLE, VT_LPWSTR, lpwstr("title"))]);
        stream[44..48].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(is_empty(&read_summary_information(&stream)));
    }

    fn is_empty(m: &Metadata) -> bool {
        [
            &m.title,
            &m.subject,
            &m.author,
            &m.keywords,
            &m.comments,
            &m.last_saved_by,
            &m.created,
            &m.modified,
        ]
        .iter()
        .all(|field| field.is_none())
    }

    fn corpus_metadata(name: &str) -> Option<Metadata> {
        corpus_metadata_at(&format!("/work/shared/corpus/hwp/{name}"))
    }

    fn corpus_metadata_at(path: &str) -> Option<Metadata> {
        Some(read_summary_information(&summary_stream(path)?))
    }

    fn summary_stream(path: &str) -> Option<Vec<u8>> {
        let file = std::fs::read(path).ok()?;
        let mut compound = cfb::CompoundFile::open(Cursor::new(file)).ok()?;
        let mut stream = compound.open_stream("/\u{5}HwpSummaryInformation").ok()?;
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).ok()?;
        Some(bytes)
    }

    /// Every prefix and every single-byte corruption of a real stream.
    #[test]
    fn corpus_stream_damage_never_panics() {
        let Some(stream) = summary_stream("/work/shared/corpus/hwp/pyhwp-sample-5017.hwp") else {
            return;
        };
        for len in 0..=stream.len() {
            let _ = read_summary_information(&stream[..len]);
        }
        for i in 0..stream.len() {
            for flip in [0x01, 0x80, 0xFF] {
                let mut damaged = stream.clone();
                damaged[i] ^= flip;
                let _ = read_summary_information(&damaged);
            }
        }
    }

    #[test]
    fn corpus_documents() {
        let Some(sample) = corpus_metadata("pyhwp-sample-5017.hwp") else {
            return;
        };
        assert_eq!(sample.title.as_deref(), Some("제목입니다."));
        assert_eq!(sample.subject.as_deref(), Some("주제입니다."));
        assert_eq!(sample.author.as_deref(), Some("지은이입니다."));
        assert_eq!(sample.keywords.as_deref(), Some("키워드입니다."));
        assert_eq!(sample.comments.as_deref(), Some("기타입니다."));
        assert_eq!(sample.last_saved_by.as_deref(), Some("mete0r"));
        assert_eq!(sample.created.as_deref(), Some("2010-07-02T03:36:13Z"));
        assert_eq!(sample.modified.as_deref(), Some("2011-06-14T12:54:58Z"));

        let constitution =
            corpus_metadata("hwpswift-constitution-commentary-2007.hwp").expect("summary stream");
        assert_eq!(
            constitution.title.as_deref(),
            Some("대한민국헌법의 연혁과 개요")
        );
        assert_eq!(constitution.author.as_deref(), Some("김현귀"));
        assert_eq!(
            constitution.created.as_deref(),
            Some("2007-10-13T13:22:07Z")
        );

        let distribution = corpus_metadata("hwplib-distribution.hwp").expect("summary stream");
        assert_eq!(distribution.title.as_deref(), Some("무궁화동산등"));
        assert_eq!(distribution.author, None, "empty author string");
        assert_eq!(distribution.last_saved_by.as_deref(), Some("user"));

        // Every corpus document with the stream yields at least a date.
        let Ok(dir) = std::fs::read_dir("/work/shared/corpus/hwp") else {
            return;
        };
        let mut names: Vec<String> = dir
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".hwp"))
            .collect();
        names.sort();
        for name in names {
            let Some(metadata) = corpus_metadata(&name) else {
                continue;
            };
            if std::env::var_os("HWP5DIST_SHOW_METADATA").is_some() {
                eprintln!("{name}: {metadata:?}");
            }
            assert!(metadata.modified.is_some(), "{name}: {metadata:?}");
        }
    }

    /// Hostile and password-protected documents: whatever their summary
    /// stream holds (password documents keep it readable), no panic.
    #[test]
    fn corpus_bad_documents() {
        let Ok(dir) = std::fs::read_dir("/work/shared/corpus/bad") else {
            return;
        };
        for entry in dir.flatten() {
            let path = entry.path();
            let metadata = corpus_metadata_at(&path.to_string_lossy());
            if std::env::var_os("HWP5DIST_SHOW_METADATA").is_some() {
                eprintln!("{}: {metadata:?}", path.display());
            }
        }
    }
}
