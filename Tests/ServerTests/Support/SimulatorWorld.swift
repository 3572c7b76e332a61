import Crypto
import Foundation
import JSON
import LoopbackClient

@testable import Server
@testable import Tools

/// Where `revenuedot simulate` stories are played in tests: a fresh directory with the dev CA
/// `simulate ca` makes there, and a real server on a loopback port with a SQLite file that
/// trusts it (app "demo", with API keys and an In-App Purchase key for Advanced Commerce).
/// Every method may be called from any thread.
final class SimulatorWorld: Sendable {
    let directory = TestDirectory("simulate")
    let configPath: String
    let service: RevenueDotService
    let port: UInt16
    /// The In-App Purchase key's public half, to check what RevenueDot signed with it.
    let commerceKey: ECPrivateKey

    static let entitlements = #"{"pro": ["pro.monthly", "pro.yearly", "pro.basic", "pro.weekly"], "pass": ["commerce.pass"]}"#

    init() throws {
        let ca = try runCLI(["simulate", "ca"], in: directory.path(""))
        guard ca.status == 0 else { throw SimulatorWorldError(description: ca.output) }
        let root = ca.output.trimmingCharacters(in: .whitespacesAndNewlines)
        commerceKey = try ECPrivateKey(generating: .p256)
        let keyPath = try directory.write("SubscriptionKey_SIM123.p8", try commerceKey.pkcs8PEM())
        configPath = try directory.write(
            "revenuedot.json",
            """
            {"listen": "127.0.0.1:0", "database": "sqlite:revenuedot.sqlite",
             "apps": [{"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
                       "rootCertificates": ["\(root)"], "trackNewPurchasesFromServerNotifications": true,
                       "secretApiKey": "sk_sim", "publicApiKey": "pk_sim",
                       "inAppPurchaseKey": {"keyId": "SIM123", "issuerId": "issuer-sim", "privateKeyPath": "\(keyPath)"},
                       "entitlements": \(Self.entitlements)}]}
            """)
        service = try RevenueDotService(quietly: try ConfigLoader.load(path: configPath))
        try service.start()
        port = service.port
    }

    /// `revenuedot simulate ARGUMENTS` in its own process, against this server.
    func simulate(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runCLI(
            ["simulate"] + arguments + ["--server", "http://127.0.0.1:\(port)", "--config", configPath], in: directory.path(""))
    }

    /// A GET with the secret key, its body parsed.
    func get(_ path: String) throws -> JSONValue {
        let response = try LoopbackConnection(port: port).request("GET", path, headers: ["Authorization": "Bearer sk_sim"])
        return try JSONValue(parsing: response.body)
    }

    /// The customer as `GET /v1/subscribers/{user}` shows them.
    func subscriber(_ user: String) throws -> JSONValue { try get("/v1/subscribers/\(user)")["subscriber"] ?? .null }

    /// The events committed after `cursor`, and the cursor after them.
    func events(after cursor: Int64) throws -> (events: [JSONValue], next: Int64) {
        let page = try get("/v1/events?after=\(cursor)&limit=1000")
        let events = page["events"]?.arrayValue?.compactMap { $0["event"] } ?? []
        guard case .integer(let next)? = page["next_cursor"] else { return (events, cursor) }
        return (events, next)
    }

    /// Every event of `user` so far.
    func events(of user: String) throws -> [JSONValue] {
        var all: [JSONValue] = []
        var cursor: Int64 = 0
        while true {
            let (page, next) = try events(after: cursor)
            all += page
            if next == cursor { break }
            cursor = next
        }
        return all.filter { $0["app_user_id"] == .string(user) }
    }

    /// What the simulator keeps of `user`'s subscription.
    func simulated(_ user: String) throws -> JSONValue {
        try JSONValue(
            parsing: Data(
                contentsOf: directory.url.appendingPathComponent(
                    ".revenuedot/simulator/demo/\(SimulateCommand.fileName(user)).json")
            ))
    }

    func shutdown() { service.shutdown() }
}

struct SimulatorWorldError: Error, CustomStringConvertible {
    var description: String
}
