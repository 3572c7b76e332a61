extension PostgresConnection {
    /// libpq's `message` as one line for a log or an error: lines trimmed and joined with "; ",
    /// except that a tab-indented line starting in lower case continues the sentence before it
    /// ("…terminated abnormally\n\tbefore or while…"); runs of white space within a line become
    /// one space (`FATAL:  password…`).
    static func oneLine(_ message: String) -> String {
        var joined = ""
        for line in message.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard !words.isEmpty else { continue }
            if !joined.isEmpty {
                let continues = line.first == "\t" && words.first?.isLowercase == true
                joined += continues ? " " : "; "
            }
            joined += words
        }
        return joined
    }
}
