import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// `POST /v1/subscribers/{id}/transactions` again and again with the public key: a repost that
/// changes nothing stores nothing; a transfer or new content does.
@Suite("Reposted transactions")
struct PostedTransactionRepostTests {
    let fixture: ServerFixture
    let service: RevenueDotService
    let connection: LoopbackConnection

    init() throws {
        fixture = try ServerFixture()
        service = try fixture.startService()
        connection = try LoopbackConnection(port: service.port)
    }

    static let nowMs = Int64(Date().timeIntervalSince1970 * 1000)

    /// The same transaction, signed at `signedMs` (App Store signs it anew on each fetch), as
    /// `device` holds it (StoreKit adds the device's verification) or as the server's copy (nil).
    func transaction(signedMs: Int64, revoked: Bool = false, device: String? = nil) throws -> String {
        let purchase = Self.nowMs - 86_400_000
        var payload: [String: JSONValue] = [
            "transactionId": .string("7001"), "originalTransactionId": .string("7001"), "bundleId": .string("com.example.app"),
            "productId": .string("pro.monthly"), "purchaseDate": .integer(purchase),
            "expiresDate": .integer(purchase + 40 * 86_400_000), "type": .string("Auto-Renewable Subscription"),
            "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"), "signedDate": .integer(signedMs),
            "price": .integer(9990), "currency": .string("USD"),
        ]
        if let device {
            payload["deviceVerification"] = .string("verification-\(device)")
            payload["deviceVerificationNonce"] = .string("nonce-\(device)")
        }
        if revoked {
            payload["revocationDate"] = .integer(purchase + 86_400_000)
            payload["revocationReason"] = .integer(0)
        }
        return try fixture.signer.sign(.object(payload))
    }

    func rows() throws -> (posted: Int64, inputs: Int64) { try Self.postedRows(fixture) }

    /// How many posts and applied inputs `fixture`'s database holds.
    static func postedRows(_ fixture: ServerFixture) throws -> (posted: Int64, inputs: Int64) {
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        return try store.read { (rows) throws(StoreError) in
            (
                try rows.query("SELECT count(*) FROM posted_transactions")[0][0].integerValue ?? -1,
                try rows.query("SELECT count(*) FROM applied_inputs")[0][0].integerValue ?? -1
            )
        }
    }

    /// What the answer says of the customer's purchases (`last_seen` is the time of the call).
    func subscriptions(_ response: LoopbackResponse) throws -> JSONValue? {
        try JSONValue(parsing: response.body)["subscriber"]?["subscriptions"]
    }

    @Test func repostsStoreNothingTransfersAndChangesDo() throws {
        defer { service.shutdown() }
        let signed = try transaction(signedMs: Self.nowMs - 3000)
        let first = try connection.postTransaction(signed, for: "alice")
        #expect(first.status == 200)
        #expect(try rows() == (1, 1))
        for _ in 0..<200 {
            let again = try connection.postTransaction(signed, for: "alice")
            #expect(again.status == 200)
            #expect(try subscriptions(again) == subscriptions(first))
        }
        // Signed again later by App Store: the same content.
        #expect(try connection.postTransaction(try transaction(signedMs: Self.nowMs - 2000), for: "alice").status == 200)
        #expect(try rows() == (1, 1))

        // Another customer (a transfer), then back: each changes the owner, so each is stored.
        #expect(try connection.postTransaction(signed, for: "bob").status == 200)
        #expect(try connection.postTransaction(signed, for: "bob").status == 200)
        #expect(try connection.postTransaction(signed, for: "alice").status == 200)
        #expect(try rows().posted == 3)
        // New content (refunded since) is stored.
        #expect(
            try connection.postTransaction(try transaction(signedMs: Self.nowMs - 1000, revoked: true), for: "alice").status
                == 200)
        #expect(try rows().posted == 4)
        // Refunded, it grants nothing, and the answer says so.
        let refunded = try connection.postTransaction(
            try transaction(signedMs: Self.nowMs - 1000, revoked: true), for: "alice")
        #expect(try subscriptions(refunded)?["pro.monthly"]?["refunded_at"]?.stringValue != nil)
        #expect(try connection.request("GET", "/health").status == 200)
    }

    /// The customer's devices each post their own copy (its `deviceVerification` theirs), by
    /// turns, at every launch: the same content, stored once.
    @Test func eachDevicesCopyIsTheSameContent() throws {
        defer { service.shutdown() }
        for round in 0..<5 {
            for device in ["phone", "tablet", nil] {
                let copy = try transaction(signedMs: Self.nowMs - 5000 + Int64(round), device: device)
                #expect(try connection.postTransaction(copy, for: "carl").status == 200)
            }
        }
        #expect(try rows() == (1, 1))
    }

    /// A body naming `signedTransaction` twice is ambiguous: refused, nothing stored.
    @Test func aNameGivenTwiceIsRefused() throws {
        defer { service.shutdown() }
        let signed = try transaction(signedMs: Self.nowMs - 3000)
        let response = try connection.request(
            "POST", "/v1/subscribers/erin/transactions", headers: ["Authorization": "Bearer pk_test_public"],
            body: Data(#"{"signedTransaction": "\#(signed)", "signedTransaction": "x"}"#.utf8))
        #expect(response.status == 400, "\(response.text)")
        #expect(try rows() == (0, 0))
    }

    /// A repost is skipped only while its poster owns the purchase: after the customer was
    /// deleted, the same post links the purchase again.
    @Test func aRepostAfterTheCustomerWasDeletedLinksAgain() throws {
        defer { service.shutdown() }
        let signed = try transaction(signedMs: Self.nowMs - 3000)
        let first = try connection.postTransaction(signed, for: "dave")
        #expect(try subscriptions(first)?["pro.monthly"] != nil)
        let deleted = try connection.request(
            "DELETE", "/v1/subscribers/dave", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(deleted.status == 200)
        // A DELETE declares no length, so its connection closes after the answer.
        let again = try LoopbackConnection(port: service.port).postTransaction(signed, for: "dave")
        #expect(again.status == 200)
        #expect(try subscriptions(again)?["pro.monthly"] != nil, "\(String(decoding: again.body, as: UTF8.self))")
        #expect(try rows().posted == 2)
    }
}
