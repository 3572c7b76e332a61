import AppStore
import Foundation
import HTTP
import Storage

/// The running service: storage, ingest and the HTTP server, started and stopped together.
public final class RevenueDotService: Sendable {
    public let config: RevenueDotConfig
    private let store: SQLiteStore
    private let server: HTTPServer
    let metrics: Metrics

    /// Opens storage and prepares the server; nothing listens until `start()`.
    public init(config: RevenueDotConfig) throws {
        self.config = config
        let metrics = Metrics()
        self.metrics = metrics
        guard case .sqlite(let path) = config.database else {
            throw ConfigError(
                file: config.file, key: "database", problem: "PostgreSQL storage is not available yet; use sqlite:PATH")
        }
        store = try SQLiteStore(
            path: path, handOff: LedgerHandOff(config: config), onCommit: { metrics.commitBatchSize.observe(Double($0)) })
        // One set of verifiers (and chain caches) serves ingest and the subscriber API.
        let verifiers = try AppVerifiers.forApps(of: config)
        let ingest = Ingest(verifiers: verifiers, store: store, metrics: metrics)
        let subscribers = SubscribersAPI(keys: APIKeys(apps: config.apps), verifiers: verifiers, store: store, clock: Date.init)
        let http = HTTPServerConfiguration(
            host: config.listen.host, port: config.listen.port, threads: config.http.threads,
            maxBodyBytes: config.http.maxBodyBytes, connectionTimeoutSeconds: config.http.timeoutSeconds)
        server = HTTPServer(
            configuration: http, router: Routes.router(ingest: ingest, subscribers: subscribers, store: store, metrics: metrics),
            observer: metrics)
    }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() throws -> UInt16 { try server.start() }

    /// The port the server listens on.
    public var port: UInt16 { server.port }

    /// Graceful stop: no new connections, in-flight requests finish, storage is flushed.
    public func shutdown() {
        server.shutdown()
        store.close()
    }
}
