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
/// Each thread connects and encodes all its requests before the clock starts, so the timed part
/// is the load itself: send, wait, read the answer. The client's own CPU time per request over
/// that part (`client_cpu_us_per_request`, user and system, every thread of this process) is
/// reported too: it runs on the same cores as the server.
///
/// A request counts as a failure unless it is answered `expectedStatus`.
///
/// `answered`, when given, is called with each request's index and the moment its answer arrived;
/// `started`, with the moment the clock started (after the requests were encoded).
func runLoad(
    port: UInt16, count: Int, connections: Int, expectedStatus: Int = 200,
    answered: (@Sendable (Int, ContinuousClock.Instant) -> Void)? = nil,
    started: ((ContinuousClock.Instant) -> Void)? = nil,
    _ request: @escaping @Sendable (Int) -> LoadRequest
) -> [String: Any] {
    let latencies = Mutex<[Double]>([])
    let failures = Atomic<Int>(0)
    let clock = ContinuousClock()
    let prepared = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    // Dedicated threads: concurrentPerform would run only as many connections as cores.
    let group = DispatchGroup()
    for worker in 0..<connections {
        group.enter()
        prepared.enter()
        Thread {
            defer { group.leave() }
            guard let connection = try? LoopbackConnection(port: port) else {
                failures.add(1, ordering: .relaxed)
                prepared.leave()
                return
            }
            let mine = Array(stride(from: worker, to: count, by: connections))
            let requests = mine.map { index in
                let next = request(index)
                return (
                    bytes: connection.encoded(next.method, next.path, headers: next.headers, body: next.body ?? Data()),
                    bodyless: next.method == "HEAD"
                )
            }
            prepared.leave()
            go.wait()
            var elapsedMs: [Double] = []
            elapsedMs.reserveCapacity(mine.count)
            for (index, next) in zip(mine, requests) {
                let sent = clock.now
                let status = (try? connection.send(prepared: next.bytes, bodyless: next.bodyless))?.status
                let now = clock.now
                answered?(index, now)
                let elapsed = now - sent
                if status != expectedStatus { failures.add(1, ordering: .relaxed) }
                elapsedMs.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            latencies.withLock { $0 += elapsedMs }
        }.start()
    }
    prepared.wait()
    let cpuBefore = processCPUSeconds()
    let start = clock.now
    started?(start)
    for _ in 0..<connections { go.signal() }
    group.wait()
    let total = clock.now - start
    let cpu = processCPUSeconds() - cpuBefore
    let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
    let sorted = latencies.withLock { $0 }.sorted()
    func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    return [
        "requests": sorted.count, "seconds": seconds, "requests_per_second": (Double(sorted.count) / seconds).rounded(),
        "p50_ms": (percentile(0.5) * 100).rounded() / 100, "p99_ms": (percentile(0.99) * 100).rounded() / 100,
        "failures": failures.load(ordering: .relaxed), "connections": connections,
        "client_cpu_us_per_request": sorted.isEmpty ? 0 : (cpu * 1e6 / Double(sorted.count)).rounded(),
    ]
}

/// User plus system CPU time of this process so far, in seconds (`getrusage`).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func printJSON(_ object: [String: Any]) throws {
    FileHandle.standardOutput.write(try json(object) + Data("\n".utf8))
}
