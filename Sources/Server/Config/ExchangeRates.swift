import AppStore
import Foundation
import JSON
import Synchronization

/// The operator's exchange rates for events' `price` in US dollars: a JSON file,
/// `{"base": "USD", "rates": {"EUR": 0.92, ...}}` (units of each currency per dollar), read at
/// start and again whenever it changes (checked at most every few seconds), so new rates apply
/// without a restart. A file that no longer reads keeps the last good rates.
package final class ExchangeRates: Sendable {
    package let path: String?
    private let state: Mutex<(rates: [String: Decimal], modified: Date?, checked: ContinuousClock.Instant?, reported: Date?)>
    /// How often the file's modification time is looked at.
    private let checkInterval: Duration
    private let reporter = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Rates from `path` (none when nil), looked at again every `checkInterval`; a one-line
    /// error when the file cannot be used.
    package init(path: String?, checkInterval: Duration = .seconds(5)) throws(ConfigError) {
        self.path = path
        self.checkInterval = checkInterval
        var rates: [String: Decimal] = [:]
        var modified: Date?
        if let path {
            do { (rates, modified) = try Self.read(path) } catch {
                throw ConfigError(file: path, key: "", problem: "\(error)")
            }
        }
        state = Mutex((rates, modified, ContinuousClock.now, nil))
    }

    /// The current rates, read again first if the file changed. A changed file that does not
    /// read keeps the last good rates, and is said once (`reportUnreadable`), until it changes again.
    package func current() -> [String: Decimal] {
        guard let path else { return [:] }
        var problem: String?
        let rates = state.withLock { state in
            if let checked = state.checked, checked.duration(to: .now) < checkInterval { return state.rates }
            state.checked = .now
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            guard modified != state.modified else { return state.rates }
            do {
                let (rates, when) = try Self.read(path)
                state.rates = rates
                state.modified = when
            } catch {
                // Read again at the next look (a rewrite may end within the same tick of the
                // clock), said once for this version of the file.
                if state.reported != modified {
                    state.reported = modified
                    problem = "\(error)"
                }
            }
            return state.rates
        }
        if let problem, let report = reporter.withLock({ $0 }) { report("\(path): \(problem)") }
        return rates
    }

    /// Where a changed file that does not read is said (`serve`'s log).
    package func reportUnreadable(to report: @escaping @Sendable (String) -> Void) {
        reporter.withLock { $0 = report }
    }

    package struct FileError: Error, CustomStringConvertible {
        package var description: String
    }

    /// The rates in a file and its modification time.
    package static func read(_ path: String) throws -> ([String: Decimal], Date?) {
        let data: Data
        switch ConfigFile.read(path) {
        case .success(let contents): data = contents
        case .failure(let problem): throw FileError(description: "cannot read the file: \(problem.reason)")
        }
        guard let json = try? JSONValue(parsingWithoutRepeatedNames: data), case .object(let members)? = json["rates"] else {
            throw FileError(description: #"not {"base": "USD", "rates": {"EUR": 0.92, ...}}"#)
        }
        guard json["base"] == nil || json["base"] == .string("USD") else {
            throw FileError(description: "\"base\" must be \"USD\": rates are units of each currency per US dollar")
        }
        var rates: [String: Decimal] = [:]
        for (currency, value) in members {
            let rate: Decimal? =
                switch value {
                case .integer(let number): Decimal(number)
                case .number(let number): Decimal(string: "\(number)")
                default: nil
                }
            guard currency.count == 3, currency.allSatisfy({ $0.isUppercase && $0.isASCII }), let rate, rate > 0 else {
                throw FileError(description: "rates.\(currency) must be a positive number for an ISO 4217 code")
            }
            rates[currency] = rate
        }
        rates["USD"] = 1
        let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        return (rates, modified)
    }
}
