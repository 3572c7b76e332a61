extension StringProtocol {
    /// Whether the text is one or more ASCII digits, 0 to 9, and nothing else: a decimal
    /// number as Apple writes its ids, with no sign, space, point or other script's digit.
    package var isASCIIDigits: Bool {
        !isEmpty && utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
