//! Log line timestamps as logcat and Android Studio print them, and their conversion to nanoseconds.

/// Years accepted in dated timestamps: any two of them (and the 100 assumed rollovers after 2001) are less than
/// 131 years apart, so differences of their nanoseconds stay within `i64` (±292 years).
pub(super) const YEARS: std::ops::RangeInclusive<u64> = 1970..=2100;
pub(super) const NS_PER_DAY: i64 = 86_400_000_000_000;
/// `-v epoch` and `-v monotonic` both print `seconds.fraction`; a value this large (2001-09-09) or larger is an
/// epoch time, a smaller one seconds since boot (no device stays up 31 years).
const EPOCH_MIN_S: u64 = 1_000_000_000;

/// What a timestamp counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Clock {
    /// A wall-clock date and time (`MM-DD HH:MM:SS.f`, with `-v year` `YYYY-…`, with `-v epoch` as UTC).
    Wall,
    /// A time of day without a date (Android Studio's "time only" view, `HH:MM:SS.mmm`).
    TimeOfDay,
    /// `-v monotonic`: seconds since boot.
    Monotonic,
}

/// A timestamp as printed, before it becomes nanoseconds. The derived order (clock, rollovers, year, month, day,
/// time) is time order among stamps of one kind (same clock; all with, or all without, a year).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Stamp {
    pub clock: Clock,
    /// Year (wall clock without a year) or day (time of day) rollovers assumed before this line.
    pub rollovers: u32,
    /// The year, when printed (`-v year`, `-v epoch`, Android Studio).
    pub year: Option<u16>,
    /// 1–12 on the wall clock, 0 otherwise.
    pub month: u8,
    /// 1–31 on the wall clock, 0 otherwise.
    pub day: u8,
    /// Nanoseconds since midnight (wall clock, time of day) or since boot (monotonic).
    pub nanos: u64,
}

impl Stamp {
    /// True if the stamp has a year (its order and origin differ from those without).
    pub fn dated(self) -> bool {
        self.year.is_some()
    }

