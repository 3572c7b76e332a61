import Foundation
import HTTP
import Subscriptions

/// What an app user id the API is sent (in a path or a body) must be: at most `maxBytes` of
/// UTF-8, without control, line-separator or bidirectional characters (`isControl`) or invisible
/// ones (`isInvisible`), neither only white space nor padded with it, so that no id outgrows or disguises the rows, events and webhooks that carry
/// it; in Unicode normalization form C, the one spelling of canonically equivalent texts (Swift
/// compares ids, and keys the ledger's customers, as equal when canonically equivalent, while
/// rows are keyed by their bytes: two spellings of "josé" would be one customer in the ledger and
/// two in storage); not one of RevenueCat's blocked placeholders (`blocked`) nor holding "/" (a
/// secret-key request that only reaches a stored customer, `reaching`, is held to C0 and C1
/// controls alone); and, with the public key, none of the ids RevenueDot gives purchases nobody
/// has claimed (`CustomerState.anonymousPrefix` and a transaction id anyone who saw it knows):
/// the app may not read or take those, the secret key may.
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
        if !lenient, let invisible = id.unicodeScalars.first(where: Self.isInvisible) {
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
        if access == .publishable, id.hasPrefix(CustomerState.anonymousPrefix) {
            return Refusal(
                status: 403, code: "invalid_app_user_id",
                message: "\(name) names a purchase nobody has claimed: only the secret key may use it")
        }
        return nil
    }

    /// Whether `scalar` shows nothing where an id is shown (a Default_Ignorable_Code_Point: a
    /// zero-width space, a BOM, a Hangul filler), so that "ali\u{200B}ce" would pass for "alice"
    /// and an id of nothing but such characters for no id. The joiners and variation selectors
    /// that emoji sequences are made with are kept.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.properties.isDefaultIgnorableCodePoint else { return false }
        switch scalar.value {
        case 0x200C, 0x200D, 0xFE00...0xFE0F, 0xE0100...0xE01EF: return false
        default: return true
        }
    }

    /// Whether `id` is in Unicode normalization form C (ASCII always is).
    static func isNFC(_ id: String) -> Bool {
        id.utf8.allSatisfy { $0 < 0x80 } || id.precomposedStringWithCanonicalMapping.utf8.elementsEqual(id.utf8)
    }
}
