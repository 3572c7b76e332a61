import Foundation
import LoopbackClient
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage

/// A CSV exported from another system may name a subscription by a later transaction of it (a
/// renewal's id) instead of its original one.
@Suite("Import by any of a purchase's transactions")
struct ImportByTransactionTests {
    /// Each row names its subscription's renewal: the subscription is imported whole, as if the
    /// row named its original transaction (its history, its current state, its customer).
    @Test func aRowNamingARenewalImportsTheWholeSubscription() throws {
        var outcomes: [[String]] = []
        for first in [7_000_000_000, 8_000_000_000] {
            let world = try AppleAPIWorld()
            _ = try ImportTests.subscriptions(world, count: 2)
            let csv = "original_transaction_id,app_user_id\n" + (0..<2).map { "\(first + $0),user-\($0)\n" }.joined()
            let file = try world.directory.write("subscribers.csv", csv)
            let service = try RevenueDotService(config: try world.config(), log: { _ in })
            service.shutdown()
            let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", file])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("2 imported, 0 already known, 0 linked"), "\(run.output)")
            outcomes.append(try ImportTests().outcome(world))
            // Naming the other transaction now finds the subscription stored.
            let other = first == 7_000_000_000 ? 8_000_000_000 : 7_000_000_000
            let again = try world.directory.write("again.csv", "original_transaction_id,app_user_id\n\(other),user-0\n")
            let second = try runCLI(["import", "--config", world.configPath, "--app", "demo", again])
            #expect(second.output.contains("0 imported, 1 already known"), "\(second.output)")
        }
        #expect(outcomes[0] == outcomes[1])
        #expect(outcomes[1].contains("view s:7000000000 user-0"), "\(outcomes[1])")
        #expect(outcomes[1].contains("answers 1 4"), "\(outcomes[1])")
    }

    /// Two rows naming one subscription, by its original and by its renewal, for two customers:
    /// the renewal's row never moves the subscription from the original's customer, whichever
    /// line comes first, and says why; the original's row links it as a link does.
    @Test func aRenewalsRowNeverMovesASubscriptionAnotherCustomerHas() throws {
        for (lines, refused) in [
            (["7000000000,alice", "8000000000,bob"], "8000000000"), (["8000000000,bob", "7000000000,alice"], nil),
        ] {
            let world = try AppleAPIWorld()
            _ = try ImportTests.subscriptions(world, count: 1)
            try RevenueDotService(config: try world.config(), log: { _ in }).shutdown()
            let file = try world.directory.write(
                "subscribers.csv", "original_transaction_id,app_user_id\n" + lines.joined(separator: "\n") + "\n")
            let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", "--concurrency", "1", file])
            let outcome = try ImportTests().outcome(world)
            // The original's row decides, in both orders.
            #expect(outcome.contains("view s:7000000000 alice"), "\(outcome)")
            if let refused {
                #expect(run.status == 1, "\(run.output)")
                #expect(
                    run.output.contains(
                        "\(refused): Apple's answer names original transaction 7000000000, which alice has: a row naming "
                            + "another of its transactions does not move it (name 7000000000 itself to move it)"), "\(run.output)"
                )
                #expect(!outcome.contains { $0.hasPrefix("events TRANSFER") }, "\(outcome)")
            } else {
                #expect(run.output.contains("1 imported, 0 already known, 1 linked"), "\(run.output)")
            }
        }
    }

    /// A renewal's row for the owner under another of its ids (an alias) is the owner's row.
    @Test func aRenewalsRowForTheOwnersAliasIsTheOwners() throws {
        let world = try AppleAPIWorld()
        _ = try ImportTests.subscriptions(world, count: 1)
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        let first = try world.directory.write("first.csv", "original_transaction_id,app_user_id\n7000000000,alice\n")
        #expect(try runCLI(["import", "--config", world.configPath, "--app", "demo", first]).status == 0)
        let aliased = try LoopbackConnection(port: service.port).request(
            "POST", "/v1/subscribers/alice/alias", headers: ["Authorization": "Bearer sk_test_secret"],
            body: Data(#"{"new_app_user_id": "alice@example.com"}"#.utf8))
        #expect(aliased.status == 200, "\(aliased.text)")
        service.shutdown()
        let second = try world.directory.write(
            "second.csv", "original_transaction_id,app_user_id\n8000000000,alice@example.com\n")
        let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", second])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("0 imported, 1 already known"), "\(run.output)")
    }
}
