import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

/// `POST /v1/subscribers/{id}/restore/eligibility`, the SDK's
/// `isPurchaseAllowedByRestoreBehavior()`: the answer a post of the transaction would get,
/// asked without posting it.
@Suite("RevenueCat restore eligibility")
struct RestoreEligibilityAPITests {
    static func ask(_ connection: LoopbackConnection, _ user: String, body: JSONValue, key: String = "pk_test_public")
        throws -> LoopbackResponse
    {
        try connection.request(
            "POST", "/v1/subscribers/\(user)/restore/eligibility",
            headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json", "X-Platform": "iOS"],
            body: Data(body.serialized().utf8))
    }

    /// Whether the purchase `signed` may be `user`'s, as the SDK reads the answer.
    static func allowed(_ connection: LoopbackConnection, _ user: String, _ signed: String) throws -> Bool? {
        let answer = try ask(connection, user, body: .object(["fetch_token": .string(signed)]))
        #expect(answer.status == 200, "\(answer.text)")
        switch try JSONValue(parsing: answer.body)["is_purchase_allowed_by_restore_behavior"] {
        case .bool(let allowed)?: return allowed
        default: return nil
        }
    }

    @Test func keepWithOriginalAnswersAsAPostWould() throws {
        let fixture = try ServerFixture(
            demoOptions: #""trackNewPurchasesFromServerNotifications": true, "restoreBehavior": "keepWithOriginal""#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let ritas = try LinkingAPITests.storeKitTransaction(fixture, original: "7300000001")
        #expect(try LinkingAPITests.link(connection, "rita", ritas) == 200)
        #expect(try Self.allowed(connection, "rita", ritas) == true)
        #expect(try Self.allowed(connection, "sam", ritas) == false)
        // The post itself is refused, as the answer said.
        #expect(try LinkingAPITests.link(connection, "sam", ritas) == 409)

        // A purchase nobody holds, or one tracking gave a customer the app never contacted, may be anyone's.
        let unknown = try LinkingAPITests.storeKitTransaction(fixture, original: "7300000002")
        #expect(try Self.allowed(connection, "tom", unknown) == true)
        let token = UUID().uuidString.lowercased()
        let payload = try fixture.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "7300000003", appAccountToken: token,
            transactionId: "7300000003")
        #expect(try connection.postNotification(payload).status == 200)
        let tracked = try LinkingAPITests.storeKitTransaction(fixture, original: "7300000003")
        #expect(try Self.allowed(connection, "tom", tracked) == true)

        // Asking changed nothing: no customer made, no purchase moved.
        let tom = try connection.request("HEAD", "/v1/subscribers/tom", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(tom.status == 404)
        #expect(try LinkingAPITests.owner(of: "7300000003", in: service) == token)
        #expect(try LinkingAPITests.owner(of: "7300000001", in: service) == "rita")
    }

    /// Under `transferIfNoActive` a refused post, repeated, is refused again without being
    /// stored again; once the owner's period has lapsed the answer turns, and the same post (the
    /// same content, signed again) moves the purchase.
    @Test func aRefusedRepostIsAskedAgainOnceTheOwnersPeriodLapses() throws {
        let fixture = try ServerFixture(demoOptions: #""restoreBehavior": "transferIfNoActive""#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        func transaction(signedMs: Int64) throws -> String {
            try fixture.signer.sign(
                .object([
                    "transactionId": .string("7300000005"), "originalTransactionId": .string("7300000005"),
                    "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"),
                    "purchaseDate": .integer(nowMs - 60_000), "originalPurchaseDate": .integer(nowMs - 60_000),
                    "expiresDate": .integer(nowMs + 6000), "type": .string("Auto-Renewable Subscription"),
                    "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"),
                    "signedDate": .integer(signedMs), "transactionReason": .string("PURCHASE"),
                ]))
        }
        #expect(try LinkingAPITests.link(connection, "alice", try transaction(signedMs: nowMs - 3000)) == 200)
        let bobs = try transaction(signedMs: nowMs - 2000)
        #expect(try Self.allowed(connection, "bob", bobs) == false)
        #expect(try LinkingAPITests.link(connection, "bob", bobs) == 409)
        let stored = try PostedTransactionRepostTests.postedRows(fixture)
        #expect(try LinkingAPITests.link(connection, "bob", try transaction(signedMs: nowMs - 1000)) == 409)
        #expect(try PostedTransactionRepostTests.postedRows(fixture) == stored, "a refusal repeated stores nothing")

        Thread.sleep(forTimeInterval: max(0, Double(nowMs + 6100) / 1000 - Date().timeIntervalSince1970))
        let again = try transaction(signedMs: Int64(Date().timeIntervalSince1970 * 1000))
        #expect(try Self.allowed(connection, "bob", again) == true)
        #expect(try LinkingAPITests.link(connection, "bob", again) == 200)
        #expect(try LinkingAPITests.owner(of: "7300000005", in: service) == "bob")
    }

    @Test func transferAllowsEveryPurchase() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let ritas = try LinkingAPITests.storeKitTransaction(fixture, original: "7300000004")
        #expect(try LinkingAPITests.link(connection, "rita", ritas) == 200)
        #expect(try Self.allowed(connection, "sam", ritas) == true)
    }

    @Test func badQuestionsAreRefusedInRevenueCatsShape() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let cases: [(JSONValue, Int, Int64, String)] = [
            (.object([:]), 400, 7226, "fetch_token"),
            (.object(["fetch_token": .integer(1)]), 400, 7226, "fetch_token"),
            (.object(["fetch_token": .string("eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ.c2ln")]), 401, 7103, "x5c"),
        ]
        try expectRevenueCatRefusals(cases) { try Self.ask(connection, "rita", body: $0) }
        let unauthorized = try Self.ask(connection, "rita", body: .object([:]), key: "nope")
        #expect(unauthorized.status == 401)
        let blocked = try Self.ask(connection, "null", body: .object([:]))
        #expect(blocked.status == 400, "\(blocked.text)")
    }
}