    /// Nanoseconds: on the wall clock since 2000-01-01 00:00 (a stamp without a year is placed in
    /// `base_year + rollovers`); a time of day since midnight of the capture's first day; monotonic since boot.
    pub fn to_ns(self, base_year: i64) -> i64 {
        match self.clock {
            Clock::Wall => {
                let year = self
                    .year
                    .map_or(base_year + i64::from(self.rollovers), i64::from);
                let days = days_from_civil(year, self.month.into(), self.day.into())
                    - days_from_civil(2000, 1, 1);
                // Years are limited (YEARS, MAX_ROLLOVERS): any two times are < 131 years apart.
                days * NS_PER_DAY + self.nanos as i64
            }
            Clock::TimeOfDay => i64::from(self.rollovers) * NS_PER_DAY + self.nanos as i64,
            // At most EPOCH_MIN_S seconds: fits.
            Clock::Monotonic => self.nanos as i64,
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub(super) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`): (year, month, day).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn is_leap(y: u64) -> bool {
    (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400)
}

fn days_in_month(year: Option<u64>, month: u64) -> u64 {
    match month {
        2 => match year {
            Some(y) if !is_leap(y) => 28,
            _ => 29,
        },
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Leading ASCII digits of `s`: (value, digit count, rest); `None` without a digit or with more than `max`.
pub(super) fn digits(s: &str, max: usize) -> Option<(u64, usize, &str)> {
    // One pass that stops at the first non-digit, or fails at digit `max + 1`: every log line's stamp and ids
    // go through here.
    let bytes = s.as_bytes();
    let (mut v, mut n) = (0u64, 0usize);
    while let Some(d) = bytes.get(n).filter(|b| b.is_ascii_digit()) {
        if n == max {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        n += 1;
    }
    // `n` bytes of ASCII digits end on a character boundary.
    (n > 0).then(|| (v, n, s.get(n..).unwrap_or_default()))
}

/// Exactly `n` digits.
fn digits_n(s: &str, n: usize) -> Option<(u64, &str)> {
    match digits(s, n)? {
        (v, len, rest) if len == n => Some((v, rest)),
        _ => None,
    }
}

/// `.f{1,9}` as nanoseconds, or 0 without a fraction.
fn fraction(rest: &str) -> Option<(u64, &str)> {
    match rest.strip_prefix('.') {
        Some(f) => {
            const SCALE: [u64; 10] = [
                1_000_000_000,
                100_000_000,
                10_000_000,
                1_000_000,
                100_000,
                10_000,
                1_000,
                100,
                10,
                1,
            ];
            let (frac, n, r) = digits(f, 9)?;
            Some((frac * SCALE.get(n)?, r))
        }
        None => Some((0, rest)),
    }
}

/// `HH:MM:SS[.f{1,9}]` as nanoseconds since midnight.
fn time_of_day(s: &str) -> Option<(u64, &str)> {
    let (hour, rest) = digits_n(s, 2)?;
    let (minute, rest) = digits_n(rest.strip_prefix(':')?, 2)?;
    let (second, rest) = digits_n(rest.strip_prefix(':')?, 2)?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let (frac, rest) = fraction(rest)?;
    Some((
        ((hour * 60 + minute) * 60 + second) * 1_000_000_000 + frac,
        rest,
    ))
}

/// A timestamp at the start of `s` (after leading spaces), followed by whitespace or the end: the logprint.cpp
/// forms `[YYYY-]MM-DD HH:MM:SS.f{1,9}[ ±zzzz]` (`-v year`, `usec`, `nsec`, `zone`) and `seconds.f` (`-v epoch`,
/// `-v monotonic`, right-aligned), and Android Studio's `HH:MM:SS.mmm`. Returns the stamp and the rest.
pub(super) fn parse_stamp(s: &str) -> Option<(Stamp, &str)> {
    let s = s.trim_start_matches(' ');
    let (stamp, rest) = wall(s).or_else(|| seconds(s)).or_else(|| {
        let (nanos, rest) = time_of_day(s)?;
        let stamp = Stamp {
            clock: Clock::TimeOfDay,
            rollovers: 0,
            year: None,
            month: 0,
            day: 0,
            nanos,
        };
        Some((stamp, rest))
    })?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some((stamp, rest))
}

/// `[YYYY-]MM-DD HH:MM:SS[.f{1,9}][ ±zzzz]`.
fn wall(s: &str) -> Option<(Stamp, &str)> {
    let (first, len, rest) = digits(s, 4)?;
    let (year, month, rest) = match len {
        4 => {
            let (m, rest) = digits_n(rest.strip_prefix('-')?, 2)?;
            (Some(first), m, rest)
        }
        2 => (None, first, rest),
        _ => return None,
    };
    let (day, rest) = digits_n(rest.strip_prefix('-')?, 2)?;
    let (nanos, mut rest) = time_of_day(rest.strip_prefix(' ')?)?;
    if year.is_some_and(|y| !YEARS.contains(&y))
        || !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
    {
        return None;
    }
    // `-v zone`: ` +0800`.
    if let Some(z) = rest.strip_prefix(" +").or_else(|| rest.strip_prefix(" -")) {
        if let Some((_, r)) = digits_n(z, 4) {
            if r.is_empty() || r.starts_with(char::is_whitespace) {
                rest = r;
            }
        }
    }
    let stamp = Stamp {
        clock: Clock::Wall,
        rollovers: 0,
        year: year.and_then(|y| u16::try_from(y).ok()),
        month: u8::try_from(month).ok()?,
        day: u8::try_from(day).ok()?,
        nanos,
    };
    Some((stamp, rest))
}

/// `seconds.f{1,9}` (`-v epoch`: UTC date and time; `-v monotonic`: since boot). A fraction is required, so a
/// pid column is never read as seconds.
fn seconds(s: &str) -> Option<(Stamp, &str)> {
    let (secs, _, rest) = digits(s, 12)?;
    if !rest.starts_with('.') {
        return None;
    }
    let (frac, rest) = fraction(rest)?;
    if secs < EPOCH_MIN_S {
        let stamp = Stamp {
            clock: Clock::Monotonic,
            rollovers: 0,
            year: None,
            month: 0,
            day: 0,
            nanos: secs * 1_000_000_000 + frac,
        };
        return Some((stamp, rest));
    }
    let days = i64::try_from(secs / 86_400).ok()?;
    let (y, m, d) = civil_from_days(days);
    if !YEARS.contains(&u64::try_from(y).ok()?) {
        return None;
    }
    let stamp = Stamp {
        clock: Clock::Wall,
        rollovers: 0,
        year: u16::try_from(y).ok(),
        month: u8::try_from(m).ok()?,
        day: u8::try_from(d).ok()?,
        nanos: (secs % 86_400) * 1_000_000_000 + frac,
    };
    Some((stamp, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    #[test]
    fn each_clock() {
        let (t, rest) = parse_stamp("11-23 11:20:03.123 I/x").unwrap();
        assert_eq!(
            (t.clock, t.year, t.month, t.day),
            (Clock::Wall, None, 11, 23)
        );
        assert_eq!(t.nanos, (11 * 3600 + 20 * 60 + 3) * S + 123_000_000);
        assert_eq!(rest, " I/x");
        // `-v epoch`: 1700000000 s = 2023-11-14 22:13:20 UTC.
        let (t, _) = parse_stamp("1700000000.250  1 2 I x: y").unwrap();
        assert_eq!((t.year, t.month, t.day), (Some(2023), 11, 14));
        assert_eq!(t.nanos, (22 * 3600 + 13 * 60 + 20) * S + 250_000_000);
        // `-v monotonic`: `%6lld`-padded seconds since boot.
        let (t, _) = parse_stamp("   123.000456789  1 2 I x: y").unwrap();
        assert_eq!((t.clock, t.nanos), (Clock::Monotonic, 123 * S + 456_789));
        let (t, _) = parse_stamp("16:04:55.322 18439-18439 x").unwrap();
        assert_eq!(
            (t.clock, t.nanos),
            (
                Clock::TimeOfDay,
                (16 * 3600 + 4 * 60 + 55) * S + 322_000_000
            )
        );
        // A zone is read past; a pid is not a time.
        assert_eq!(
            parse_stamp("11-23 11:20:03.123 -0800 I/x").unwrap().1,
            " I/x"
        );
        assert!(parse_stamp("1234  1250 I x: y").is_none());
        assert!(parse_stamp("11-23 11:20:03.123x").is_none());
    }

    #[test]
    fn epoch_days_round_trip() {
        for days in [0, 10_957, 19_675, 47_482] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(10_957), (2000, 1, 1));
    }
}
