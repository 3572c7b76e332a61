import Server

/// `--limit N` and `--offset N` of a listing command: at most `limit` rows, newest first, after
/// skipping the newest `offset` (the next page). Absent options stay nil: the filter's defaults.
struct PageOptions {
    let limit: Int?
    let offset: Int?

    /// Reads both options from `parsed`; a limit over `maximumLimit` is refused, not cut, so a
    /// user who asked for everything learns they got a page.
    init(_ parsed: ParsedArguments, maximumLimit: Int) throws(UsageError) {
        if let text = parsed.value("limit") {
            // Digits past Int's range are a number too large, not something else.
            guard let limit = Int(text) ?? (text.isASCIIDigits ? Int.max : nil), limit > 0 else {
                throw UsageError("--limit must be a positive number")
            }
            guard limit <= maximumLimit else { throw UsageError("--limit is at most \(maximumLimit), got \(text)") }
            self.limit = limit
        } else {
            limit = nil
        }
        if let text = parsed.value("offset") {
            guard let offset = Int(text), offset >= 0 else { throw UsageError("--offset must be 0 or a positive number") }
            self.offset = offset
        } else {
            offset = nil
        }
    }
}
