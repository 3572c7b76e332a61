import Foundation
import Testing
import Threads

@testable import Server
@testable import Storage
@testable import Tools

/// The operator's exchange rates: checked at load, read again when the file changes.
@Suite struct ExchangeRatesTests {
    @Test func ratesLoadRefreshAndKeepTheLastGoodOnes() throws {
        let directory = TestDirectory("revenuedot-rates")
        let path = try directory.write("rates.json", #"{"base": "USD", "rates": {"EUR": 0.92, "JPY": 150}}"#)
        let rates = try ExchangeRates(path: path, checkInterval: .zero)
        let reported = Locked<[String]>([])
        rates.reportUnreadable { line in reported.withLock { $0.append(line) } }
        #expect(rates.current() == ["EUR": Decimal(string: "0.92")!, "JPY": 150, "USD": 1])
        try #"{"rates": {"EUR": 0.9}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: path)
        #expect(rates.current()["EUR"] == Decimal(string: "0.9"))
        #expect(reported.withLock { $0 }.isEmpty)
        // A file that no longer reads keeps the last good rates, and is said once.
        try "not json".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(10)], ofItemAtPath: path)
        #expect(rates.current()["EUR"] == Decimal(string: "0.9"))
        #expect(rates.current()["EUR"] == Decimal(string: "0.9"))
        #expect(reported.withLock { $0 } == [#"\#(path): not {"base": "USD", "rates": {"EUR": 0.92, ...}}"#])
        // Fixed: read again, even within the same tick of the file's clock.
        let unreadableAt = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate]
        try #"{"rates": {"EUR": 0.8}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: unreadableAt as Any], ofItemAtPath: path)
        #expect(rates.current()["EUR"] == Decimal(string: "0.8"))
        #expect(reported.withLock { $0 }.count == 1)
    }

    /// Commands that make no events read no rates: a rates file being rewritten stops
    /// `serve` and `check-config` (and what makes events), not a backup or a listing.
    @Test func onlyWhatMakesEventsNeedsTheRates() throws {
        let fixture = try ServerFixture()
        let config = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        let rates = try fixture.directory.write("rates.json", #"{"rates": {"EUR": 0}}"#)
        try config.replacingOccurrences(
            of: "{", with: #"{"exchangeRatesFile": "\#(rates)", "#, options: [], range: config.range(of: "{")
        )
        .write(toFile: fixture.configPath, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fixture.configPath)
        #expect(try runCLI(["check-config", "--config", fixture.configPath]).status == 1)
        _ = try Store(path: fixture.databasePath).close()
        for command in [
            ["notifications", "list"], ["events", "list"], ["backup", "--out", fixture.directory.path("b.sqlite")],
        ] {
            let result = try runCLI(command + ["--config", fixture.configPath])
            #expect(result.status == 0, "\(command): \(result.output)")
        }
    }

    @Test(arguments: [
        (#"{"base": "EUR", "rates": {"USD": 1.1}}"#, "\"base\" must be \"USD\""),
        (#"{"rates": {"eur": 0.9}}"#, "rates.eur must be a positive number"),
        (#"{"rates": {"EUR": -1}}"#, "rates.EUR must be a positive number"),
        (#"[]"#, "not {\"base\""),
    ])
    func aBadFileIsOneClearLine(text: String, problem: String) throws {
        let directory = TestDirectory("revenuedot-rates")
        let path = try directory.write("rates.json", text)
        let error = #expect(throws: ConfigError.self) { try ExchangeRates(path: path) }
        #expect(error?.description.contains(problem) == true, "\(error?.description ?? "")")
    }
    /// In a configuration, the line names the key, then the file and what is wrong with it.
    @Test func aMissingFileIsNamedByItsKey() throws {
        let directory = TestDirectory("revenuedot-rates")
        let config = try directory.write(
            "revenuedot.json",
            #"{"exchangeRatesFile": "missing.json", "apps": [{"id": "a", "bundleId": "com.example.a", "environments": ["Sandbox"]}]}"#
        )
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: config) }
        #expect(error?.key == "exchangeRatesFile")
        #expect(
            error?.description
                == "config \(config): exchangeRatesFile: \(directory.path("missing.json")): cannot read the file: no such file",
            "\(error?.description ?? "")")
    }
}
