import Foundation
import JSON

/// The message of a request body refused for its shape: what is wrong with it as JSON, when
/// something is (not JSON; a member given twice, which readers resolve differently), then the
/// shape it must have.
enum BodyShape {
    static func refusal(_ body: Data, shape: String) -> String {
        do {
            _ = try JSONValue(parsingWithoutRepeatedNames: body)
        } catch let repeated as JSONValue.RepeatedName {
            return "\(repeated): \(shape)"
        } catch {
            return "the body is not JSON: \(shape)"
        }
        return shape
    }
}
