import Foundation
import JSON

/// Apple's notification request body, `{"signedPayload": "<JWS>"}`, read the one way both the
/// server and `revenuedot verify` read it.
public enum NotificationRequestBody {
    /// Why a body is not Apple's.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The `signedPayload` of `body`. A name given twice is refused: which of the two is Apple's
    /// would be a guess, and parsers disagree (Foundation's keeps the first, ours the last).
    /// Other members are checked as JSON and dropped unbuilt: a stranger's body of nested arrays
    /// costs no more memory than its bytes.
    public static func signedPayload(of body: Data) throws(Problem) -> String {
        let json: JSONValue
        do {
            json = try JSONValue(parsingWithoutRepeatedNames: body, keeping: ["signedPayload"])
        } catch let repeated as JSONValue.RepeatedName {
            throw Problem(description: "the body is not Apple's: \(repeated)")
        } catch {
            throw Problem(description: "the body is not JSON: \(error)")
        }
        guard case .object = json else { throw Problem(description: "the body must be a JSON object") }
        guard let value = json["signedPayload"] else { throw Problem(description: "the body has no signedPayload") }
        guard let text = value.stringValue, !text.isEmpty else {
            throw Problem(description: "signedPayload must be a non-empty string")
        }
        return text
    }
}
