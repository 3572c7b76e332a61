extension PostgresConnection {
    /// libpq's `message` as one line for a log or an error: lines trimmed and joined with "; ",
    /// except that a tab-indented line starting in lower case continues the sentence before it
    /// ("…terminated abnormally\n\tbefore or while…"); runs of white space within a line become
    /// one space (`FATAL:  password…`). A line said again is said once: libpq repeats the
    /// server's refusal for each attempt (`sslmode=prefer` tries with TLS, then without).
    static func oneLine(_ message: String) -> String {
        var joined = ""
        var said: Set<String> = []
        for line in message.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard !words.isEmpty, said.insert(words).inserted else { continue }
            if !joined.isEmpty {
                let continues = line.first == "\t" && words.first?.isLowercase == true
                joined += continues ? " " : "; "
            }
            joined += words
        }
        return joined
    }
}
