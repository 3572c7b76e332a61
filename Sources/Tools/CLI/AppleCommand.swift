import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Server

/// `revenuedot apple ENDPOINT`: one App Store Server API call for a configured app, its answer
/// printed as JSON with every signed member verified and decoded.
package struct AppleCommand {
    package static let usage = """
        usage: revenuedot apple ENDPOINT --app ID [--environment Production|Sandbox] [options] [--config FILE]

        Calls the App Store Server API with the app's inAppPurchaseKey and prints Apple's answer as
        JSON, each signed member verified as ingest verifies it and decoded (signedTransactions
        becomes transactions, signedPayload payload, ...). The environment defaults to Production
        when the app accepts it, else Sandbox. DATE is UNIX milliseconds, 2026-11-01 or
        2026-11-01T12:00:00Z.

          transaction-info TRANSACTION_ID
          transaction-history TRANSACTION_ID [--all] [--revision R] [--start-date DATE] [--end-date DATE]
                  [--product-id ID]... [--product-type AUTO_RENEWABLE|NON_RENEWABLE|CONSUMABLE|NON_CONSUMABLE]...
                  [--sort ASCENDING|DESCENDING] [--subscription-group ID]... [--ownership PURCHASED|FAMILY_SHARED]
                  [--revoked true|false]
          subscription-statuses TRANSACTION_ID [--status 1-5]...
          notification-history --start-date DATE [--end-date DATE] [--notification-type T [--subtype S]]
                  [--transaction-id ID] [--only-failures] [--pagination-token TOKEN]
          request-test-notification
          test-notification-status TOKEN
          send-consumption TRANSACTION_ID --delivery-status STATUS --sample-content-provided true|false
                  [--consumption-percentage 0-100000] [--refund-preference DECLINE|GRANT_FULL|GRANT_PRORATED]
                  (sends customerConsented: true; send it only with the customer's consent)
          send-consumption-v1 TRANSACTION_ID (the same options) [--app-account-token UUID]
                  (version 1, which Apple takes for Advanced Commerce purchases only)
          extend-renewal-date ORIGINAL_TRANSACTION_ID --days 1-90 --reason 0-3 [--request-identifier ID]
          mass-extend-renewal-date --product-id ID --days 1-90 --reason 0-3 [--request-identifier ID]
                  [--storefront ISO3]...
          mass-extend-status PRODUCT_ID REQUEST_IDENTIFIER
          look-up-order ORDER_ID
          refund-history TRANSACTION_ID [--revision R]
          set-app-account-token ORIGINAL_TRANSACTION_ID UUID

        An argument or option the endpoint does not take is refused before any call (exit 2).
        Exit 0 with the answer; 1 with one line saying what Apple answered or what failed.
        """

    static let valueOptions: Set<String> = [
        "config", "app", "environment", "revision", "start-date", "end-date", "product-id", "product-type", "sort",
        "subscription-group", "ownership", "revoked", "status", "notification-type", "subtype", "transaction-id",
        "pagination-token", "delivery-status", "sample-content-provided", "consumption-percentage", "refund-preference",
        "app-account-token",
        "days", "reason", "request-identifier", "storefront",
    ]

    let endpointName: String
    let parsed: ParsedArguments

    package init(arguments: [String]) throws {
        guard let first = arguments.first, !first.hasPrefix("-") else { throw UsageError("name an ENDPOINT") }
        endpointName = first
        parsed = try ParsedArguments(
            Array(arguments.dropFirst()), valueOptions: Self.valueOptions, flagOptions: ["all", "only-failures"],
            repeatable: ["product-type", "product-id", "subscription-group", "status", "storefront"])
        guard parsed.value("app") != nil else { throw UsageError("\(first) needs --app ID") }
        _ = try endpoint(now: Date())
    }

    /// What the commands that call Apple for `--app` start with: the configuration (`--config`,
    /// by default revenuedot.json), with its key files private, and the app.
    /// `readingExchangeRates` false for a command that makes no events (`apple` itself).
    static func configuredApp(_ parsed: ParsedArguments, readingExchangeRates: Bool = true) throws -> (
        RevenueDotConfig, AppConfig
    ) {
        let config = try ConfigLoader.load(
            path: parsed.value("config") ?? "revenuedot.json", readingExchangeRates: readingExchangeRates)
        let appId = parsed.value("app") ?? ""
        guard let app = config.app(appId) else { throw UsageError("no app \"\(appId)\" is configured") }
        try SecretFileModes.check(config)
        return (config, app)
    }

    package func run() throws -> Int32 {
        let (config, app) = try Self.configuredApp(parsed, readingExchangeRates: false)
        let appId = app.id
        let environment = try Self.environment(parsed.value("environment")) ?? AppleAPIClients.defaultEnvironment(of: app)
        guard app.environments.contains(environment) else {
            throw UsageError(
                "app \"\(appId)\" does not accept \(environment.rawValue) (its environments: \(app.environments.map(\.rawValue).sorted().joined(separator: ", ")))"
            )
        }
        do {
            let retry = RetryPolicy()
            // Five attempts of up to 30 s each: say so as they fail rather than stay silent.
            let client = try AppleAPIClients.client(
                for: app, environment: environment, config: config.appleAPI, retry: retry,
                onRetry: { failure, seconds in
                    let attempt = failure.attempts
                    var failure = failure
                    failure.attempts = 1  // the line names the attempt itself
                    StandardStreams.error(
                        "revenuedot apple: attempt \(attempt) of \(retry.maxAttempts): \(failure); "
                            + "trying again in \(Int(seconds.rounded(.up))) s\n")
                })
            let answer = try answer(client, now: Date())
            StandardStreams.out(answer.serialized(pretty: true) + "\n")
            return 0
        } catch let failure as AppleAPIClients.Failure {
            StandardStreams.error("revenuedot apple: \(failure)\n")
        } catch {
            StandardStreams.error("revenuedot apple: \(error)\n")
        }
        return 1
    }

    /// The answer; `transaction-history --all` walks every page into one list.
    func answer(_ client: AppStoreServerAPIClient, now: Date) throws -> JSONValue {
        guard endpointName == "transaction-history", parsed.flags.contains("all") else {
            return try client.answerJSON(try endpoint(now: now))
        }
        var transactions: [JSONValue] = []
        var revision = parsed.value("revision")
        var last = JSONValue.object([:])
        var seen: Set<String> = []
        repeat {
            guard case .transactionHistory(let id, let filter, _) = try endpoint(now: now) else { break }
            last = try client.answerJSON(.transactionHistory(transactionId: id, filter: filter, revision: revision))
            transactions += last["transactions"]?.arrayValue ?? []
            guard last["hasMore"] == .bool(true), let next = last["revision"]?.stringValue, seen.insert(next).inserted
            else { break }
            revision = next
        } while true
        last["transactions"] = .array(transactions)
        last["hasMore"] = .bool(false)
        return last
    }

    // MARK: - Arguments

    func positional(_ index: Int, _ name: String) throws(UsageError) -> String {
        guard parsed.positionals.count > index, !parsed.positionals[index].isEmpty else {
            throw UsageError("\(endpointName) needs \(name)")
        }
        return parsed.positionals[index]
    }

    func required(_ option: String) throws(UsageError) -> String {
        guard let value = parsed.value(option), !value.isEmpty else { throw UsageError("\(endpointName) needs --\(option)") }
        return value
    }

    func integer(_ option: String, in range: ClosedRange<Int64>) throws(UsageError) -> Int64? {
        guard let text = parsed.value(option) else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw UsageError(
                "--\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    func bool(_ option: String) throws(UsageError) -> Bool? {
        guard let text = parsed.value(option) else { return nil }
        guard text == "true" || text == "false" else { throw UsageError("--\(option) must be true or false, not \"\(text)\"") }
        return text == "true"
    }

    /// A known value of an open enum, by its raw value.
    func known<E: OpenEnum>(_ option: String, _ type: E.Type) throws(UsageError) -> E? where E.RawValue == String {
        guard let text = parsed.value(option) else { return nil }
        let value = E.resolve(text)
        guard value.isKnown else {
            throw UsageError("--\(option) must be one of \(E.knownValues.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    static func environment(_ text: String?) throws(UsageError) -> AppStoreEnvironment? {
        guard let text else { return nil }
        guard text == "Production" || text == "Sandbox" else {
            throw UsageError("--environment must be Production or Sandbox, not \"\(text)\"")
        }
        return AppStoreEnvironment(rawValue: text)
    }

    func date(_ option: String) throws(UsageError) -> Int64? { try CommandDates.option(option, in: parsed) }
}
