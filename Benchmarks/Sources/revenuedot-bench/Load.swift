import Foundation
import LoopbackClient
import Synchronization
import Threads

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
/// Each connection carries one request at a time, and requests go out in index order: whichever
/// connection is free takes the next one, as Apple sends a subscription's notifications in the
/// order they happened. (Fixed shares per connection, `c`, `c + connections`, ..., drifted apart
/// by hundreds of requests over a run, so a run about few subscriptions delivered many of each
/// one's notifications after a later one.) The connections are shared among `threads` client
/// threads (at most one per core), each waiting with `poll` for whichever of its connections has
/// an answer: the client runs on the same cores as the server, and a blocked thread per
/// connection cost it a wake-up and a context switch per answer (client CPU per ingest request
/// 28-30 us with 16 threads).
///
/// Every request is encoded and every connection opened before the clock starts, so the timed
/// part is the load itself: send, wait, read the answer. The client's own CPU time per request
/// over that part (`client_cpu_us_per_request`, user and system, every thread of this process)
/// is reported too, and how busy the machine's cores were meanwhile (`cores_busy_percent`, with
/// `steal_percent`, the time a busy host took away; -1 without `/proc/stat`).
///
/// A request counts as a failure unless it is answered `expectedStatus`. A connection that fails
/// takes no further request; the others carry on, and requests left when none is left count as
/// failures without being sent. The first failure's reason is reported (`first_failure`).
///
/// `answered`, when given, is called with each request's index and the moment its answer arrived;
/// `started`, with the moment the clock started (after the requests were encoded).
func runLoad(
    port: UInt16, otherPorts: [UInt16] = [], count: Int, connections: Int, expectedStatus: Int = 200,
    threads: Int = min(2, ProcessInfo.processInfo.activeProcessorCount),
    answered: (@Sendable (Int, ContinuousClock.Instant) -> Void)? = nil,
    started: ((ContinuousClock.Instant) -> Void)? = nil,
    _ request: @escaping @Sendable (Int) -> LoadRequest
) -> [String: Any] {
    let queue = LoadQueue(port: port, count: count, request: request)
    let latencies = Mutex<[Double]>([])
    let failures = LoadFailures()
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
            // Connections go round-robin to `port` and `otherPorts` (several nodes behind one client).
            let ports = [port] + otherPorts
            var lanes = stride(from: thread, to: connections, by: threads).compactMap { lane in
                do {
                    return try LoadLane(port: ports[lane % ports.count])
                } catch {
                    failures.note("\(error)")
                    return nil
                }
            }
            prepared.leave()
            go.wait()
            var elapsedMs: [Double] = []
            elapsedMs.reserveCapacity(count / threads + 1)
            // One entry per lane; a lane with nothing on its way is left out of `poll` (fd -1).
            var waiting: [pollfd] = []
            for lane in lanes.indices {
                lanes[lane].sendNext(queue, clock, failures)
                waiting.append(pollfd(fd: lanes[lane].isSending ? lanes[lane].descriptor : -1, events: Int16(POLLIN), revents: 0))
            }
            while waiting.contains(where: { $0.fd >= 0 }) {
                guard poll(&waiting, nfds_t(waiting.count), -1) > 0 else { continue }
                for lane in lanes.indices where waiting[lane].fd >= 0 && waiting[lane].revents != 0 {
                    let (index, sent, status) = lanes[lane].readAnswer(queue)
                    let now = clock.now
                    answered?(index, now)
                    if status != expectedStatus {
                        failures.add(1, status.map { "answered \($0), expected \(expectedStatus)" } ?? "no answer read")
                    }
                    let elapsed = now - sent
                    elapsedMs.append(elapsed.inSeconds * 1000)
                    lanes[lane].sendNext(queue, clock, failures)
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
    if queue.untaken > 0 { failures.add(queue.untaken, "not sent: every connection had failed") }
    let seconds = total.inSeconds
    let sorted = latencies.withLock { $0 }.sorted()
    func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    return [
        "requests": sorted.count, "seconds": seconds, "requests_per_second": (Double(sorted.count) / seconds).rounded(),
        "p50_ms": (percentile(0.5) * 100).rounded() / 100, "p99_ms": (percentile(0.99) * 100).rounded() / 100,
        "failures": failures.count, "connections": connections,
        "client_cpu_us_per_request": sorted.isEmpty ? 0 : (cpu * 1e6 / Double(sorted.count)).rounded(),
        "cores_busy_percent": machine?.busy ?? -1, "steal_percent": machine?.steal ?? -1,
    ].merging(failures.first.map { ["first_failure": $0] } ?? [:]) { value, _ in value }
}

/// How many requests of a load run failed, and why the first one did.
private final class LoadFailures: Sendable {
    private let counted = Atomic<Int>(0)
    private let reason = Mutex<String?>(nil)

    var count: Int { counted.load(ordering: .relaxed) }
    var first: String? { reason.withLock { $0 } }

    /// Counts `requests` failed requests.
    func add(_ requests: Int, _ why: String) {
        counted.add(requests, ordering: .relaxed)
        note(why)
    }

    /// Keeps `why` if it is the first reason given (a connection that could not be opened fails no request by itself).
    func note(_ why: String) {
        reason.withLock { if $0 == nil { $0 = why } }
    }
}

/// The requests of a load run, encoded ahead, handed out one at a time in index order.
private final class LoadQueue: Sendable {
    /// Each request's bytes, and whether it is a HEAD (its answer has no body).
    let requests: [(bytes: Data, bodyless: Bool)]
    private let next = Atomic<Int>(0)

    init(port: UInt16, count: Int, request: (Int) -> LoadRequest) {
        requests = (0..<count).map { index in
            let made = request(index)
            let bytes = LoopbackConnection.encoded(
                made.method, made.path, port: port, headers: made.headers, body: made.body ?? Data())
            return (bytes, made.method == "HEAD")
        }
    }

    /// The next request's index; nil once every one was taken.
    func take() -> Int? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < requests.count ? index : nil
    }

    /// How many requests no connection took (every connection failed before they were sent).
    var untaken: Int { requests.count - min(next.load(ordering: .relaxed), requests.count) }
}

/// One connection of a load run, carrying one request at a time.
private struct LoadLane {
    let connection: LoopbackConnection
    /// The request on its way (its index), and when it was sent.
    private var current: (index: Int, sent: ContinuousClock.Instant)?
    /// Set once sending or reading failed: the connection takes no further request.
    private var failed = false

    init(port: UInt16) throws {
        connection = try LoopbackConnection(port: port)
    }

    var descriptor: Int32 { connection.fileDescriptor }
    /// Whether a request is on its way (false once the queue is empty or the connection failed).
    var isSending: Bool { current != nil }

    /// Sends the next request of `queue`, if any; a request that cannot be sent counts as a failure.
    mutating func sendNext(_ queue: LoadQueue, _ clock: ContinuousClock, _ failures: LoadFailures) {
        current = nil
        guard !failed, let index = queue.take() else { return }
        let sent = clock.now
        do {
            try connection.sendRaw(queue.requests[index].bytes)
        } catch {
            failures.add(1, "\(error)")
            failed = true
            return
        }
        current = (index, sent)
    }

    /// Reads the answer to the request on its way: its index, when it was sent, and its status (nil on failure).
    mutating func readAnswer(_ queue: LoadQueue) -> (index: Int, sent: ContinuousClock.Instant, status: Int?) {
        let (index, sent) = current!
        let status = (try? connection.readResponse(bodyless: queue.requests[index].bodyless))?.status
        if status == nil { failed = true }
        return (index, sent, status)
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
