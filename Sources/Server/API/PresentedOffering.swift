import AppStore
import JSON

/// The offering an app says it sold a purchase from: RevenueCat's SDK posts
/// `presented_offering_identifier` with a purchase made from one of its offerings, and the
/// events of the purchase carry it as `presented_offering_id`. Any id is kept, configured or
/// not: an app may have cached an offering since removed from the configuration.
package struct PresentedOffering: Sendable, Equatable {
    package var id: String
    /// The product bought from it (`product_id` of RevenueCat's receipt); nil when the offering
    /// is the only transaction's the body holds, whatever its product.
    package var productId: String?

    /// The longest id kept, in UTF-8 bytes (as an `app_user_id`).
    static let maxBytes = 256

    /// What a body member holds.
    package enum Read: Equatable {
        /// Absent, null or empty: no offering.
        case none
        case offering(String)
        /// Why the member is refused, in one line.
        case refused(String)
    }

    /// The member `name` of a body read: a string of at most `maxBytes` bytes without control
    /// characters, or null.
    package static func read(_ member: JSONValue?, name: String) -> Read {
        switch member {
        case nil, .null?: return .none
        case .string(let id)?:
            if id.isEmpty { return .none }
            if id.utf8.count > maxBytes { return .refused("\(name) is longer than \(maxBytes) bytes") }
            if id.unicodeScalars.contains(where: \.isControl) { return .refused("\(name) holds a control character") }
            return .offering(id)
        default: return .refused("\(name) must be a string: the identifier of the offering the purchase was made from")
        }
    }

    /// The offering's id when `transaction` was bought from it.
    func id(for transaction: JWSTransactionDecodedPayload) -> String? {
        productId == nil || productId == transaction.productId ? id : nil
    }
}
