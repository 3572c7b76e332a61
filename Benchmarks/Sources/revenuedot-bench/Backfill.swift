import AppStore
import AppStoreServerAPISimulator
import Foundation

/// `revenuedot-bench backfill --dir DIR --revenuedot PATH`: the payloads of DIR, listed by a
/// local App Store Server API as notifications Apple could not deliver, recovered by
/// `revenuedot backfill` into a fresh database; prints its rate as JSON.
func backfill(_ arguments: [String]) throws {
    guard let directory = argument("dir", arguments), let executable = argument("revenuedot", arguments) else {
        fail("backfill needs --dir DIR (root.pem, payloads.txt from generate) --revenuedot PATH")
    }
    let payloads = try lines("\(directory)/payloads.txt").map { String(decoding: $0, as: UTF8.self) }
    let store = try SimulatedAppStore(
        apps: [SimulatedAppStore.App(bundleId: bundleId, appAppleId: appAppleId, environment: .sandbox)],
        chain: try TestChain())
    for signed in payloads { try store.addNotification(signed, bundleId: bundleId, delivered: false) }
    let local = try LocalAppleAPI(store: store, directory: directory, name: "backfill", rootFile: "root.pem")
    defer { local.shutdown() }
    let configPath = local.configPath
    let create = Process()
    create.executableURL = URL(fileURLWithPath: executable)
    create.arguments = ["backfill", "--app", "bench", "--config", configPath, "--since", "0"]
    let output = Pipe()
    create.standardOutput = output
    create.standardError = FileHandle.nullDevice
    let started = Date()
    try create.run()
    create.waitUntilExit()
    let processSeconds = Date().timeIntervalSince(started)
    guard create.terminationStatus == 0 else { fail("revenuedot backfill exited \(create.terminationStatus)") }
    // The run itself, as the command reports it ("... in 2.13 s"): not the process's start.
    let summary = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard let range = summary.range(of: #"in [0-9.]+ s"#, options: .regularExpression),
        let seconds = Double(summary[range].dropFirst(3).dropLast(2))
    else { fail("revenuedot backfill said: \(summary)") }
    let pages = store.requestCount("notification-history")
    FileHandle.standardOutput.write(
        try json([
            "notifications": payloads.count, "seconds": seconds, "process_seconds": processSeconds, "pages": pages,
            "notifications_per_second": Double(payloads.count) / seconds,
        ]) + Data("\n".utf8))
}
