import AppStore
import Foundation
import Subscriptions

/// The bytes RevenueCat consumers expect: `{"api_version":"1.0","event":{…}}`.
///
/// Every field of the event format is present, `null` when it does not apply, as RevenueCat
/// sends it (consumers index fields without checking for them). Keys are sorted, so the body of
/// an event is the same on every attempt.
enum WebhookBody {
    static let apiVersion = "1.0"

    /// The event object of a stored event, with every field of the format.
    static func event(fromStored json: String) throws -> JSONValue {
        guard case .object(var members) = try JSONValue(parsing: Data(json.utf8)) else {
            throw WebhookBodyError(description: "stored event is not a JSON object")
        }
        for key in Event.CodingKeys.allCases where members[key.rawValue] == nil {
            members[key.rawValue] = .null
        }
        return .object(members)
    }

    /// The envelope of a stored event.
    static func envelope(fromStored json: String) throws -> JSONValue {
        .object(["api_version": .string(apiVersion), "event": try event(fromStored: json)])
    }

    /// The request body of a stored event.
    static func body(fromStored json: String) throws -> Data {
        Data(try envelope(fromStored: json).serialized().utf8)
    }
}

struct WebhookBodyError: Error, CustomStringConvertible {
    var description: String
}

/// `X-RevenueDot-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
///
/// The receiver recomputes the HMAC over the timestamp and the raw body with the shared secret,
/// compares in constant time, and refuses old timestamps to stop replays.
enum WebhookSignature {
    static let header = "X-RevenueDot-Signature"

    static func value(body: Data, secret: String, at unixSeconds: Int64) -> String {
        var signed = Data("\(unixSeconds).".utf8)
        signed.append(body)
        return "t=\(unixSeconds),v1=\(Digest.hex(Digest.hmacSHA256(key: Data(secret.utf8), data: signed)))"
    }

    /// Whether `header` signs `body` with `secret` (for receivers and tests).
    static func verify(header: String, body: Data, secret: String) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp else { return false }
        let expected = Array(value(body: body, secret: secret, at: timestamp).utf8)
        return signatures.contains { APIKeys.equal(Array("t=\(timestamp),v1=\($0)".utf8), expected) }
    }
}
