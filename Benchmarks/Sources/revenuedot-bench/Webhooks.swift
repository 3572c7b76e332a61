import AppStore
import Foundation
import HTTP
import Synchronization
import Threads

/// `webhooks`: ingest with a webhook per event, measured from Apple's side to the app's backend.
///
/// Starts a receiver that answers 200 at once, serves `revenuedot` with the app's webhook
/// pointing at it (new purchases tracked, so every notification makes one event), POSTs every
/// payload over `--connections` keep-alive connections, and waits for every webhook. Prints the
/// ingest rate, the delivery rate (webhooks per second over their own span), and the latency
/// from a notification answered 200 to its webhook received.
func webhooks(_ arguments: [String]) throws {
    guard let directory = argument("dir", arguments), let executable = argument("revenuedot", arguments) else {
        fail("webhooks needs --dir DIR (root.pem, payloads.txt from generate) --revenuedot PATH")
    }
    let connections = Int(argument("connections", arguments) ?? "16") ?? 16
    let concurrency = Int(argument("concurrency", arguments) ?? "8") ?? 8
    let payloads = try lines("\(directory)/payloads.txt").map { Data(#"{"signedPayload":""#.utf8) + $0 + Data(#""}"#.utf8) }
    let clock = ContinuousClock()

    // The receiver: the original transaction id of each event → when its webhook arrived.
    let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
    let duplicates = Atomic<Int>(0)
    var router = Router()
    router.add("POST", "/hooks") { request in
        let now = clock.now
        if let original = originalTransactionId(in: request.body) {
            let repeated = arrivals.withLock { arrivals -> Bool in
                guard arrivals[original] == nil else { return true }
                arrivals[original] = now
                return false
            }
            if repeated { duplicates.add(1, ordering: .relaxed) }
        }
        return HTTPResponse(status: 200)
    }
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configuration.threads = 4
    let receiver = HTTPServer(configuration: configuration, router: router)
    let receiverPort = try receiver.start()
    defer { receiver.shutdown() }

    let configPath = "\(directory)/webhooks.json"
    try? FileManager.default.removeItem(atPath: "\(directory)/webhooks.sqlite")
    try """
    {
      "listen": "127.0.0.1:0",
      "database": "sqlite:webhooks.sqlite",
      "apps": [{"id": "bench", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
                "rootCertificates": ["root.pem"], "trackNewPurchasesFromServerNotifications": true,
                "entitlements": {"pro": ["pro.monthly", "pro.yearly"]},
                "webhook": {"url": "http://127.0.0.1:\(receiverPort)/hooks", "concurrency": \(concurrency)}}]
    }
    """.write(toFile: configPath, atomically: true, encoding: .utf8)
    // serve refuses a configuration others can read (it may hold keys and secrets).
    chmod(configPath, 0o600)
    let server = Process()
    server.executableURL = URL(fileURLWithPath: executable)
    server.arguments = ["serve", "--config", configPath]
    let output = Pipe()
    server.standardOutput = output
    // Its log, for the writer's profile it prints when it stops (`REVENUEDOT_WRITE_PROFILE`).
    let logPath = "\(directory)/webhooks-serve.log"
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
    server.standardError = log
    var environment = ProcessInfo.processInfo.environment
    environment["REVENUEDOT_WRITE_PROFILE"] = "1"
    server.environment = environment
    try server.run()
    var stopped = false
    func stop() {
        guard !stopped else { return }
        stopped = true
        server.terminate()
        server.waitUntilExit()
        try? log.close()
    }
    defer { stop() }
    guard let port = readPort(output.fileHandleForReading) else { fail("revenuedot serve did not start") }

    // Payload i is about original transaction 20000000<i> (see `generate`).
    let answers = Mutex<[Int: ContinuousClock.Instant]>([:])
    var started = clock.now
    let ingest = runLoad(
        port: port, count: payloads.count, connections: connections,
        answered: { index, at in answers.withLock { $0[index] = at } }, started: { started = $0 }
    ) { index in
        LoadRequest(
            method: "POST", path: "/v1/apple/notifications/bench", headers: ["Content-Type": "application/json"],
            body: payloads[index])
    }
    let deadline = clock.now + .seconds(120)
    while arrivals.withLock({ $0.count }) < payloads.count, clock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }

    let received = arrivals.withLock { $0 }
    let answered = answers.withLock { $0 }
    var latencies: [Double] = []
    for (index, answer) in answered {
        guard let arrival = received["20000000\(String(format: "%08d", index))"] else { continue }
        // The answer and the webhook both leave once the commit returns: a webhook received
        // before the client has read its answer counts as 0, not as a negative latency.
        latencies.append(max(0, (arrival - answer).inSeconds * 1000))
    }
    latencies.sort()
    func percentile(_ p: Double) -> Double {
        latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
    }
    let firstArrival = received.values.min() ?? started
    let lastArrival = received.values.max() ?? started
    let span = max((lastArrival - firstArrival).inSeconds, 1e-9)
    stop()
    let profile = (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(separator: "\n")
        .first { $0.contains("write profile") }.map { String($0.drop { $0 != "w" }) }
    try printJSON([
        "notifications": payloads.count, "ingest": ingest, "webhooks_received": received.count,
        "write_profile": profile ?? "",
        "webhooks_per_second": (Double(received.count) / span).rounded(),
        "first_post_to_last_webhook_seconds": (lastArrival - started).inSeconds,
        "latency_p50_ms": (percentile(0.5) * 100).rounded() / 100, "latency_p99_ms": (percentile(0.99) * 100).rounded() / 100,
        "latency_max_ms": ((latencies.last ?? 0) * 100).rounded() / 100,
        "duplicate_webhooks": duplicates.load(ordering: .relaxed),
    ])
}

/// The event's `original_transaction_id`, found in the body's bytes. A receiver elsewhere
/// costs this machine nothing; this one shares its cores with the server it measures, so it
/// reads no more of each webhook than the one field it counts.
private func originalTransactionId(in body: Data) -> String? {
    let key = Data(#""original_transaction_id":""#.utf8)
    guard let start = body.range(of: key)?.upperBound,
        let end = body[start...].firstIndex(of: UInt8(ascii: "\""))
    else { return nil }
    return String(decoding: body[start..<end], as: UTF8.self)
}

/// The port from `revenuedot serve`'s "listening on http://127.0.0.1:PORT" line.
private func readPort(_ handle: FileHandle) -> UInt16? {
    var text = ""
    while let chunk = try? handle.read(upToCount: 256), !chunk.isEmpty {
        text += String(decoding: chunk, as: UTF8.self)
        if let range = text.range(of: "listening on http://127.0.0.1:") {
            let digits = text[range.upperBound...].prefix { $0.isNumber }
            if digits.count < text[range.upperBound...].count { return UInt16(digits) }
        }
    }
    return nil
}
