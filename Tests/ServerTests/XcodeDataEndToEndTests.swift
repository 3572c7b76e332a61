import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// Apple's Xcode-signed test transaction (fractional milliseconds in every date), posted as the
/// app would to a server whose app accepts Xcode data: stored, and served in whole seconds.
@Suite("Xcode data end to end")
struct XcodeDataEndToEndTests {
    static let bundleId = "com.example.naturelab.backyardbirds.example"

    static func appleVector(_ path: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AppStoreTests/Resources/AppleVectors/\(path)")
        return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func applesXcodeTransactionIsStoredAndServed() throws {
        let directory = TestDirectory("revenuedot-xcode")
        let config = try directory.write(
            "revenuedot.json",
            """
            {
              "listen": "127.0.0.1:0",
              "database": "sqlite:\(directory.path("revenuedot.sqlite"))",
              "apps": [
                {"id": "birds", "bundleId": "\(Self.bundleId)", "environments": ["Xcode"],
                 "secretApiKey": "sk_test_secret", "publicApiKey": "pk_test_public",
                 "entitlements": {"premium": ["pass.premium"]}}
              ]
            }
            """)
        let service = try RevenueDotService(quietly: try ConfigLoader.load(path: config))
        try service.start()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)

        let posted = try connection.postTransaction(try Self.appleVector("xcode/xcode-signed-transaction"), for: "alice")
        #expect(posted.status == 200, "\(String(decoding: posted.body, as: UTF8.self))")
        let body = try JSONValue(
            parsing: try connection.request(
                "GET", "/v1/subscribers/alice", headers: ["Authorization": "Bearer sk_test_secret"]
            ).body)
        let subscription = body["subscriber"]?["subscriptions"]?["pass.premium"]
        #expect(subscription?["expires_date"] == .string("2023-11-19T01:45:36Z"), "\(body.serialized())")
        #expect(subscription?["purchase_date"] == .string("2023-10-19T01:45:36Z"))
        #expect(subscription?["store_transaction_id"] == .string("0"))
        #expect(body["subscriber"]?["entitlements"]?["premium"]?["product_identifier"] == .string("pass.premium"))
    }
}
