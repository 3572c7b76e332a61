import Foundation

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
    public func decodedObject() throws -> [String: Any] {
        switch self {
        case .transaction(let verified): return try Self.object(verified.json)
        case .renewalInfo(let verified): return try Self.object(verified.json)
        case .appTransaction(let verified): return try Self.object(verified.json)
        case .notification(let verified):
            var object = try Self.object(verified.notification.json)
            if var data = object["data"] as? [String: Any] {
                if let transaction = verified.transaction {
                    data["signedTransactionInfo"] = nil
                    data["transactionInfo"] = try Self.object(transaction.json)
                }
                if let renewalInfo = verified.renewalInfo {
                    data["signedRenewalInfo"] = nil
                    data["renewalInfo"] = try Self.object(renewalInfo.json)
                }
                object["data"] = data
            }
            if var appData = object["appData"] as? [String: Any], let appTransaction = verified.appTransaction {
                appData["signedAppTransactionInfo"] = nil
                appData["appTransactionInfo"] = try Self.object(appTransaction.json)
                object["appData"] = appData
            }
            return object
        }
    }

    private static func object(_ json: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw VerificationError(.verificationFailure, "the payload is not a JSON object")
        }
        return object
    }
}

extension SignedDataVerifier {
    /// The kinds of signed object App Store makes, told apart by their payload's members.
    public enum PayloadKind: String, Sendable {
        case notification, transaction, renewalInfo, appTransaction
    }

    /// Verifies a notification, transaction, renewal info or app transaction, whichever
    /// `text` holds; `text` may also be Apple's request body `{"signedPayload": "..."}`.
    public func verifyAny(_ text: String, now: Date = Date()) throws(VerificationError) -> VerifiedSignedData {
        let jws = try Self.unwrapRequestBody(text)
        switch try Self.kind(of: jws) {
        case .notification: return .notification(try verifyNotification(jws, now: now))
        case .transaction: return .transaction(try verifyTransaction(jws, now: now))
        case .renewalInfo: return .renewalInfo(try verifyRenewalInfo(jws, now: now))
        case .appTransaction: return .appTransaction(try verifyAppTransaction(jws, now: now))
        }
    }

    /// The JWS inside `{"signedPayload": "..."}`, or the text itself, trimmed.
    public static func unwrapRequestBody(_ text: String) throws(VerificationError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("{") else { return trimmed }
        struct Body: Decodable { var signedPayload: String }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(trimmed.utf8)).signedPayload
        } catch {
            throw VerificationError(.verificationFailure, "a JSON body must be {\"signedPayload\": \"<JWS>\"}")
        }
    }

    /// Which kind of payload an (unverified) JWS carries.
    public static func kind(of jws: String) throws(VerificationError) -> PayloadKind {
        let parsed = try CompactJWS(jws)
        guard let object = try? JSONSerialization.jsonObject(with: parsed.payload) as? [String: Any] else {
            throw VerificationError(.verificationFailure, "the payload is not a JSON object")
        }
        if object["notificationType"] != nil { return .notification }
        if object["receiptType"] != nil { return .appTransaction }
        if object["transactionId"] != nil { return .transaction }
        if object["autoRenewStatus"] != nil || object["autoRenewProductId"] != nil || object["renewalDate"] != nil {
            return .renewalInfo
        }
        throw VerificationError(.verificationFailure, "the payload is not a notification, transaction, renewal info or app transaction")
    }
}
