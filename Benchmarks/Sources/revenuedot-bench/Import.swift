import AppStore
import AppStoreServerAPISimulator
import Foundation

/// `revenuedot-bench import --dir DIR --revenuedot PATH [--count N]`: N subscriptions held by a
/// local App Store Server API, imported by `revenuedot import` from a CSV into a fresh database
/// (no rate limit set); prints subscriptions per second as JSON.
func importBench(_ arguments: [String]) throws {
    guard let directory = argument("dir", arguments), let executable = argument("revenuedot", arguments) else {
        fail("import needs --dir DIR --revenuedot PATH")
    }
    let count = Int(argument("count", arguments) ?? "2000") ?? 2000
    let chain = try TestChain()
    try chain.root.pem.write(toFile: "\(directory)/import-root.pem", atomically: true, encoding: .utf8)
    let store = try SimulatedAppStore(
        apps: [SimulatedAppStore.App(bundleId: bundleId, appAppleId: appAppleId, environment: .sandbox)], chain: chain)
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    var csv = "original_transaction_id,app_user_id\n"
    for index in 0..<count {
        let id = String(8_000_000_000 + index)
        store.addTransaction(
            [
                "transactionId": .string(id), "originalTransactionId": .string(id), "bundleId": .string(bundleId),
                "productId": .string("pro.monthly"), "purchaseDate": .integer(now - 86_400_000),
                "expiresDate": .integer(now + 29 * 86_400_000), "type": .string("Auto-Renewable Subscription"),
                "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"),
            ], bundleId: bundleId)
        store.setRenewalInfo(
            ["originalTransactionId": .string(id), "autoRenewStatus": .integer(1), "environment": .string("Sandbox")],
            originalTransactionId: id)
        csv += "\(id),customer-\(index)\n"
    }
    try csv.write(toFile: "\(directory)/import.csv", atomically: true, encoding: .utf8)
    let key = try ECPrivateKey(generating: .p256)
    let keyPath = "\(directory)/import-key.p8"
    try? FileManager.default.removeItem(atPath: keyPath)
    try Data(try key.pkcs8PEM().utf8).write(to: URL(fileURLWithPath: keyPath))
    chmod(keyPath, 0o600)
    let issuer = "57246542-96fe-1a63-e053-0824d011072a"
    let simulator = AppStoreServerAPISimulator(
        store: store,
        tokens: TokenCheck(keys: [
            try TokenCheck.Key(keyId: "BENCH", issuerId: issuer, publicKeyPEM: try key.publicKeyPEM(), bundleIds: [bundleId])
        ]))
    let port = try simulator.start()
    defer { simulator.shutdown() }
    let configPath = "\(directory)/import.json"
    for suffix in ["", "-wal", "-shm", ".lock"] {
        try? FileManager.default.removeItem(atPath: "\(directory)/import.sqlite\(suffix)")
    }
    for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where file.hasSuffix(".checkpoint") {
        try? FileManager.default.removeItem(atPath: "\(directory)/\(file)")
    }
    try """
    {
      "listen": "127.0.0.1:0",
      "database": "sqlite:import.sqlite",
      "apps": [{"id": "bench", "bundleId": "\(bundleId)", "appAppleId": \(appAppleId), "environments": ["Sandbox"],
                "rootCertificates": ["import-root.pem"],
                "inAppPurchaseKey": {"keyId": "BENCH", "issuerId": "\(issuer)", "privateKeyPath": "import-key.p8"}}],
      "appleApi": {"baseURLs": {"Sandbox": "http://127.0.0.1:\(port)"}, "requestsPerSecond": 0}
    }
    """.write(toFile: configPath, atomically: true, encoding: .utf8)
    chmod(configPath, 0o600)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["import", "--app", "bench", "--config", configPath, "\(directory)/import.csv", "--concurrency", "8"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let started = Date()
    try process.run()
    process.waitUntilExit()
    let seconds = Date().timeIntervalSince(started)
    guard process.terminationStatus == 0 else { fail("revenuedot import exited \(process.terminationStatus)") }
    FileHandle.standardOutput.write(
        try json([
            "subscriptions": count, "seconds": seconds, "subscriptions_per_second": Double(count) / seconds,
            "requests": store.requestCount("subscription-statuses"),
        ]) + Data("\n".utf8))
}
