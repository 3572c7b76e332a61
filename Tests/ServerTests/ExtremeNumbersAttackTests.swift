import AppStore
import Crypto
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Numbers no App Store sends, against the real server and CLI: a 4xx, never a trap, and the
/// server goes on storing what Apple sends.
@Suite("Extreme numbers in payloads and rows")
struct ExtremeNumbersAttackTests {
    let fixture: ServerFixture
    let service: RevenueDotService
    let connection: LoopbackConnection

    init() throws {
        fixture = try ServerFixture()
        service = try fixture.startService()
        connection = try LoopbackConnection(port: service.port)
    }

    /// What the probe sent: any three certificates, a zero signature, `payload` unsigned.
    func forged(_ payload: String) throws -> String {
        let chain = fixture.signer.chain
        let header = try JSONSerialization.data(
            withJSONObject: [
                "alg": "ES256", "x5c": [chain.leaf, chain.intermediate, chain.root].map { $0.der.base64EncodedString() },
            ])
        return [header, Data(payload.utf8), Data(count: 64)].map { Base64.encode($0, alphabet: .url) }.joined(separator: ".")
    }

    /// A StoreKit 2 transaction for `user`'s purchase, validly signed, with `changes` applied.
    func transaction(_ original: String, _ changes: [String: JSONValue] = [:]) throws -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var payload: [String: JSONValue] = [
            "transactionId": .string(original), "originalTransactionId": .string(original),
            "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"), "purchaseDate": .integer(now),
            "expiresDate": .integer(now + 30 * 86_400_000), "type": .string("Auto-Renewable Subscription"),
            "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"), "signedDate": .integer(now),
            "price": .integer(9990), "currency": .string("USD"),
        ]
        payload.merge(changes) { $1 }
        return try fixture.signer.sign(.object(payload))
    }

    func healthIsOK() throws -> Bool { try connection.request("GET", "/health").status == 200 }

    func count(_ table: String) throws -> Int64 {
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        return try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT count(*) FROM \(table)")[0][0].integerValue ?? -1
        }
    }

    func rejectReasons() throws -> [String] {
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        return try store.rejectLog().recent.map(\.reason)
    }

    @Test func theForgedMinimumSignedDateIsRefusedEverywhere() throws {
        defer { service.shutdown() }
        let payload =
            #"{"notificationType":"DID_RENEW","notificationUUID":"5b1e","signedDate":-9223372036854775808,"#
            + #""data":{"bundleId":"com.example.app","environment":"Sandbox"}}"#
        // As the probe sent it, with a zero signature: refused for the signature, its payload unread.
        let ingest = try connection.postNotification(try forged(payload))
        #expect(ingest.status == 401)
        // Why is the reject log's to keep; the 401 says only that the payload did not verify.
        #expect(!String(decoding: ingest.body, as: UTF8.self).contains("signedDate"))
        // Signed by the chain the app trusts: read, and refused for the number.
        let signed = try fixture.signer.chain.sign(payload: Data(payload.utf8))
        #expect(try connection.postNotification(signed).status == 401)
        let transaction =
            #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.app","environment":"Sandbox","#
            + #""signedDate":-9223372036854775808}"#
        for posted in [try forged(transaction), try fixture.signer.chain.sign(payload: Data(transaction.utf8))] {
            #expect(try connection.postTransaction(posted, for: "mallory").status == 401)
        }
        #expect(try healthIsOK())
        // Apple's next notification is stored as ever.
        #expect(try connection.postNotification(try fixture.signer.notification()).status == 200)
        #expect(try count("notifications") == 1)
        #expect(try count("posted_transactions") == 0)
        // The reject log writes a second reject within a second of the first a moment later.
        var reasons = try rejectReasons()
        for _ in 0..<50 where !reasons.contains(where: { $0.contains("signedDate") }) {
            Thread.sleep(forTimeInterval: 0.1)
            reasons = try rejectReasons()
        }
        #expect(reasons.contains { $0.contains("the ES256 signature does not match") }, Comment(rawValue: "\(reasons)"))
        #expect(reasons.contains { $0.contains("signedDate -9223372036854775808") }, Comment(rawValue: "\(reasons)"))

        let directory = TestDirectory("revenuedot-verify-probe")
        let file = try directory.write("probe.txt", signed)
        let root = try directory.write("root.pem", fixture.signer.chain.root.pem)
        let verify = try runCLI(["verify", "--root-cert", root, file])
        #expect(verify.status == 1)
        #expect(verify.output.contains("signedDate -9223372036854775808 is not a date App Store sends"), "\(verify.output)")
        #expect(verify.output.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        ("expiresDate", JSONValue.integer(.min)), ("purchaseDate", .integer(.max)), ("revocationDate", .integer(-1)),
        ("price", .integer(.max)), ("revocationPercentage", .integer(100_001)), ("quantity", .integer(-1)),
    ])
    func signedButImplausibleIsRefused(member: String, value: JSONValue) throws {
        defer { service.shutdown() }
        let response = try connection.postTransaction(try transaction("31", [member: value]), for: "alice")
        #expect(response.status == 401)
        #expect(String(decoding: response.body, as: UTF8.self).contains(member))
        #expect(try count("posted_transactions") == 0)
        #expect(try healthIsOK())
    }

    /// Apple's libraries accept it, so refusing it would lose it: it is stored held, never
    /// applied, and nothing computes with the number.
    @Test func aNotificationNestingAnImplausibleTransactionIsHeldNotApplied() throws {
        defer { service.shutdown() }
        let nested = try transaction("32", ["expiresDate": .integer(.min)])
        var notification = try JSONValue(
            parsing: Data(
                try #require(Base64.decode(String(fixture.signer.notification().split(separator: ".")[1]), alphabet: .url))))
        notification["data"]?["signedTransactionInfo"] = .string(nested)
        let response = try connection.postNotification(try fixture.signer.sign(notification))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""status":"held""#))
        let store = try Store(path: fixture.databasePath)
        let reason = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT state_reason FROM notifications")[0][0].textValue
        }
        store.close()
        #expect(reason?.contains("data.signedTransactionInfo: expiresDate") == true, "\(reason ?? "")")
        #expect(try count("notifications") == 1)
        #expect(try count("purchases") == 0)
        #expect(try healthIsOK())
    }

    @Test func aStoredImplausibleDateIsAClearErrorNotACrash() throws {
        defer { service.shutdown() }
        #expect(try connection.postTransaction(try transaction("33"), for: "bob").status == 200)
        // A row as an earlier build stored it, before payload numbers were checked.
        let store = try Store(path: fixture.databasePath)
        try store.write { rows in
            try rows.execute("UPDATE purchase_views SET view = json_set(view, '$.expiresDateMs', -9223372036854775808)")
        }
        store.close()
        for _ in 0..<2 {
            let response = try connection.request(
                "GET", "/v1/subscribers/bob", headers: ["Authorization": "Bearer sk_test_secret"])
            #expect(response.status == 500)
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(body.contains("stored_state_invalid"))
            #expect(body.contains("expiresDateMs -9223372036854775808 is not a plausible date"))
            // The public key ships inside the app: it reads that storage failed, not the row.
            let app = try connection.request(
                "GET", "/v1/subscribers/bob", headers: ["Authorization": "Bearer pk_test_public"])
            #expect(app.status == 500)
            let appBody = String(decoding: app.body, as: UTF8.self)
            #expect(appBody.contains("stored_state_invalid") && appBody.contains("a stored row cannot be read"), "\(appBody)")
            #expect(!appBody.contains("expiresDateMs"), "\(appBody)")
        }
        #expect(try healthIsOK())
    }
}
