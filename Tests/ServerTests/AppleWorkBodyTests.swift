import Foundation
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// The routes `import`, `reconcile` and `backfill` send to a running server read each member
/// they know by its type, and refuse any other: a misspelt or mistyped member is not read as
/// absent (an import linked to nobody, events not emitted).
@Suite struct AppleWorkBodyTests {
    @Test func aStrayOrMistypedMemberIsRefused() throws {
        let world = try AppleAPIWorld()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        func post(_ path: String, _ body: String) throws -> (Int, String) {
            let response = try LoopbackConnection(port: service.port).request(
                "POST", path, headers: ["Authorization": "Bearer sk_test_secret", "Content-Type": "application/json"],
                body: Data(body.utf8))
            return (response.status, response.text)
        }
        let refused: [(String, String, String)] = [
            ("/v1/apple/import", #"{"original_transaction_id": "1", "emit_events": "yes"}"#, "emit_events has the wrong type"),
            ("/v1/apple/import", #"{"original_transaction_id": "1", "app_user_id": 7}"#, "app_user_id has the wrong type"),
            ("/v1/apple/import", #"{"original_transaction_id": "1", "app_userid": "amy"}"#, #"unknown member \"app_userid\""#),
            ("/v1/apple/reconcile", #"{"original_transaction_id": "1", "force": true}"#, #"unknown member \"force\""#),
            (
                "/v1/apple/backfill-mark", #"{"environment": "Sandbox", "read_through": 1, "since": 0}"#,
                #"unknown member \"since\""#
            ),
        ]
        for (path, body, message) in refused {
            let (status, text) = try post(path, body)
            #expect(status == 400, "\(path) \(body): \(text)")
            #expect(text.contains(message), "\(path) \(body): \(text)")
        }
        // Members of the right types, null where a member may be left out.
        #expect(try post("/v1/apple/import", #"{"original_transaction_id": "1", "emit_events": false}"#).0 == 200)
        #expect(try post("/v1/apple/import", #"{"original_transaction_id": "1", "app_user_id": null}"#).0 == 200)
        #expect(try post("/v1/apple/import", #"{"original_transaction_id": "1", "environments": null}"#).0 == 200)
    }
}
