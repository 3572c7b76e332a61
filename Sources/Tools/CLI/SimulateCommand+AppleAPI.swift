import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import HTTP
import JSON
import LoopbackClient
import Server

extension SimulateCommand {
    /// `revenuedot simulate apple-api`: the App Store Server API of the simulated App Store, for
    /// every configured app with an `inAppPurchaseKey`, serving what the stories sent and sold
    /// (`AppleAPIJournal`), signed by the dev CA, until SIGTERM or SIGINT.
    func runAppleAPI(config: RevenueDotConfig, base: URL, makeCA: () throws -> DevCA) throws -> Int32 {
        let apps = config.apps.filter { $0.inAppPurchaseKey != nil }
        guard !apps.isEmpty else {
            throw CommandError("no app has an inAppPurchaseKey: the App Store Server API checks a token signed with one")
        }
        let port: UInt16
        if let text = parsed.value("port") {
            guard let number = UInt16(text) else { throw UsageError("--port must be 0 to 65535, not \"\(text)\"") }
            port = number
        } else {
            port = 8090
        }
        let environment = AppStoreEnvironment(rawValue: parsed.value("environment") ?? "Sandbox")
        let ca = try makeCA()
        let journal = AppleAPIJournal(base: base)
        let store = try Self.appleAPIStore(
            config: config, apps: apps, environment: environment, chain: ca.chain, journal: journal)
        var keys: [TokenCheck.Key] = []
        for app in apps {
            guard let key = app.inAppPurchaseKey else { continue }
            keys.append(
                try TokenCheck.Key(
                    keyId: key.keyId, issuerId: key.issuerId, publicKeyPEM: try key.privateKey.publicKeyPEM(),
                    bundleIds: [app.bundleId]))
        }
        let termination = try Termination()
        let simulator = AppStoreServerAPISimulator(
            store: store, tokens: TokenCheck(keys: keys), port: port,
            refresh: journal.follower(into: store, environment: environment))
        let bound: UInt16
        do { bound = try simulator.start() } catch let error as HTTPServerError {
            throw Simulator.Failure(description: "cannot serve the App Store Server API: \(error.message)")
        }
        StandardStreams.out(
            """
            App Store Server API (\(environment.rawValue)) of the simulated App Store at http://127.0.0.1:\(bound)
            for \(apps.map { "\($0.id) (\($0.bundleId))" }.joined(separator: ", ")), serving what simulate stories
            sent in \(environment.rawValue) (\(journal.file.path)). Point RevenueDot at it in revenuedot.json:
              "appleApi": {"baseURLs": {"\(environment.rawValue)": "http://127.0.0.1:\(bound)"}, "backfillIntervalMinutes": 60}
            Stop RevenueDot, run a story (Apple keeps what it could not deliver), start RevenueDot:
            its backfill recovers it (or run revenuedot backfill). Ctrl-C stops this.

            """)
        termination.wait()
        simulator.shutdown()
        return 0
    }

    /// The simulated App Store of `apps` in `environment`: what it makes itself goes to the
    /// configuration's server (`delivery`), and what it changes itself (an extension) into the
    /// journal the stories write, so that it is served again after a restart and the next step
    /// of the extended story starts from it.
    static func appleAPIStore(
        config: RevenueDotConfig, apps: [AppConfig], environment: AppStoreEnvironment, chain: TestChain,
        journal: AppleAPIJournal
    ) throws -> SimulatedAppStore {
        try SimulatedAppStore(
            apps: apps.map { SimulatedAppStore.App(bundleId: $0.bundleId, appAppleId: $0.appAppleId, environment: environment) },
            chain: chain, deliver: delivery(to: config, apps: apps), record: { journal.record($0) })
    }

    /// Where the simulated App Store sends what it makes itself (TEST notifications): the
    /// configuration's server, at the notification URL of the app with that bundle ID.
    static func delivery(to config: RevenueDotConfig, apps: [AppConfig]) -> SimulatedAppStore.Delivery {
        let host = RunningServer.host(of: config.listen)
        let port = config.listen.port
        return { app, signedPayload in
            guard let id = apps.first(where: { $0.bundleId == app.bundleId })?.id else { return .other }
            let body = JSONValue.object(["signedPayload": .string(signedPayload)]).serialized()
            do {
                let response = try LoopbackConnection(host: host, port: port, timeoutSeconds: 10).request(
                    "POST", "/v1/apple/notifications/\(RunningServer.pathComponent(id))",
                    headers: ["Content-Type": "application/json"],
                    body: Data(body.utf8))
                return response.status == 200 ? .success : .unsuccessfulHTTPResponseCode
            } catch {
                return .noResponse
            }
        }
    }
}
