import JSON
import LoopbackClient
import Testing

/// Expects each body `post` sends to be refused with its status, RevenueCat's code and a
/// message that says `says`.
func expectRevenueCatRefusals(
    _ cases: [(body: JSONValue, status: Int, code: Int64, says: String)], post: (JSONValue) throws -> LoopbackResponse
) throws {
    for (body, status, code, says) in cases {
        let answer = try post(body)
        #expect(answer.status == status, "\(body.serialized()): \(answer.text)")
        let json = try JSONValue(parsing: answer.body)
        #expect(json["code"] == .integer(code), "\(answer.text)")
        #expect(json["message"]?.stringValue?.contains(says) == true, "\(answer.text)")
        #expect(json["revenuedot_error"]?.stringValue != nil, "RevenueDot's code beside RevenueCat's: \(answer.text)")
    }
}
