/// UNIX milliseconds as ISO 8601 in UTC, to the second: `2019-07-26T17:40:10Z`.
///
/// Written by hand with Hinnant's civil-from-days arithmetic (proleptic Gregorian calendar), so the
/// text depends on nothing but the number: no locale, time zone or formatter state. Milliseconds are
/// truncated toward the past, as RevenueCat's v1 dates carry no fraction.
/// https://howardhinnant.github.io/date_algorithms.html#civil_from_days
public enum ISO8601UTC {
    public static let millisecondsPerDay: Int64 = 86_400_000

    /// The date and time of `milliseconds` since 1970-01-01T00:00:00Z; any `Int64` gives a date
    /// (years past 9999 or before 0 are written with more digits or a sign), never a trap.
    public static func string(fromMilliseconds milliseconds: Int64) -> String {
        let days = floorDivide(milliseconds, millisecondsPerDay)
        let remainder = milliseconds % millisecondsPerDay
        let secondOfDay = (remainder < 0 ? remainder + millisecondsPerDay : remainder) / 1000
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else {
            return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
                + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2) + "Z"
        }
        // The common case, four-digit years, written straight into the string's storage.
        return String(unsafeUninitializedCapacity: 20) { text in
            func put(_ value: Int64, _ width: Int, at offset: Int) {
                var rest = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            put(month, 2, at: 5)
            put(day, 2, at: 8)
            put(secondOfDay / 3600, 2, at: 11)
            put(secondOfDay / 60 % 60, 2, at: 14)
            put(secondOfDay % 60, 2, at: 17)
            (text[4], text[7], text[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
            (text[13], text[16], text[19]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "Z"))
            return 20
        }
    }

    /// Year, month (1–12) and day (1–31) of a count of days since 1970-01-01.
    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// At least `width` digits, zero-padded; a negative year keeps its sign in front.
    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let padding = String(repeating: "0", count: max(0, width - digits.count))
        return (value < 0 ? "-" : "") + padding + digits
    }
}
