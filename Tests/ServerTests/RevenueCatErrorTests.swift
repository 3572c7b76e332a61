import AppStore
import Foundation
import HTTP
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// RevenueDot's errors on RevenueCat's paths, in RevenueCat's shape with the codes its SDKs know.
@Suite struct RevenueCatErrorTests {
    /// A refusal made in RevenueCat's terms carries RevenueDot's code too, the one `translate`
    /// would turn back into the same RevenueCat error.
    @Test func refusalsMadeInRevenueCatsTermsCarryOurCode() throws {
        let all: [RevenueCatError] = [
            .storeProblem, .cannotTransferPurchase, .invalidReceipt, .internalServerError, .emptyAppUserId,
            .invalidAPIKey, .badRequest, .userIneligibleForPromoOffer, .invalidAppleSubscriptionKey, .invalidAppUserId,
            .notFound, .invalidSubscriberAttributes, .invalidSubscriberAttributesBody, .couldNotCreateAlias,
            .requestAlreadyInProgress, .purchaseBelongsToOtherUser,
        ]
        for error in all {
            let body = try JSONValue(parsing: error.response(status: 400, "why").body)
            #expect(body["revenuedot_error"] == .string(error.revenueDotCode))
            if let back = RevenueCatError.byCode[error.revenueDotCode], error != .invalidSubscriberAttributesBody {
                #expect(back == error, "\(error.revenueDotCode)")
            }
        }
        let given = try JSONValue(
            parsing: RevenueCatError.badRequest.response(
                status: 400, "why", extra: ["revenuedot_error": .string("invalid_attributes")]
            ).body)
        #expect(given["revenuedot_error"] == .string("invalid_attributes"))
    }

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

    /// Under /v1, a path RevenueDot does not serve is answered in RevenueCat's shape (its SDKs
    /// ask for features RevenueDot has not: the customer center, virtual currencies), but under
    /// RevenueDot's own prefixes, in RevenueDot's.
    @Test func unservedPathsAreAnsweredInTheirNamespacesShape() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let key = ["Authorization": "Bearer pk_test_public"]
        for path in ["/v1/customercenter/rita", "/v1/subscribers/rita/virtual_currencies", "/v1/nothing"] {
            let answer = try connection.request("GET", path, headers: key)
            #expect(answer.status == 404, "\(path)")
            #expect(try JSONValue(parsing: answer.body)["code"] == .integer(7259), "\(path): \(answer.text)")
        }
        for path in ["/v1/apple/nothing", "/v1/advanced-commerce/demo/nothing/x", "/v1/events/x/y/z", "/nothing"] {
            let answer = try connection.request("GET", path, headers: key)
            #expect(answer.status == 404, "\(path)")
            #expect(try JSONValue(parsing: answer.body)["error"]?["code"] == .string("not_found"), "\(path): \(answer.text)")
        }
    }

    @Test func answersThatAreNoErrorOfOursStayAsTheyAre() {
        let success = HTTPResponse.json(Data(#"{"error": {"code": "x"}}"#.utf8))
        #expect(RevenueCatError.translate(success).body == success.body)
        let already = RevenueCatError.invalidSubscriberAttributes.response(status: 400, "m")
        #expect(RevenueCatError.translate(already).body == already.body)
    }
}
