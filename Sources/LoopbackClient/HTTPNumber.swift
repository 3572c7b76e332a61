/// The numbers a response carries (status code, `Content-Length`, chunk sizes), read strictly
/// from the peer's bytes.
///
/// Each is digits only: no sign, no spaces, no exponent, no fraction (`Int(_:)` would take
/// "+12" and "-1"). A value that does not fit in `Int` is nil, never a trap; callers bound the
/// sizes they act on.
enum HTTPNumber {
    /// A decimal `1*DIGIT`, as `Content-Length` is
    /// ([RFC 9110 §8.6](https://www.rfc-editor.org/rfc/rfc9110#section-8.6)).
    static func decimal(_ bytes: some Collection<UInt8>) -> Int? {
        digits(bytes, radix: 10)
    }

    /// A hexadecimal `1*HEXDIG`, as a chunk size is
    /// ([RFC 9112 §7.1](https://www.rfc-editor.org/rfc/rfc9112#section-7.1)).
    static func hexadecimal(_ bytes: some Collection<UInt8>) -> Int? {
        digits(bytes, radix: 16)
    }

    /// The value of a `Content-Length` field: one count, or a list of the same count repeated
    /// (a field sent twice is joined with ", "), which RFC 9112 §6.3 lets a recipient take as
    /// one. Differing counts, or anything not a count, are nil: the framing is unknown.
    static func contentLength(_ field: String) -> Int? {
        var length: Int?
        for member in field.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            guard let value = decimal(ResponseReader.trimmingWhitespace(ArraySlice(member))),
                length == nil || length == value
            else { return nil }
            length = value
        }
        return length
    }

    private static func digits(_ bytes: some Collection<UInt8>, radix: Int) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = Int(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: radix)
            let (sum, carried) = shifted.addingReportingOverflow(digit)
            guard !overflowed, !carried else { return nil }
            value = sum
        }
        return value
    }
}
