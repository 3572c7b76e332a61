import Foundation

/// The CSV `revenuedot import` reads and the lists it writes (rows not found or failed).
extension Import {
    /// The rows of a CSV with a header naming `original_transaction_id` (and maybe
    /// `app_user_id`); quoted fields may hold commas and doubled quotes. A byte order mark before
    /// the header (spreadsheets export one) is not part of its first name; blank lines are
    /// skipped. Anything a careful export would not hold is refused, naming its line: a quote not
    /// closed on its line (a field does not span lines), more fields than the header names, a
    /// header naming a column twice, an id Apple would not give (not decimal, a leading zero,
    /// over 20 digits), an id on two lines for two customers (the same row twice is read once).
    package static func rows(csv text: String) throws(UsageError) -> [Row] {
        let text = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().compactMap {
            index, line -> (number: Int, text: String)? in
            let text = String(line).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : (index + 1, text)
        }
        guard let headerLine = lines.first else { throw UsageError("the CSV is empty") }
        let header = try fields(headerLine.text, line: headerLine.number).map { $0.lowercased() }
        for (index, name) in header.enumerated() where !name.isEmpty && header[..<index].contains(name) {
            throw UsageError("the CSV's header names \(name) twice")
        }
        guard let originalColumn = header.firstIndex(of: "original_transaction_id") else {
            throw UsageError("the CSV's header has no original_transaction_id column")
        }
        let userColumn = header.firstIndex(of: "app_user_id")
        var rows: [Row] = []
        var seen: [String: (line: Int, row: Int)] = [:]
        for (number, line) in lines.dropFirst() {
            let values = try fields(line, line: number)
            guard values.count <= header.count else {
                throw UsageError("CSV line \(number): \(values.count) fields, where the header names \(header.count)")
            }
            guard originalColumn < values.count, let id = Optional(values[originalColumn]), id.isASCIIDigits else {
                throw UsageError("CSV line \(number): no decimal original_transaction_id")
            }
            guard id.isAppleTransactionId else {
                throw UsageError("CSV line \(number): \(id) is no transaction id Apple gives (a leading zero, or over 20 digits)")
            }
            let user = userColumn.flatMap { $0 < values.count ? values[$0] : nil }.flatMap { $0.isEmpty ? nil : $0 }
            // The API's rule, so a row is refused alike with serve running or not.
            if let user, let refused = AppUserIdRule.problem(user, access: .secret) {
                throw UsageError("CSV line \(number): \(refused.message)")
            }
            // The same row again is read once; the id with another customer would move the
            // purchase between them, in an order the concurrency decides.
            if let first = seen[id] {
                guard rows[first.row].appUserId == user else {
                    throw UsageError(
                        "CSV line \(number): original_transaction_id \(id) is on line \(first.line) already, "
                            + "for another app_user_id")
                }
                continue
            }
            seen[id] = (number, rows.count)
            rows.append(Row(originalTransactionId: id, appUserId: user))
        }
        return rows
    }

    /// One CSV line of `fields` as `rows(csv:)` reads it: quoted where they hold a comma or a
    /// quote, a line break made a space (a line is a row).
    package static func csvLine(_ fields: [String]) -> String {
        fields.map { field in
            let text = String(field.map { $0.isNewline ? " " : $0 })
            guard text.contains(where: { $0 == "," || $0 == "\"" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\n"
    }

    /// One CSV line's fields (RFC 4180 quoting); a quote left open is refused, naming `line`.
    package static func fields(_ text: String, line: Int = 1) throws(UsageError) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" {
                        current.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        guard !quoted else { throw UsageError("CSV line \(line): a quoted field is not closed on its line") }
        fields.append(current.trimmingCharacters(in: .whitespaces))
        return fields
    }
}
