import AppStore
import AppStoreServerAPISimulator
import Foundation
import Storage
import Testing

@testable import RevenueDot

/// `revenuedot import`: existing subscribers from a CSV, applied from what Apple says of each,
/// linked to their customers, interrupted and resumed without doing anything twice.
@Suite("Import of existing subscribers")
struct ImportTests {
    func count(_ world: AppleAPIWorld, _ sql: String) throws -> Int64 {
        try SQLiteReader(path: world.databasePath).read { (rows) throws(StoreError) in
            try rows.query(sql).first?.first?.integerValue ?? -1
        }
    }

    @Test func aThousandSubscriptionsImportOnceAcrossAnInterrupt() throws {
        let world = try AppleAPIWorld()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var csv = "original_transaction_id,app_user_id\n"
        for index in 0..<1000 {
            let id = String(7_000_000_000 + index)
            world.store.addTransaction(
                [
                    "transactionId": .string(id), "originalTransactionId": .string(id), "bundleId": .string("com.example.app"),
                    "productId": .string("pro.monthly"), "purchaseDate": .integer(now - 86_400_000),
                    "originalPurchaseDate": .integer(now - 86_400_000), "expiresDate": .integer(now + 29 * 86_400_000),
                    "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
                    "environment": .string("Sandbox"), "transactionReason": .string("PURCHASE"),
                ], bundleId: "com.example.app")
            world.store.setRenewalInfo(
                [
                    "originalTransactionId": .string(id), "autoRenewStatus": .integer(index % 10 == 0 ? 0 : 1),
                    "autoRenewProductId": .string("pro.monthly"), "environment": .string("Sandbox"),
                ], originalTransactionId: id)
            csv += index % 2 == 0 ? "\(id),user-\(index)\n" : "\"\(id)\",\n"
        }
        csv += "9999999999,ghost\n"
        let file = try world.directory.write("subscribers.csv", csv)
        // The database exists, as after serve ran once.
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()

        let command = try ImportCommand(arguments: ["--config", world.configPath, "--app", "demo", file, "--concurrency", "8"])
        #expect(try command.run(stopAfter: 400) == 1)
        let halfway = try count(world, "SELECT count(*) FROM purchases")
        #expect((400...408).contains(halfway))
        #expect(try command.run() == 0)
        #expect(try count(world, "SELECT count(*) FROM purchases") == 1000)
        #expect(try count(world, "SELECT count(*) FROM apple_answers") == 1000)
        // State, not webhooks: the events are recorded, none is to be delivered.
        #expect(try count(world, "SELECT count(*) FROM events WHERE type = 'INITIAL_PURCHASE'") == 1000)
        #expect(try count(world, "SELECT count(*) FROM deliveries") == 0)
        // Linked where the row named the customer.
        #expect(try count(world, "SELECT count(*) FROM purchase_views WHERE owner LIKE 'user-%'") == 500)

        // Again: everything is already known.
        #expect(try command.run() == 0)
        #expect(try count(world, "SELECT count(*) FROM apple_answers") == 1000)
    }

    @Test func csvFieldsAndBadFilesAreOneClearLine() throws {
        #expect(Import.fields(#""1,2",x,"say ""hi""""#) == ["1,2", "x", #"say "hi""#])
        #expect(
            try Import.rows(csv: "app_user_id,original_transaction_id\nbob,12\n,13\n") == [
                Import.Row(originalTransactionId: "12", appUserId: "bob"),
                Import.Row(originalTransactionId: "13", appUserId: nil),
            ])
        #expect(throws: UsageError.self) { _ = try Import.rows(csv: "id\n12\n") }
        #expect(throws: UsageError.self) { _ = try Import.rows(csv: "original_transaction_id\nabc\n") }
        #expect(throws: UsageError.self) { _ = try Import.rows(csv: "") }
    }
}
