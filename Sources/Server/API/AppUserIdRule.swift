import Foundation
import HTTP
import Subscriptions

/// What an app user id the API is sent (in a path or a body) must be: at most `maxBytes` of
/// UTF-8, without control, line-separator or bidirectional characters (`isControl`) or invisible
/// ones (`invisibleScalar`), neither only white space nor padded with it, so that no id outgrows
/// or disguises the rows, events and webhooks that carry it; in Unicode normalization form C,
/// the one spelling of canonically equivalent texts (Swift compares ids, and keys the ledger's
/// customers, as equal when canonically equivalent, while rows are keyed by their bytes: two
/// spellings of "josé" would be one customer in the ledger and two in storage); not one of
/// RevenueCat's blocked placeholders (`blocked`) nor holding "/" (a secret-key request that only
/// reaches a stored customer, `reaching`, is held to C0 and C1 controls alone); and, with the
/// public key, none of the ids RevenueDot gives purchases nobody has claimed
/// (`CustomerState.anonymousPrefix` and a transaction id anyone who saw it knows): the app may
/// not read or take those, the secret key may.
package enum AppUserIdRule {
    static let maxBytes = 256

    /// RevenueCat's blocked ids (in lower case, compared so): placeholders an app sends when it
    /// has no user, which would make every such install one customer sharing its purchases.
    static let blocked: Set<String> = [
        "no_user", "null", "none", "nil", "(null)", "nan", "unidentified", "undefined", "unknown", "anonymous", "guest",
        "-1", "0", "[]", "{}", "[object object]",
    ]

    /// Why an id is refused: the API's status, code and one-line message.
    package struct Refusal: Sendable {
        package let status: Int
        package let code: String
        package let message: String

        var response: HTTPResponse { .error(status: status, code: code, message: message) }
    }

    /// Why `id` is refused, as the API answers it, or nil when it may be used with `access`.
    ///
    /// - Parameter reaching: the request only reads or deletes a customer that must exist
    ///   (`GET` of one already stored, `DELETE`): the secret key may then name an id stored
    ///   before blank ids and line and bidirectional characters were refused. Any request that
    ///   may make or change a customer under `id` holds the secret key to the public key's rules.
    static func refusal(
        _ id: String, access: APIKeys.Access, name: String = "app_user_id", reaching: Bool = false
    ) -> HTTPResponse? {
        problem(id, access: access, name: name, reaching: reaching)?.response
    }

    /// Why `id` is refused, or nil when it may be used with `access` (`reaching`: see `refusal`).
    package static func problem(
        _ id: String, access: APIKeys.Access, name: String = "app_user_id", reaching: Bool = false
    ) -> Refusal? {
        guard !id.isEmpty else { return Refusal(status: 400, code: "empty_app_user_id", message: "\(name) is empty") }
        guard id.utf8.count <= maxBytes else {
            return Refusal(status: 400, code: "invalid_app_user_id", message: "\(name) is longer than \(maxBytes) bytes")
        }
        // A secret-key read or deletion reaches a customer stored under such an id.
        let lenient = access == .secret && reaching
        let control: (Unicode.Scalar) -> Bool = lenient ? { $0.isC0OrC1Control } : { $0.isControl }
        guard !id.unicodeScalars.contains(where: control) else {
            return Refusal(status: 400, code: "invalid_app_user_id", message: "\(name) holds a control character")
        }
        if !lenient, id.allSatisfy(\.isWhitespace) {
            return Refusal(status: 400, code: "invalid_app_user_id", message: "\(name) is only white space")
        }
        if !lenient, let invisible = Self.invisibleScalar(in: id) {
            let code = "U+" + String(invisible.value, radix: 16, uppercase: true)
            return Refusal(
                status: 400, code: "invalid_app_user_id", message: "\(name) holds an invisible character (\(code))")
        }
        if !lenient, id.first?.isWhitespace == true || id.last?.isWhitespace == true {
            return Refusal(
                status: 400, code: "invalid_app_user_id", message: "\(name) begins or ends with white space")
        }
        if !lenient, !Self.isNFC(id) {
            return Refusal(
                status: 400, code: "invalid_app_user_id",
                message: "\(name) is not in Unicode normalization form C (NFC): send its composed form")
        }
        if !lenient, blocked.contains(id.lowercased()) {
            return Refusal(
                status: 400, code: "invalid_app_user_id",
                message: "\(name) \"\(id)\" is blocked: a placeholder many installs send would make them one customer")
        }
        if !lenient, id.contains("/") {
            return Refusal(status: 400, code: "invalid_app_user_id", message: "\(name) holds a slash")
        }
        // URLs and the proxies in front resolve them away: such a customer could not be reached.
        if !lenient, id == "." || id == ".." {
            return Refusal(status: 400, code: "invalid_app_user_id", message: "\(name) \"\(id)\" is a path segment")
        }
        if access == .publishable, id.hasPrefix(CustomerState.anonymousPrefix) {
            return Refusal(
                status: 403, code: "invalid_app_user_id",
                message: "\(name) names a purchase nobody has claimed: only the secret key may use it")
        }
        return nil
    }

    /// The first scalar of `id` that shows nothing where an id is shown and changes nothing it
    /// stands by (a Default_Ignorable_Code_Point: a zero-width space, a BOM, a Hangul filler,
    /// a soft hyphen), so that "ali\u{200B}ce" would pass for "alice" and an id of nothing but
    /// such characters for no id; nil when there is none. Kept are the ones writing needs, only
    /// where they do something: a variation selector after an emoji or a letter beyond ASCII
    /// ("❤️", an ideographic variant), a joiner or non-joiner between two scalars beyond ASCII
    /// (emoji ZWJ sequences, Persian and Indic text), and the tags of a flag after U+1F3F4
    /// (Scotland's, up to the cancel tag).
    static func invisibleScalar(in id: String) -> Unicode.Scalar? {
        let scalars = Array(id.unicodeScalars)
        func beyondASCII(_ index: Int) -> Bool { scalars.indices.contains(index) && scalars[index].value > 0x7F }
        var inFlag = false
        for (index, scalar) in scalars.enumerated() {
            let value = scalar.value
            if (0xE0020...0xE007F).contains(value) {
                // Tags follow U+1F3F4 (or a tag), and the cancel tag ends them.
                let follows = index > 0 && (scalars[index - 1].value == 0x1F3F4 || inFlag)
                inFlag = follows && value != 0xE007F
                guard follows, value == 0xE007F || scalars[(index + 1)...].contains(where: { $0.value == 0xE007F })
                else { return scalar }
                continue
            }
            inFlag = false
            guard scalar.properties.isDefaultIgnorableCodePoint else { continue }
            switch value {
            case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F:
                if index > 0, scalars[index - 1].properties.isEmoji || beyondASCII(index - 1) { continue }
            case 0x200C, 0x200D:
                if beyondASCII(index - 1), beyondASCII(index + 1) { continue }
            default: break
            }
            return scalar
        }
        return nil
    }

    /// Whether `id` is in Unicode normalization form C (ASCII always is).
    static func isNFC(_ id: String) -> Bool {
        id.utf8.allSatisfy { $0 < 0x80 } || id.precomposedStringWithCanonicalMapping.utf8.elementsEqual(id.utf8)
    }
}
