import Foundation
import LoopbackClient
import Synchronization

/// One request of a load run.
struct LoadRequest: Sendable {
    var method: String
    var path: String
    var headers: [String: String]
    var body: Data?
}

/// Sends `requests` (request `i` from `request(i)`) to a local server over `connections`
/// keep-alive connections on dedicated threads, and returns throughput and latency as JSON fields.
///
/// A request counts as a failure unless it is answered `expectedStatus`.
///
/// `answered`, when given, is called with each request's index and the moment its answer arrived.
func runLoad(
    port: UInt16, count: Int, connections: Int, expectedStatus: Int = 200,
    answered: (@Sendable (Int, ContinuousClock.Instant) -> Void)? = nil,
    _ request: @escaping @Sendable (Int) -> LoadRequest
) -> [String: Any] {
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
            for index in stride(from: worker, to: count, by: connections) {
                let next = request(index)
                let sent = clock.now
                let status = (try? connection.request(next.method, next.path, headers: next.headers, body: next.body ?? Data()))?
                    .status
                let now = clock.now
                answered?(index, now)
                let elapsed = now - sent
                if status != expectedStatus { failures.add(1, ordering: .relaxed) }
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
    return [
        "requests": sorted.count, "seconds": seconds, "requests_per_second": (Double(sorted.count) / seconds).rounded(),
        "p50_ms": (percentile(0.5) * 100).rounded() / 100, "p99_ms": (percentile(0.99) * 100).rounded() / 100,
        "failures": failures.load(ordering: .relaxed), "connections": connections,
    ]
}

func printJSON(_ object: [String: Any]) throws {
    FileHandle.standardOutput.write(try json(object) + Data("\n".utf8))
}
