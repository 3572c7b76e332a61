import Foundation
import JSON

/// What a compact JWS says, read without verifying its signature: for showing a stored payload
/// whose signature no longer verifies (its root was taken out of the configuration since).
/// Never a basis for trusting anything.
public enum UnverifiedPayload {
    /// Whether `text` has the form of a compact JWS: three non-empty base64url segments. Says
    /// nothing of who signed it.
    public static func isCompactJWS(_ text: String) -> Bool {
        guard let jws = try? CompactJWS(text) else { return false }
        return (try? jws.header()) != nil
    }

    /// The payload as JSON; a notification's nested signed fields are decoded the same way and
    /// named as `VerifiedSignedData.decodedJSON()` names them (`transactionInfo`, `renewalInfo`,
    /// `appTransactionInfo`). A nested field that is not a readable JWS stays as it is.
    public static func json(of jws: String) throws -> JSONValue {
        var object = try JSONValue(parsing: CompactJWS(jws).payload)
        let nested = [
            ("data", "signedTransactionInfo", "transactionInfo"), ("data", "signedRenewalInfo", "renewalInfo"),
            ("appData", "signedAppTransactionInfo", "appTransactionInfo"),
        ]
        for (container, signed, decoded) in nested {
            guard var inner = object[container], case .string(let text)? = inner[signed],
                let payload = try? CompactJWS(text).payload, let value = try? JSONValue(parsing: payload)
            else { continue }
            inner[signed] = nil
            inner[decoded] = value
            object[container] = inner
        }
        return object
    }
}
