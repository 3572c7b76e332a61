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
/// keep-alive connections, and returns throughput and latency as JSON fields.
///
/// Each connection carries one request at a time, and connection `c` sends requests `c`,
/// `c + connections`, ... The connections are shared among `threads` client threads (at most one
/// per core), each waiting with `poll` for whichever of its connections has an answer: the client
/// runs on the same cores as the server, and a blocked thread per connection cost it a wake-up and
/// a context switch per answer (client CPU per ingest request 28-30 us with 16 threads).
///
/// Each thread connects and encodes all its requests before the clock starts, so the timed part
/// is the load itself: send, wait, read the answer. The client's own CPU time per request over
/// that part (`client_cpu_us_per_request`, user and system, every thread of this process) is
/// reported too, and how busy the machine's cores were meanwhile (`cores_busy_percent`, with
/// `steal_percent`, the time a busy host took away; -1 without `/proc/stat`).
///
/// A request counts as a failure unless it is answered `expectedStatus`; when a connection fails,
/// its remaining requests count as failures without being sent.
///
/// `answered`, when given, is called with each request's index and the moment its answer arrived;
/// `started`, with the moment the clock started (after the requests were encoded).
func runLoad(
    port: UInt16, count: Int, connections: Int, expectedStatus: Int = 200,
    threads: Int = min(2, ProcessInfo.processInfo.activeProcessorCount),
    answered: (@Sendable (Int, ContinuousClock.Instant) -> Void)? = nil,
    started: ((ContinuousClock.Instant) -> Void)? = nil,
    _ request: @escaping @Sendable (Int) -> LoadRequest
) -> [String: Any] {
    let latencies = Mutex<[Double]>([])
    let failures = Atomic<Int>(0)
    let clock = ContinuousClock()
    let prepared = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    let threads = max(1, min(threads, connections))
    let group = DispatchGroup()
    for thread in 0..<threads {
        group.enter()
        prepared.enter()
        Thread {
            defer { group.leave() }
            var lanes: [LoadLane] = []
            for connection in stride(from: thread, to: connections, by: threads) {
                let indices = Array(stride(from: connection, to: count, by: connections))
                guard let lane = try? LoadLane(port: port, indices: indices, request: request) else {
                    failures.add(indices.count, ordering: .relaxed)
                    continue
                }
                lanes.append(lane)
            }
            prepared.leave()
            go.wait()
            var elapsedMs: [Double] = []
            elapsedMs.reserveCapacity(lanes.reduce(0) { $0 + $1.requests.count })
            // One entry per lane; a lane with nothing on its way is left out of `poll` (fd -1).
            var waiting: [pollfd] = []
            for lane in lanes.indices {
                lanes[lane].sendNext(clock, failures)
                waiting.append(pollfd(fd: lanes[lane].isSending ? lanes[lane].descriptor : -1, events: Int16(POLLIN), revents: 0))
            }
            while waiting.contains(where: { $0.fd >= 0 }) {
                guard poll(&waiting, nfds_t(waiting.count), -1) > 0 else { continue }
                for lane in lanes.indices where waiting[lane].fd >= 0 && waiting[lane].revents != 0 {
                    let (index, sent, status) = lanes[lane].readAnswer()
                    let now = clock.now
                    answered?(index, now)
                    if status != expectedStatus { failures.add(1, ordering: .relaxed) }
                    let elapsed = now - sent
                    elapsedMs.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                    lanes[lane].sendNext(clock, failures)
                    if !lanes[lane].isSending { waiting[lane].fd = -1 }
                }
            }
            latencies.withLock { $0 += elapsedMs }
        }.start()
    }
    prepared.wait()
    let cpuBefore = processCPUSeconds()
    let machineBefore = MachineCPU.now()
    let start = clock.now
    started?(start)
    for _ in 0..<threads { go.signal() }
    group.wait()
    let total = clock.now - start
    let cpu = processCPUSeconds() - cpuBefore
    let machine = machineBefore.flatMap { before in MachineCPU.now().map { before.shares(until: $0) } }
    let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
    let sorted = latencies.withLock { $0 }.sorted()
    func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    return [
        "requests": sorted.count, "seconds": seconds, "requests_per_second": (Double(sorted.count) / seconds).rounded(),
        "p50_ms": (percentile(0.5) * 100).rounded() / 100, "p99_ms": (percentile(0.99) * 100).rounded() / 100,
        "failures": failures.load(ordering: .relaxed), "connections": connections,
        "client_cpu_us_per_request": sorted.isEmpty ? 0 : (cpu * 1e6 / Double(sorted.count)).rounded(),
        "cores_busy_percent": machine?.busy ?? -1, "steal_percent": machine?.steal ?? -1,
    ]
}

/// One connection of a load run and the requests it sends, one at a time, in order.
private struct LoadLane {
    let connection: LoopbackConnection
    /// Each request's index, bytes, and whether it is a HEAD (its answer has no body).
    let requests: [(index: Int, bytes: Data, bodyless: Bool)]
    /// The request on its way, and when it was sent.
    private var current: (position: Int, sent: ContinuousClock.Instant)?
    private var next = 0

    init(port: UInt16, indices: [Int], request: (Int) -> LoadRequest) throws {
        let connection = try LoopbackConnection(port: port)
        self.connection = connection
        requests = indices.map { index in
            let made = request(index)
            return (
                index, connection.encoded(made.method, made.path, headers: made.headers, body: made.body ?? Data()),
                made.method == "HEAD"
            )
        }
    }

    var descriptor: Int32 { connection.fileDescriptor }
    /// Whether a request is on its way (false once all are answered or the connection failed).
    var isSending: Bool { current != nil }

    /// Sends the next request, if any; when sending fails, it and the rest count as failures.
    mutating func sendNext(_ clock: ContinuousClock, _ failures: borrowing Atomic<Int>) {
        current = nil
        guard next < requests.count else { return }
        let sent = clock.now
        do {
            try connection.sendRaw(requests[next].bytes)
        } catch {
            failures.add(requests.count - next, ordering: .relaxed)
            next = requests.count
            return
        }
        current = (next, sent)
        next += 1
    }

    /// Reads the answer to the request on its way: its index, when it was sent, and its status (nil on failure).
    mutating func readAnswer() -> (index: Int, sent: ContinuousClock.Instant, status: Int?) {
        let (position, sent) = current!
        let status = (try? connection.readResponse(bodyless: requests[position].bodyless))?.status
        return (requests[position].index, sent, status)
    }
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
