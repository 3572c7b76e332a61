import Foundation
import Testing

@testable import Server
@testable import Tools

/// The operator's exchange rates: checked at load, read again when the file changes.
@Suite struct ExchangeRatesTests {
    @Test func ratesLoadRefreshAndKeepTheLastGoodOnes() throws {
        let directory = TestDirectory("revenuedot-rates")
        let path = try directory.write("rates.json", #"{"base": "USD", "rates": {"EUR": 0.92, "JPY": 150}}"#)
        let rates = try ExchangeRates(path: path, checkInterval: .zero)
        #expect(rates.current() == ["EUR": Decimal(string: "0.92")!, "JPY": 150, "USD": 1])
        try #"{"rates": {"EUR": 0.9}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: path)
        #expect(rates.current()["EUR"] == Decimal(string: "0.9"))
        // A file that no longer reads keeps the last good rates.
        try "not json".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(10)], ofItemAtPath: path)
        #expect(rates.current()["EUR"] == Decimal(string: "0.9"))
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
