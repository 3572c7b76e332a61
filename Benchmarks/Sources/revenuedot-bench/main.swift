// revenuedot-bench: the verification benchmark behind `make bench`.
//
//   revenuedot-bench generate --out DIR [--count N]
//       makes a test chain and N signed notifications (outer + transaction + renewal info),
//       writing DIR/root.pem and DIR/payloads.txt (one signedPayload per line)
//   revenuedot-bench verify --root PEM --payloads FILE [--min-seconds S]
//       verifies them on one core, with the chain cache off (cold) and warm, and prints JSON
//   revenuedot-bench ingest --port P --app ID --payloads FILE [--connections N]
//       POSTs every payload once to a running server over N keep-alive connections and prints
//       throughput and latency percentiles as JSON
import AppStore
import Foundation
import LoopbackClient
import Synchronization

let bundleId = "com.example.app"
let appAppleId: Int64 = 1234

func argument(_ name: String, _ arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("revenuedot-bench: \(message)\n".utf8))
    exit(2)
}

func json(_ object: [String: Any]) throws -> Data {
    try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
}

func generate(_ arguments: [String]) throws {
    guard let out = argument("out", arguments) else { fail("generate needs --out DIR") }
    let count = Int(argument("count", arguments) ?? "200") ?? 200
    let chain = try TestChain()
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    try chain.root.pem.write(toFile: "\(out)/root.pem", atomically: true, encoding: .utf8)
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    var lines: [String] = []
    for index in 0..<count {
        let original = "20000000\(String(format: "%08d", index))"
        let transaction: [String: Any] = [
            "transactionId": "30000000\(String(format: "%08d", index))", "originalTransactionId": original,
            "webOrderLineItemId": "40000000\(String(format: "%08d", index))", "bundleId": bundleId,
            "productId": "pro.monthly", "subscriptionGroupIdentifier": "21000001", "purchaseDate": now - 1000,
            "originalPurchaseDate": now - 86_400_000, "expiresDate": now + 30 * 86_400_000, "quantity": 1,
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": now,
            "environment": "Sandbox", "transactionReason": "RENEWAL", "storefront": "USA", "storefrontId": "143441",
            "price": 9990, "currency": "USD", "appTransactionId": "704289572311513457",
            "appAccountToken": UUID().uuidString.lowercased(),
        ]
        let renewal: [String: Any] = [
            "originalTransactionId": original, "productId": "pro.monthly", "autoRenewProductId": "pro.monthly",
            "autoRenewStatus": 1, "signedDate": now, "environment": "Sandbox", "renewalDate": now + 30 * 86_400_000,
            "recentSubscriptionStartDate": now - 86_400_000, "renewalPrice": 9990, "currency": "USD",
            "appTransactionId": "704289572311513457",
        ]
        let notification: [String: Any] = [
            "notificationType": "DID_RENEW", "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0",
            "signedDate": now,
            "data": [
                "appAppleId": appAppleId, "bundleId": bundleId, "bundleVersion": "42", "environment": "Sandbox",
                "status": 1, "signedTransactionInfo": try chain.sign(payload: json(transaction)),
                "signedRenewalInfo": try chain.sign(payload: json(renewal)),
            ],
        ]
        lines.append(try chain.sign(payload: json(notification)))
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: "\(out)/payloads.txt", atomically: true, encoding: .utf8)
}

/// The median rate of `rounds` measurements of about `seconds` each: one slow or fast round
/// (another process, a frequency change) does not move it.
func medianRate(_ verifier: SignedDataVerifier, _ payloads: [String], seconds: Double, rounds: Int) -> (rate: Double, count: Int)
{
    let results = (0..<rounds).map { _ in measure(verifier, payloads, minSeconds: seconds / Double(rounds)) }
    let rates = results.map(\.rate).sorted()
    return (rates[rates.count / 2], results.map(\.count).reduce(0, +))
}

/// Verifies `payloads` over and over for at least `minSeconds`; returns notifications per second.
func measure(_ verifier: SignedDataVerifier, _ payloads: [String], minSeconds: Double) -> (rate: Double, count: Int) {
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    var elapsed = 0.0
    repeat {
        for payload in payloads {
            do { _ = try verifier.verifyNotification(payload) } catch { fail("payload failed to verify: \(error)") }
        }
        count += payloads.count
        let duration = clock.now - start
        elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    } while elapsed < minSeconds
    return (Double(count) / elapsed, count)
}

