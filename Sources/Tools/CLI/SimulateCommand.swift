import AppStore
import Foundation
import Server

/// `revenuedot simulate ca|STORY`: a local App Store that signs notifications as Apple would and
/// posts them to a running RevenueDot.
package struct SimulateCommand {
    package static let usage = """
        usage: revenuedot simulate ca
               revenuedot simulate apple-api [--port 8090] [--environment Sandbox|Production]
               revenuedot simulate STORY [--app ID] [--user APP_USER_ID] [--bundle-id ID]
                                         [--period 30s|5m|2h|30d] [--environment Sandbox|Production]
                                         [--server http://HOST:PORT] [--config FILE]
                                         [--product ID] [--family-shared] [--no-grace] [--accept] [--request FILE]
                                         (options before or after the story; a story refuses those it does not use)

          ca      creates (once) a test chain with Apple's marker OIDs under .revenuedot/dev-ca/ and
                  prints its root certificate's path: add it to the app's rootCertificates
                  (revenuedot init does this for the demo app). .revenuedot/ is beside the
                  configuration file, as init writes it.
          apple-api  serves the App Store Server API of this simulated App Store (for apps with an
                  inAppPurchaseKey; tokens checked as Apple does): the notifications the stories sent,
                  delivered or not, and their transactions. Point appleApi.baseURLs at it to rehearse
                  backfill after an outage, and revenuedot apple calls.
          STORY   subscribe, renew, upgrade, downgrade, revert, cancel, uncancel, billing-failure
                  (--no-grace: without a grace period), billing-recovery, expire, refund,
                  refund-reversed, family-revoke, price-increase (--accept: ACCEPTED), lifecycle
                  (a trial that converts, an upgrade, a downgrade taken back, a cancellation and
                  the expiry, over about two and a half periods: give it a short --period; --product
                  is the plan it starts on, pro.monthly unless told)

          --product   the plan subscribe starts on (pro.monthly unless told) and upgrade or downgrade
                      moves to (unless told: up to pro.yearly; down to pro.monthly from pro.yearly, else
                      to pro.basic)

          commerce-subscribe, commerce-upgrade, commerce-downgrade
                  Advanced Commerce: the app has RevenueDot sign an in-app request (the app needs a
                  secretApiKey and an inAppPurchaseKey), then the App Store charges what the signed
                  request says, as SUBSCRIBED / INITIAL_BUY, DID_CHANGE_RENEWAL_PREF / UPGRADE (a
                  change effective now) or / DOWNGRADE (at the next renewal), with
                  advancedCommerceInfo: see advanced_commerce in GET /v1/subscribers. The requests
                  are those in docs/advanced-commerce/; --request FILE sends another (its
                  requestReferenceId, appAccountToken and transactionId are filled in), of the
                  story's operation; a create request naming the expired subscription's
                  previousTransactionId resubscribes it (SUBSCRIBED / RESUBSCRIBE). The product
                  is commerce.pass unless --product; renew, cancel, expire and the rest continue it.

          subscribe --family-shared (or lifecycle --family-shared) makes --user a family member
          with access through Family Sharing: every transaction is FAMILY_SHARED, and
          family-revoke (REVOKE) ends that access. A customer who bought it gets refund instead.
          After a revocation, subscribe starts a new subscription (the family member's own, or
          shared again with --family-shared); so does subscribe after an expiry when
          --family-shared changes whose purchase it is.

          Every step happens now: renew, billing-failure and expire end the current period now
          rather than wait for its end, so RevenueDot's access follows at once. expire sends
          EXPIRED with the reason the story gives: VOLUNTARY after cancel, BILLING_RETRY in billing
          retry, PRICE_INCREASE past an unanswered increase, else PRODUCT_NOT_FOR_SALE. A step the App
          Store would not take (renew with auto-renew off, in billing retry or past a price
          increase not accepted; anything but subscribe once expired) is refused, exit 1.

          A period lasts as long as its product's name says (weekly, monthly, yearly; a month
          when it says nothing) and costs that product's price ($2.99 a week, $9.99 a month,
          $99.99 a year; basic plans half), fixed when the period starts: an accepted
          price-increase raises later periods only. --period makes every period of the story
          that long, from that step on.

          The subscription of each --user is kept in .revenuedot/simulator/, so subscribe then
          upgrade continue one story; its stories take turns, and transaction ids are never
          reused, however many simulate processes run at once. --user also sets
          appAccountToken (a UUID derived from it when it is not one), and after a purchase the
          simulated app posts its StoreKit transaction to /v1/subscribers/{user}/transactions
          (when the app has an API key). Defaults: --app is the config's first app, --user
          demo-user, --environment Sandbox (for a new subscription: a step goes on in its
          subscription's), --server from the config's listen address.
        """

    let story: String
    let parsed: ParsedArguments

    /// The story may come before or after the options (`simulate --config FILE renew` or
    /// `simulate renew --config FILE`): it is the one positional argument.
    package init(arguments: [String]) throws {
        parsed = try ParsedArguments(
            arguments,
            valueOptions: [
                "config", "app", "user", "bundle-id", "product", "period", "environment", "server", "port", "request",
            ],
            flagOptions: ["no-grace", "accept", "family-shared"])
        guard let first = parsed.positionals.first else { throw UsageError("expected ca, apple-api or a story") }
        guard parsed.positionals.count == 1 else {
            throw UsageError("simulate takes one story, not \(parsed.positionals.joined(separator: " "))")
        }
        guard first == "ca" || first == "apple-api" || Simulator.Story(rawValue: first) != nil else {
            let close = NotificationCatalog.closest(to: first, among: Self.stories)
            throw UsageError(
                "unknown story \"\(first)\"" + (close.isEmpty ? "" : "; did you mean \(close.joined(separator: ", "))?"))
        }
        story = first
        try parsed.refuseUnused(except: Self.options(of: first), by: first) { unused in
            "it is for " + Self.list(Self.stories.filter { Self.options(of: $0).contains(unused) })
        }
    }

    /// Every first argument: `ca`, `apple-api` and the stories.
    static let stories = ["ca", "apple-api"] + Simulator.Story.allCases.map(\.rawValue)

    /// The options `story` reads: anything else given to it would be ignored, so it is refused.
    static func options(of story: String) -> Set<String> {
        switch story {
        case "ca": return ["config"]
        case "apple-api": return ["config", "port", "environment"]
        default: break
        }
        // Every step signs for an app, a customer and an environment, posts to a server, and
        // may set the length of the periods it and later steps start.
        var options: Set<String> = ["config", "app", "user", "bundle-id", "environment", "server", "period"]
        switch Simulator.Story(rawValue: story) {
        case .subscribe, .lifecycle: options.formUnion(["product", "family-shared"])
        case .upgrade, .downgrade: options.insert("product")
        case .billingFailure: options.insert("no-grace")
        case .priceIncrease: options.insert("accept")
        case .commerceSubscribe: options.formUnion(["product", "request"])
        case .commerceUpgrade, .commerceDowngrade: options.insert("request")
        default: break
        }
        return options
    }

    /// "a", "a or b", "a, b or c".
    static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    package func run() throws -> Int32 {
        // What init wrote beside the configuration: relative paths in it are relative to it too.
        let base = URL(fileURLWithPath: parsed.value("config") ?? "revenuedot.json").standardizedFileURL
            .deletingLastPathComponent()
        let environment = parsed.value("environment") ?? "Sandbox"
        guard ["Sandbox", "Production"].contains(environment) else {
            throw UsageError("--environment must be Sandbox or Production, not \"\(environment)\"")
        }
        guard Paths.isDirectory(base.path) else {
            throw CommandError("there is no directory \(base.path) for .revenuedot/ (the configuration's directory)")
        }
        // The dev CA is made beside the configuration once what was asked is known to be sound.
        let makeCA = { try DevCA.loadOrCreate(in: base.appendingPathComponent(".revenuedot/dev-ca")) }
        if story == "ca" {
            StandardStreams.out(try makeCA().rootPath + "\n")
            return 0
        }
        let config = try ConfigLoader.load(path: parsed.value("config") ?? "revenuedot.json")
        if story == "apple-api" { return try runAppleAPI(config: config, base: base, makeCA: makeCA) }
        let appId = parsed.value("app") ?? config.apps.first?.id ?? ""
        guard let app = config.apps.first(where: { $0.id == appId }) else {
            throw UsageError("no app \"\(appId)\" is configured")
        }
        let periodMs = try parsed.value("period").map { text in
            guard let periodMs = Simulator.period(text) else {
                throw UsageError("--period must look like 30s, 5m, 2h or 30d, and be at most 3650d")
            }
            return periodMs
        }
        var host = RunningServer.host(of: config.listen)
        var port = config.listen.port
        if let server = parsed.value("server") {
            guard let url = URL(string: server), url.scheme == "http", let serverHost = url.host, let serverPort = url.httpPort
            else {
                throw UsageError("--server must be an http URL with a port from 1 to 65535, such as http://127.0.0.1:8080")
            }
            host = serverHost
            port = serverPort
        } else if port == 0 {
            // Refused before the story changes anything: its notifications could reach no server.
            throw UsageError(
                "\(config.file) listens on port 0 (a free port at each start): pass --server with the URL serve "
                    + "printed, such as --server http://127.0.0.1:PORT")
        }
        let user = parsed.value("user") ?? "demo-user"
        // What the app posts its purchase for: an id the API refuses would leave the story's
        // notification to make a customer of its own.
        if let refused = AppUserIdRule.problem(user, access: app.publicApiKey != nil ? .publishable : .secret, name: "--user") {
            throw UsageError(refused.message)
        }
        let directory = base.appendingPathComponent(".revenuedot/simulator")
        let file = directory.appendingPathComponent("\(app.id)/\(Self.fileName(user)).json")
        // A story goes on in its live subscription's environment; a new one starts in
        // --environment. One the app no longer accepts is what the command found (exit 1).
        let accepted = app.environments.map(\.rawValue).sorted().joined(separator: ", ")
        if let saved = Simulator.load(file), !saved.expired {
            guard app.environments.contains(AppStoreEnvironment(rawValue: saved.environment)) else {
                throw CommandError(
                    "\(user)'s subscription is in \(saved.environment), which app \"\(app.id)\" no longer accepts (its "
                        + "environments: \(accepted)): its notifications would be held")
            }
        } else if !app.environments.contains(AppStoreEnvironment(rawValue: environment)) {
            throw UsageError(
                "app \"\(app.id)\" does not accept \(environment) (its environments: \(accepted)): its notifications would be held"
            )
        }
        var options = Simulator.Options(
            appId: app.id, user: user, bundleId: parsed.value("bundle-id") ?? app.bundleId, appAppleId: app.appAppleId,
            product: parsed.value("product"), periodMs: periodMs, environment: environment,
            host: host, port: port)
        options.grace = !parsed.flags.contains("no-grace")
        options.accept = parsed.flags.contains("accept")
        options.familyShared = parsed.flags.contains("family-shared")
        options.apiKey = app.publicApiKey ?? app.secretApiKey
        options.secretApiKey = app.secretApiKey
        options.requestFile = parsed.value("request")
        let ca = try makeCA()
        // One story of a customer at a time: a second one waits for the first, then continues it.
        try PrivateFile.createDirectory(file.deletingLastPathComponent().path)
        let turn = try LockedFile(path: file.deletingPathExtension().path + ".lock")
        return withExtendedLifetime(turn) {
            var simulator = Simulator(
                options: options, chain: ca.chain, stateFile: file, ids: TransactionIDs(directory: directory),
                state: Simulator.load(file), print: { StandardStreams.out($0 + "\n") })
            simulator.journal = AppleAPIJournal(base: base)
            do {
                try simulator.play(Simulator.Story(rawValue: story) ?? .subscribe)
            } catch {
                StandardStreams.error("revenuedot simulate: \(error)\n")
                return 1
            }
            return 0
        }
    }

    /// A file name for any user id.
    static func fileName(_ user: String) -> String {
        String(user.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    }
}
