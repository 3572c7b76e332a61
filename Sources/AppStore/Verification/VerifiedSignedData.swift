import Foundation
import JSON

/// Any App Store signed object, verified: what `revenuedot verify` accepts.
public enum VerifiedSignedData: Sendable {
    case notification(VerifiedNotification)
    case transaction(VerifiedPayload<JWSTransactionDecodedPayload>)
    case renewalInfo(VerifiedPayload<JWSRenewalInfoDecodedPayload>)
    case appTransaction(VerifiedPayload<AppTransaction>)

    /// The payload as a JSON object, unknown fields kept, with nested signed objects replaced
    /// by their decoded payloads: `data.signedTransactionInfo` → `data.transactionInfo`,
    /// `data.signedRenewalInfo` → `data.renewalInfo`,
    /// `appData.signedAppTransactionInfo` → `appData.appTransactionInfo`.
    public func decodedJSON() throws -> JSONValue {
        switch self {
        case .transaction(let verified): return try JSONValue(parsing: verified.json)
        case .renewalInfo(let verified): return try JSONValue(parsing: verified.json)
        case .appTransaction(let verified): return try JSONValue(parsing: verified.json)
        case .notification(let verified):
            var object = try JSONValue(parsing: verified.notification.json)
            if var data = object["data"] {
                if let transaction = verified.transaction {
                    data["signedTransactionInfo"] = nil
                    data["transactionInfo"] = try JSONValue(parsing: transaction.json)
                }
                if let renewalInfo = verified.renewalInfo {
                    data["signedRenewalInfo"] = nil
                    data["renewalInfo"] = try JSONValue(parsing: renewalInfo.json)
                }
                object["data"] = data
            }
            if var appData = object["appData"], let appTransaction = verified.appTransaction {
                appData["signedAppTransactionInfo"] = nil
                appData["appTransactionInfo"] = try JSONValue(parsing: appTransaction.json)
                object["appData"] = appData
            }
            return object
        }
    }
}

extension SignedDataVerifier {
    /// The kinds of signed object App Store makes, told apart by their payload's members.
    public enum PayloadKind: String, Sendable, CaseIterable {
        case notification, transaction, renewalInfo, appTransaction

        /// The name on the command line: `notification`, `transaction`, `renewal-info`,
        /// `app-transaction`.
        public var commandName: String {
            switch self {
            case .notification: "notification"
            case .transaction: "transaction"
            case .renewalInfo: "renewal-info"
            case .appTransaction: "app-transaction"
            }
        }
    }

    /// Verifies `text` as a payload of `kind`, as Apple's callers say what they verify; with no
    /// kind, as a notification, transaction, renewal info or app transaction, whichever `text`
    /// holds (told apart by its members, `kind(of:)`). `text` may also be Apple's request body
    /// `{"signedPayload": "..."}`.
    public func verifyAny(_ text: String, as kind: PayloadKind? = nil, now: Date = Date()) throws(VerificationError)
        -> VerifiedSignedData
    {
        let jws = try Self.unwrapRequestBody(text)
        let told: PayloadKind
        if let kind { told = kind } else { told = try Self.kind(of: jws) }
        switch told {
        case .notification: return .notification(try verifyNotification(jws, now: now))
        case .transaction: return .transaction(try verifyTransaction(jws, now: now))
        case .renewalInfo: return .renewalInfo(try verifyRenewalInfo(jws, now: now))
        case .appTransaction: return .appTransaction(try verifyAppTransaction(jws, now: now))
        }
    }

    /// The JWS inside `{"signedPayload": "..."}`, or the text itself, trimmed.
    public static func unwrapRequestBody(_ text: String) throws(VerificationError) -> String {
        let trimmed = trimmingASCIIWhitespace(text)
        guard trimmed.hasPrefix("{") else { return trimmed }
        do {
            return try NotificationRequestBody.signedPayload(of: Data(trimmed.utf8))
        } catch {
            throw VerificationError(.verificationFailure, "a JSON body must be {\"signedPayload\": \"<JWS>\"}: \(error)")
        }
    }

    /// Which kind of payload an (unverified) JWS carries.
    public static func kind(of jws: String) throws(VerificationError) -> PayloadKind {
        let parsed = try CompactJWS(jws)
        guard let probe = try? decoder.decode(KindProbe.self, from: parsed.payload) else {
            throw VerificationError(.verificationFailure, "the payload is not a JSON object")
        }
        guard let kind = probe.kind else {
            throw VerificationError(
                .verificationFailure, "the payload is not a notification, transaction, renewal info or app transaction")
        }
        return kind
    }

    /// Tells payload kinds apart by which members are present.
    private struct KindProbe: Decodable {
        var kind: PayloadKind?

        private enum Keys: String, CodingKey {
            case notificationType, receiptType, transactionId, autoRenewStatus, autoRenewProductId, renewalDate
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            if container.contains(.notificationType) {
                kind = .notification
            } else if container.contains(.receiptType) {
                kind = .appTransaction
            } else if container.contains(.transactionId) {
                kind = .transaction
            } else if container.contains(.autoRenewStatus) || container.contains(.autoRenewProductId)
                || container.contains(.renewalDate)
            {
                kind = .renewalInfo
            }
        }
    }

    /// `text` without leading and trailing spaces, tabs and line breaks.
    static func trimmingASCIIWhitespace(_ text: String) -> String {
        let utf8 = text.utf8
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        if first == utf8.startIndex, last == utf8.index(before: utf8.endIndex) { return text }
        return String(text[first...last])
    }
}
