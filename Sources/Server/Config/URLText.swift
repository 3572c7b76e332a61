/// A URL as a configuration error may quote it: its password, if the text has one in
/// `scheme://user:password@host`, replaced by `***`, whether or not the rest parses. An error
/// line goes to the terminal, the log and the reload's refusal, which must not carry a secret.
package enum URLText {
    package static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        // The user information ends at the last @ before the path, query or fragment.
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
            let colon = rest[..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<rest.index(after: colon)]) + "***" + String(text[at...])
    }
}
