import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// `revenuedot events list` against a database a real server wrote.
@Suite("revenuedot events")
struct EventsCommandTests {
    /// Customer ids are printed whole, however long, and the columns stay aligned under their
    /// headers.
    @Test func listPrintsWholeCustomerIdsInAlignedColumns() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let customers = ["ann", "customer-0b6a4d0e-3c5f-4a52-9a43-0d3a7c9bd1f3-from-the-login-service"]
        for (index, customer) in customers.enumerated() {
            let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "65000000\(index + 10)")
            #expect(try LinkingAPITests.link(connection, customer, signed) == 200)
        }
        service.shutdown()

        let listed = try runCLI(["events", "list", "--config", fixture.configPath])
        #expect(listed.status == 0, "\(listed.output)")
        let lines = listed.output.split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        let customerColumn = try #require(header.range(of: "CUSTOMER")).lowerBound.utf16Offset(in: header)
        let idColumn = try #require(header.range(of: " ID")).upperBound.utf16Offset(in: header) - 2
        for customer in customers {
            let row = try #require(lines.first { $0.contains(customer) }, "\(customer) is cut: \(listed.output)")
            #expect(row.range(of: customer)?.lowerBound.utf16Offset(in: row) == customerColumn, "\(listed.output)")
            // The event id (the last column) starts under ID, after the longest customer id.
            let id = try #require(row.split(separator: " ").last.map(String.init))
            #expect(row.range(of: id)?.lowerBound.utf16Offset(in: row) == idColumn, "\(listed.output)")
        }
    }

    /// `--customer` takes any id of a customer as the API does, and lists the same events
    /// whichever, those made under each id before the customers became one included (bob's,
    /// listed under ann's id, were not); `--offset` pages past `--limit`.
    @Test func listFindsACustomerByAliasAndPages() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        for index in 0..<3 {
            let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "66000000\(index + 10)")
            #expect(try LinkingAPITests.link(connection, index == 0 ? "ann" : "bob", signed) == 200)
        }
        let aliased = try connection.request(
            "POST", "/v1/subscribers/ann/alias", headers: ["Authorization": "Bearer sk_test_secret"],
            body: Data(#"{"new_app_user_id": "ann-at-work"}"#.utf8))
        #expect(aliased.status == 200, "\(aliased.text)")
        // bob, who owns two purchases, joins ann: one customer, with his earlier events too.
        let joined = try connection.request(
            "POST", "/v1/subscribers/ann/alias", headers: ["Authorization": "Bearer sk_test_secret"],
            body: Data(#"{"new_app_user_id": "bob"}"#.utf8))
        #expect(joined.status == 200, "\(joined.text)")
        service.shutdown()

        func ids(_ arguments: [String]) throws -> [String] {
            let listed = try runCLI(["events", "list", "--json", "--config", fixture.configPath] + arguments)
            #expect(listed.status == 0, "\(listed.output)")
            return try listed.output.split(separator: "\n").map { line in
                try JSONValue(parsing: Data(line.utf8))["event"]?["id"]?.stringValue ?? ""
            }
        }
        let all = try ids([])
        let ann = try ids(["--customer", "ann"])
        #expect(ann.count == 3 && Set(ann) == Set(all), "ann \(ann), all \(all)")
        #expect(try ids(["--customer", "ann-at-work"]) == ann)
        #expect(try ids(["--customer", "bob"]) == ann)
        // Each event shows the id it was made for.
        let table = try runCLI(["events", "list", "--customer", "ann-at-work", "--config", fixture.configPath]).output
        #expect(table.split(separator: "\n").filter { $0.contains(" bob ") }.count == 2, "\(table)")
        #expect(try ids(["--limit", "2"]) + ids(["--limit", "2", "--offset", "2"]) == all)
        let refused = try runCLI(["events", "list", "--offset", "-1", "--config", fixture.configPath])
        #expect(refused.status == 2 && refused.output.contains("--offset must be 0 or a positive number"))
        // A page is at most 1000 rows: asking for more is refused, not silently cut.
        for limit in ["1001", "99999999999999999999999"] {
            let tooMany = try runCLI(["events", "list", "--limit", limit, "--config", fixture.configPath])
            #expect(tooMany.status == 2 && tooMany.output.contains("--limit is at most 1000, got \(limit)"))
        }
        #expect(try ids(["--limit", "1000"]) == all)
    }
}

extension EventsCommandTests {
    /// resend takes no list options: `events resend ID --json` would print no JSON.
    @Test(arguments: [["resend", "e1", "--json"], ["resend", "e1", "--status", "dead"]])
    func resendRefusesListOptions(arguments: [String]) {
        let error = #expect(throws: UsageError.self) { _ = try EventsCommand(arguments: arguments) }
        #expect(error?.description.hasPrefix("resend does not use --") == true, "\(String(describing: error))")
    }
}
