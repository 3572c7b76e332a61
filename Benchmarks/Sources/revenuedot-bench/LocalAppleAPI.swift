import AppStore
import AppStoreServerAPISimulator
import Crypto
import Foundation
import Storage

/// A local App Store Server API serving `store` to app "bench" (Sandbox), and a revenuedot
/// configuration `DIR/<name>.json` pointing at it, with a fresh In-App Purchase key and a fresh
/// database `DIR/<name>.sqlite` (its schema only): what the backfill and import benches run against.
struct LocalAppleAPI {
    static let issuer = "57246542-96fe-1a63-e053-0824d011072a"

    let simulator: AppStoreServerAPISimulator
    let configPath: String

    /// `rootFile` names the PEM in DIR that the app trusts for what the store signs.
    init(store: SimulatedAppStore, directory: String, name: String, rootFile: String) throws {
        let key = try ECPrivateKey(generating: .p256)
        let keyPath = "\(directory)/\(name)-key.p8"
        try? FileManager.default.removeItem(atPath: keyPath)
        try Data(try key.pkcs8PEM().utf8).write(to: URL(fileURLWithPath: keyPath))
        chmod(keyPath, 0o600)
        simulator = AppStoreServerAPISimulator(
            store: store,
            tokens: TokenCheck(keys: [
                try TokenCheck.Key(
                    keyId: "BENCH", issuerId: Self.issuer, publicKeyPEM: try key.publicKeyPEM(), bundleIds: [bundleId])
            ]))
        let port = try simulator.start()
        for suffix in ["", "-wal", "-shm", ".lock"] {
            try? FileManager.default.removeItem(atPath: "\(directory)/\(name).sqlite\(suffix)")
        }
        configPath = "\(directory)/\(name).json"
        try """
        {
          "listen": "127.0.0.1:0",
          "database": "sqlite:\(name).sqlite",
          "apps": [{"id": "bench", "bundleId": "\(bundleId)", "appAppleId": \(appAppleId), "environments": ["Sandbox"],
                    "rootCertificates": ["\(rootFile)"],
                    "inAppPurchaseKey": {"keyId": "BENCH", "issuerId": "\(Self.issuer)", "privateKeyPath": "\(name)-key.p8"}}],
          "appleApi": {"baseURLs": {"Sandbox": "http://127.0.0.1:\(port)"}, "requestsPerSecond": 0}
        }
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        chmod(configPath, 0o600)
        // A command never creates the schema: the database is made as serve's first start makes it.
        try Store(path: "\(directory)/\(name).sqlite").close()
    }

    func shutdown() { simulator.shutdown() }
}
