import AppStore

/// Event ids derived from their cause, so processing the same fact twice yields the same id.
///
/// An id is the RFC 9562 version-5 (name-based, SHA-1) UUID of a cause string under RevenueDot's
/// namespace. Cause strings name what made the event, never when it was processed:
///
/// - `<originalTransactionId>/PERIOD/<transactionId>`: the period's `INITIAL_PURCHASE` or
///   `RENEWAL`, one per period, whether a notification or the app's posted transaction reports
///   it first (the first report decides which of the two it is);
/// - `<originalTransactionId>/BILLING_ISSUE/<transactionId>` and
///   `…/CANCELLATION/BILLING_ERROR/<transactionId>`: one per failure streak (the period that
///   failed to renew);
/// - `<originalTransactionId>/EXPIRATION/<lapse key>`: one per lapse (see
///   `SubscriptionState.lapseKey`);
/// - `<transactionId>/NON_RENEWING_PURCHASE`: one per one-time purchase;
/// - `<purchase key>/TRANSFER/<n>`: the purchase's n-th change of owner;
/// - `notification/<notificationUUID>/<TYPE>`: every other event, one per notification.
public enum EventID {
    /// The id for `cause`: a lowercase UUID string.
    public static func make(cause: String) -> String {
        uuid5(namespace: namespace, name: cause)
    }

    /// A version-5 UUID of `name` under the namespace named `namespace` (itself the version-5
    /// UUID of that name under the URL namespace): stable ids for things other than events, such
    /// as the docs' example notifications (`make(cause:)` is this under `revenuedot:event`).
    public static func nameBased(_ name: String, in namespace: String) -> String {
        uuid5(namespace: uuidBytes(uuid5(namespace: urlNamespace, name: namespace)), name: name)
    }

    /// RevenueDot's namespace: the version-5 UUID of `revenuedot:event` under the URL namespace.
    static let namespace: [UInt8] = uuidBytes(uuid5(namespace: urlNamespace, name: "revenuedot:event"))

    /// RFC 9562's predefined URL namespace, `6ba7b811-9dad-11d1-80b4-00c04fd430c8`.
    static let urlNamespace: [UInt8] = [
        0x6B, 0xA7, 0xB8, 0x11, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8,
    ]

    /// The version-5 UUID of `name` in `namespace` (16 bytes), as a lowercase string.
    ///
    /// Written straight into the string's storage: the writer makes a few per notification.
    static func uuid5(namespace: [UInt8], name: String) -> String {
        var input = namespace
        input.append(contentsOf: name.utf8)
        let digest = SHA1.hash(input)
        return String(unsafeUninitializedCapacity: 36) { text in
            var at = 0
            for index in 0..<16 {
                var byte = digest[index]
                if index == 6 { byte = (byte & 0x0F) | 0x50 }  // version 5
                if index == 8 { byte = (byte & 0x3F) | 0x80 }  // RFC 9562 variant
                // 8-4-4-4-12 hex digits.
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[at] = UInt8(ascii: "-")
                    at += 1
                }
                text[at] = hexDigits[Int(byte >> 4)]
                text[at + 1] = hexDigits[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The 16 bytes of a UUID string written with hyphens.
    static func uuidBytes(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { $0 != "-" })
        return stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(String(digits[index...index + 1]), radix: 16) ?? 0
        }
    }
}
