import AppStore
import AppStoreServerAPISimulator
import Foundation

/// `revenuedot-bench import --dir DIR --revenuedot PATH [--count N]`: N subscriptions held by a
/// local App Store Server API, imported by `revenuedot import` from a CSV into a fresh database
/// (no rate limit set), each with one page of Transaction History and its status; prints
/// subscriptions per second as JSON.
func importBench(_ arguments: [String]) throws {
    guard let directory = argument("dir", arguments), let executable = argument("revenuedot", arguments) else {
        fail("import needs --dir DIR --revenuedot PATH")
    }
    let count = Int(argument("count", arguments) ?? "2000") ?? 2000
    let chain = try TestChain()
    try chain.root.pem.write(toFile: "\(directory)/import-root.pem", atomically: true, encoding: .utf8)
    // A root others can change is refused, whatever the umask.
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: "\(directory)/import-root.pem")
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
            ], bundleId: bundleId, account: "account-\(index)")
        store.setRenewalInfo(
            ["originalTransactionId": .string(id), "autoRenewStatus": .integer(1), "environment": .string("Sandbox")],
            originalTransactionId: id)
        csv += "\(id),customer-\(index)\n"
    }
    try csv.write(toFile: "\(directory)/import.csv", atomically: true, encoding: .utf8)
    let local = try LocalAppleAPI(store: store, directory: directory, name: "import", rootFile: "import-root.pem")
    defer { local.shutdown() }
    for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where file.hasSuffix(".checkpoint") {
        try? FileManager.default.removeItem(atPath: "\(directory)/\(file)")
    }
    let configPath = local.configPath
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
            "requests": store.requestCount("subscription-statuses") + store.requestCount("transaction-history"),
        ]) + Data("\n".utf8))
}
