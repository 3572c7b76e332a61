import JSON

extension StringProtocol {
    /// Whether the text is a transaction id Apple could give: a decimal number of at most 20
    /// digits without a leading zero. Anything else names no transaction, and is refused before
    /// Apple is asked or a row is kept.
    package var isAppleTransactionId: Bool {
        isASCIIDigits && first != "0" && utf8.count <= 20
    }
}
