import AppStore
import Foundation
import HTTP
import JSON
import Testing

@testable import Server
@testable import Tools

/// RevenueDot's errors on RevenueCat's paths, in RevenueCat's shape with the codes its SDKs know.
@Suite struct RevenueCatErrorTests {
    @Test(arguments: [
        (401, "unauthorized", 7225),
        (400, "bad_request", 7226),
        (404, "not_found", 7259),
        (409, "receipt_already_in_use", 7102),
        (409, "owned_by_another_customer", 7852),
        (503, "storage_unavailable", 7110),
        (401, "verificationFailure", 7103),
        (418, "something_else", 7226),
        (599, "something_else", 7110),
    ])
    func ourCodesBecomeRevenueCats(status: Int, code: String, expected: Int) throws {
        var response = HTTPResponse.error(status: status, code: code, message: "why")
        response.headers["Retry-After"] = "1"
        let translated = RevenueCatError.translate(response)
        #expect(translated.status == status)
        #expect(translated.headers["Retry-After"] == "1")
        #expect(
            try JSONValue(parsing: translated.body)
                == .object([
                    "code": .integer(Int64(expected)), "message": .string("why"), "revenuedot_error": .string(code),
                ]))
    }

    @Test func answersThatAreNoErrorOfOursStayAsTheyAre() {
        let success = HTTPResponse.json(Data(#"{"error": {"code": "x"}}"#.utf8))
        #expect(RevenueCatError.translate(success).body == success.body)
        let already = RevenueCatError.invalidSubscriberAttributes.response(status: 400, "m")
        #expect(RevenueCatError.translate(already).body == already.body)
    }
}
