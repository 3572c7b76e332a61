/// A URL as a configuration error may quote it: its password, if the text has one in
/// `scheme://user:password@host`, replaced by `***`, whether or not the rest parses. An error
/// line goes to the terminal, the log and the reload's refusal, which must not carry a secret.
package enum URLText {
    /// The password runs from the first `:` after the scheme (with no `/` before it: a user name
    /// has none) to the last `@` of the text, which a password may contain, with `/`, `?` and
    /// `#`: anything between them may be secret, and an error line may show less, never more.
    /// A port followed by a path with an `@` in it is hidden too.
    package static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        guard let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/"),
            let at = rest[colon...].lastIndex(of: "@")
        else { return text }
        return String(text[...colon]) + "***" + String(text[at...])
    }
}
