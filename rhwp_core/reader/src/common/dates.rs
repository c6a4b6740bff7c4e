//! Dates as the documents write them.

/// A date as 한글 writes it in a document summary, as ISO 8601 local time (no zone: the text
/// names none): "2001년 10월 11일 목요일, 20시 48분" → "2001-10-11T20:48:00"; "2013년 10월 6일
/// 일요일 오후 08:47:57" → "2013-10-06T20:47:57" (오후/PM after noon, 오전/AM 12 o'clock is 0); a
/// date alone → "2001-10-11". Anything else (not year, month, day first) → None.
pub fn korean_date(s: &str) -> Option<String> {
    let mut nums = Vec::new();
    let mut cur = String::new();
    for ch in s.chars().chain(std::iter::once(' ')) {
        if ch.is_ascii_digit() {
            cur.push(ch);
        } else if !cur.is_empty() {
            nums.push(cur.parse::<u32>().ok()?);
            cur.clear();
        }
    }
    let (y, mo, d) = (*nums.first()?, *nums.get(1)?, *nums.get(2)?);
    if !(1900..=2100).contains(&y) || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let date = format!("{y:04}-{mo:02}-{d:02}");
    let (Some(&h), Some(&mi)) = (nums.get(3), nums.get(4)) else {
        return Some(date);
    };
    let sec = nums.get(5).copied().unwrap_or(0);
    let afternoon = s.contains("오후") || s.contains("PM") || s.contains("pm");
    let morning = s.contains("오전") || s.contains("AM") || s.contains("am");
    let h = match (afternoon, morning) {
        (true, false) if h < 12 => h + 12,
        (false, true) if h == 12 => 0,
        _ => h,
    };
    if h > 23 || mi > 59 || sec > 59 {
        return Some(date);
    }
    Some(format!("{date}T{h:02}:{mi:02}:{sec:02}"))
}

#[cfg(test)]
mod tests {
    use super::korean_date;

    #[test]
    fn dates_as_hangul_writes_them() {
        let cases = [
            (
                "2001년 10월 11일 목요일, 20시 48분",
                Some("2001-10-11T20:48:00"),
            ),
            (
                "2013년 10월 6일 일요일 오후 08:47:57",
                Some("2013-10-06T20:47:57"),
            ),
            (
                "2013년 10월 6일 일요일 오전 12:05:00",
                Some("2013-10-06T00:05:00"),
            ),
            (
                "2013년 10월 6일 일요일 오후 12:05:00",
                Some("2013-10-06T12:05:00"),
            ),
            ("1997년 5월 3일", Some("1997-05-03")),
            ("1997년 5월 3일 25시 70분", Some("1997-05-03")),
            ("5월 3일", None),
            ("", None),
            ("99999999999999999999년", None),
        ];
        for (text, want) in cases {
            assert_eq!(korean_date(text).as_deref(), want, "{text:?}");
        }
    }
}
