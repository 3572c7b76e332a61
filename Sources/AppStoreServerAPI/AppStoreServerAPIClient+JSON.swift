import AppStore
import Foundation
import JSON

extension AppStoreServerAPIClient {
    /// Apple's answer to `endpoint` as JSON, every signed member verified and replaced by its
    /// decoded payload (`signedTransactions` by `transactions`, `signedPayload` by `payload`,
    /// with a notification's own signed objects decoded too); `{}` for an empty answer.
    public func answerJSON(_ endpoint: Endpoint) throws(AppStoreServerAPIError) -> JSONValue {
        let body = try send(endpoint)
        guard !body.isEmpty else { return .object([:]) }
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch {
            throw AppStoreServerAPIError(.invalidAnswer("not JSON: \(error)"), endpoint: endpoint.name)
        }
        return try decodingSigned(json, endpoint)
    }

    /// The kinds of signed member Apple's answers hold, by name.
    static let signedMembers: [String: SignedDataVerifier.PayloadKind] = [
        "signedTransactionInfo": .transaction, "signedTransactions": .transaction, "signedRenewalInfo": .renewalInfo,
        "signedPayload": .notification, "signedAppTransactionInfo": .appTransaction,
    ]

    private func decodingSigned(_ json: JSONValue, _ endpoint: Endpoint) throws(AppStoreServerAPIError) -> JSONValue {
        switch json {
        case .array(let elements):
            var out: [JSONValue] = []
            for element in elements { out.append(try decodingSigned(element, endpoint)) }
            return .array(out)
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for (name, value) in members {
                guard let kind = Self.signedMembers[name] else {
                    out[name] = try decodingSigned(value, endpoint)
                    continue
                }
                let decodedName = name.dropFirst("signed".count).prefix(1).lowercased() + name.dropFirst("signed".count + 1)
                out[decodedName] = try decoded(value, as: kind, endpoint)
            }
            return .object(out)
        default:
            return json
        }
    }

    private func decoded(_ value: JSONValue, as kind: SignedDataVerifier.PayloadKind, _ endpoint: Endpoint)
        throws(AppStoreServerAPIError) -> JSONValue
    {
        switch value {
        case .string(let jws):
            let verified = try verified(endpoint) { () throws(VerificationError) in
                try verifier.verifyAny(jws, as: kind, now: clockNow)
            }
            do { return try verified.decodedJSON() } catch {
                throw AppStoreServerAPIError(.invalidAnswer("\(error)"), endpoint: endpoint.name)
            }
        case .array(let elements):
            var out: [JSONValue] = []
            for element in elements { out.append(try decoded(element, as: kind, endpoint)) }
            return .array(out)
        default:
            return value
        }
    }
}