func verify(_ arguments: [String]) throws {
    guard let rootPath = argument("root", arguments), let payloadPath = argument("payloads", arguments) else {
        fail("verify needs --root PEM --payloads FILE")
    }
    let minSeconds = Double(argument("min-seconds", arguments) ?? "3") ?? 3
    let roots = try Certificate.parsePEM(try String(contentsOfFile: rootPath, encoding: .utf8))
    let payloads = try String(contentsOfFile: payloadPath, encoding: .utf8).split(separator: "\n").map(String.init)
    let policy = VerificationPolicy(bundleId: bundleId, appAppleId: appAppleId, environments: [.sandbox])
    let cold = try SignedDataVerifier(rootCertificates: roots, policy: policy, chainCache: nil)
    let warm = try SignedDataVerifier(rootCertificates: roots, policy: policy)
    _ = measure(warm, Array(payloads.prefix(1)), minSeconds: 0)  // prime the cache
    // `--warm-only` skips the cold pass, to profile the warm path alone.
    let coldResult =
        arguments.contains("--warm-only") ? (rate: 0, count: 0) : medianRate(cold, payloads, seconds: minSeconds / 2, rounds: 3)
    let warmResult = medianRate(warm, payloads, seconds: minSeconds, rounds: 5)
    let result: [String: Any] = [
        "cold_notifications_per_second": coldResult.rate.rounded(), "cold_notifications": coldResult.count,
        "warm_notifications_per_second": warmResult.rate.rounded(), "warm_notifications": warmResult.count,
    ]
    FileHandle.standardOutput.write(try json(result) + Data("\n".utf8))
}

/// The non-empty lines of a file, split with memchr (Data.split is slow on large files).
func lines(_ path: String) throws -> [Data] {
    let file = try Data(contentsOf: URL(fileURLWithPath: path))
    return file.withUnsafeBytes { buffer -> [Data] in
        guard let base = buffer.baseAddress else { return [] }
        var result: [Data] = []
        var start = 0
        while start < buffer.count {
            let end = memchr(base + start, 0x0A, buffer.count - start).map { UnsafeRawPointer($0) - base } ?? buffer.count
            if end > start { result.append(Data(bytes: base + start, count: end - start)) }
            start = end + 1
        }
        return result
    }
}

func ingest(_ arguments: [String]) throws {
    guard let portText = argument("port", arguments), let port = UInt16(portText), let app = argument("app", arguments),
        let payloadPath = argument("payloads", arguments)
    else { fail("ingest needs --port P --app ID --payloads FILE") }
    let connections = Int(argument("connections", arguments) ?? "16") ?? 16
    let payloads = try lines(payloadPath).map { Data(#"{"signedPayload":""#.utf8) + $0 + Data(#""}"#.utf8) }
    let latencies = Mutex<[Double]>([])
    let failures = Atomic<Int>(0)
    let clock = ContinuousClock()
    let start = clock.now
    // Dedicated threads: concurrentPerform would run only as many connections as cores.
    let group = DispatchGroup()
    for worker in 0..<connections {
        group.enter()
        Thread {
            defer { group.leave() }
            guard let connection = try? LoopbackConnection(port: port) else {
                failures.add(1, ordering: .relaxed)
                return
            }
            var mine: [Double] = []
            for index in stride(from: worker, to: payloads.count, by: connections) {
                let sent = clock.now
                let status =
                    (try? connection.request(
                        "POST", "/v1/apple/notifications/\(app)", headers: ["Content-Type": "application/json"],
                        body: payloads[index]
                    ))?.status
                let elapsed = clock.now - sent
                if status != 200 { failures.add(1, ordering: .relaxed) }
                mine.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            latencies.withLock { $0 += mine }
        }.start()
    }
    group.wait()
    let total = clock.now - start
    let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
    let sorted = latencies.withLock { $0 }.sorted()
    func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    let result: [String: Any] = [
        "requests": sorted.count, "seconds": seconds, "requests_per_second": (Double(sorted.count) / seconds).rounded(),
        "p50_ms": (percentile(0.5) * 100).rounded() / 100, "p99_ms": (percentile(0.99) * 100).rounded() / 100,
        "failures": failures.load(ordering: .relaxed), "connections": connections,
    ]
    FileHandle.standardOutput.write(try json(result) + Data("\n".utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "generate": try generate(arguments)
    case "verify": try verify(arguments)
    case "ingest": try ingest(arguments)
    default: fail("usage: revenuedot-bench generate --out DIR [--count N] | verify --root PEM --payloads FILE [--min-seconds S]")
    }
} catch {
    fail("\(error)")
}
