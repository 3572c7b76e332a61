import Foundation
import JSON
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// `--request FILE` on the commerce stories: a request of another operation is refused before
/// anything is signed, and a create request naming the lapsed subscription resubscribes it.
@Suite("Commerce stories with a request file")
struct SimulatedCommerceRequestTests {
    func signedRequests(_ world: SimulatorWorld) throws -> Int64 {
        try StoreReader(path: world.directory.path("revenuedot.sqlite")).read { (rows) throws(StoreError) in
            try rows.query("SELECT count(*) FROM commerce_requests").first?.first?.integerValue ?? -1
        }
    }

    @Test func aRequestOfAnotherOperationIsNotSigned() throws {
        let world = try SimulatorWorld()
        defer { world.shutdown() }
        #expect(try world.simulate(["commerce-subscribe", "--user", "otto"]).status == 0)
        #expect(try signedRequests(world) == 1)
        let reactivate = try world.directory.write(
            "reactivate.json",
            #"{"operation": "REACTIVATE_SUBSCRIPTION", "version": "1", "requestInfo": {}, "items": [{"SKU": "LIVE_SPORTS"}]}"#)
        let refused = try world.simulate(["commerce-upgrade", "--user", "otto", "--request", reactivate])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(
            refused.output.contains(
                "this story takes a MODIFY_SUBSCRIPTION request, not REACTIVATE_SUBSCRIPTION: nothing was signed"),
            "\(refused.output)")
        #expect(!refused.output.contains("signed;"), "\(refused.output)")
        #expect(try signedRequests(world) == 1)
        // The entitlements the app is told of are the active ones; RevenueCat lists the expired too.
        for step in ["cancel", "expire"] { #expect(try world.simulate([step, "--user", "otto"]).status == 0) }
        let subscribed = try world.simulate(["subscribe", "--user", "otto"])
        #expect(subscribed.output.contains("← 200 entitlements: pro (expired: pass)"), "\(subscribed.output)")
    }

    /// Apple resubscribes a lapsed Advanced Commerce subscription with a create request naming
    /// it (`previousTransactionId`): SUBSCRIBED / RESUBSCRIBE on the same original transaction,
    /// which RevenueCat reports as a RENEWAL, not a new purchase.
    @Test func aCreateRequestNamingTheLapsedSubscriptionResubscribes() throws {
        let world = try SimulatorWorld()
        defer { world.shutdown() }
        for step in ["commerce-subscribe", "cancel", "expire"] {
            let played = try world.simulate([step, "--user", "rita"])
            #expect(played.status == 0, "\(step): \(played.output)")
        }
        let lapsed = try world.simulated("rita")
        let stopped = try world.simulate(["commerce-upgrade", "--user", "rita"])
        #expect(stopped.output.contains("commerce-subscribe --request FILE naming previousTransactionId resubscribes"))
        var request = try JSONValue(parsing: Data(CommerceRequestExamples.subscribe.utf8))
        // A transaction of no subscription of theirs: refused before anything is signed.
        request["previousTransactionId"] = .string("1")
        let stranger = try world.simulate([
            "commerce-subscribe", "--user", "rita", "--request", try world.directory.write("stranger.json", request.serialized()),
        ])
        #expect(stranger.status == 1, "\(stranger.output)")
        #expect(stranger.output.contains("previousTransactionId 1 is no transaction of rita's Advanced Commerce subscription"))
        #expect(try signedRequests(world) == 1)
        request["previousTransactionId"] = lapsed["transactionId"]
        let file = try world.directory.write("resubscribe.json", request.serialized())
        let played = try world.simulate(["commerce-subscribe", "--user", "rita", "--request", file])
        #expect(played.status == 0, "\(played.output)")
        #expect(played.output.contains("SUBSCRIBED / RESUBSCRIBE"), "\(played.output)")
        #expect(try world.simulated("rita")["originalTransactionId"] == lapsed["originalTransactionId"])
        let types = try world.events(of: "rita").compactMap { $0["type"]?.stringValue }
        #expect(types == ["INITIAL_PURCHASE", "CANCELLATION", "EXPIRATION", "RENEWAL"], "\(types)")
        let pass = try world.subscriber("rita")["entitlements"]?["pass"]
        #expect(pass?["expires_date"] != nil && pass?["expires_date"] != .null)
    }
}
