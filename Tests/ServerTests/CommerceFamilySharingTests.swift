import AdvancedCommerce
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

extension CommerceAPITests {
    /// A family member has the subscription through Family Sharing: only the purchaser may
    /// change it, so a modify request for the member is Apple's ProductNotOwnedError, and
    /// nothing is signed or stored.
    @Test func aFamilyMemberCannotModifyThePurchasersSubscription() throws {
        defer { service.shutdown() }
        let shared = try fixture.signer.sign(
            transaction(id: "12345", items: ["ANNES_GOLD_TIER_1M"], period: "P1M", ownership: "FAMILY_SHARED"))
        #expect(try connection.postTransaction(shared, for: user).status == 200)
        let (code, answer) = try post(.object(["app_user_id": .string(user), "request": Self.upgrade]))
        #expect(code == 422, "\(answer)")
        #expect(answer["error"]?["code"] == .string("ProductNotOwnedError"), "\(answer)")
        #expect(
            answer["errors"]?.arrayValue?.contains {
                $0["appleErrorCode"] == .integer(4_030_013) && $0["field"] == .string("transactionId")
            } == true, "\(answer)")
        let missing = try connection.request(
            "GET", "/v1/advanced-commerce/demo/requests/e2a88501-25ba-403a-9c46-d7b8eecc56ba",
            headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(missing.status == 404)
    }
}
