import Foundation
import LoopbackClient
import PostgresFixtures
import Synchronization
import Testing
import Threads

@testable import Server
@testable import Storage

/// A database that stops answering (its server frozen with SIGSTOP: connections stay open,
/// nothing comes back, as with a hung disk or a silent link) holds no HTTP worker: routes that
/// read storage wait off the workers, `/metrics` answers without its storage gauges, and what
/// needs no storage is served meanwhile.
@Suite(.enabled(if: TestCluster.url != nil))
struct HungStorageTests {
    @Test func aFrozenDatabaseHoldsNoHTTPWorker() throws {
        let cluster = try PrivateCluster()
        try PostgresDatabases.create("rd_hung", on: try cluster.url())
        let url = try cluster.url(database: "rd_hung")
        let fixture = try ServerFixture(database: "\"\(PostgresCommandsTests.withPassword(url))\"")
        let service = try fixture.startService()
        defer { service.shutdown() }
        #expect(try LoopbackConnection(port: service.port).request("GET", "/metrics").status == 200)

        let processes = try Self.serverProcesses(of: cluster)
        for pid in processes { kill(pid, SIGSTOP) }
        let thawed = Mutex(false)
        func thaw() {
            thawed.withLock { done in
                if !done { for pid in processes { kill(pid, SIGCONT) } }
                done = true
            }
        }
        defer { thaw() }
        // Twice as many reads of the events as the server has workers, each waiting on storage.
        // And as many of a customer, the API's hot path.
        let paths = ["/v1/events", "/v1/subscribers/someone"]
        let waiting = (0..<(2 * (try fixture.config().http.threads))).flatMap { _ in
            paths.map { path in
                Thread.detachNewThreadWithResult {
                    try? LoopbackConnection(port: service.port, timeoutSeconds: 120).request(
                        "GET", path, headers: ["Authorization": "Bearer sk_test_secret"])
                }
            }
        }
        Thread.sleep(forTimeInterval: 0.5)
        let started = ContinuousClock.now
        let metrics = try LoopbackConnection(port: service.port, timeoutSeconds: 20).request("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("revenuedot_storage_readable 0\n"), "\(metrics.text.prefix(300))")
        #expect(ContinuousClock.now - started < .seconds(8))
        let unrouted = try LoopbackConnection(port: service.port, timeoutSeconds: 20).request("GET", "/no-such-route")
        #expect(unrouted.status == 404)
        // A scrape while the first one's read still waits does not wait for it.
        let again = ContinuousClock.now
        #expect(try LoopbackConnection(port: service.port, timeoutSeconds: 20).request("GET", "/metrics").status == 200)
        #expect(ContinuousClock.now - again < .seconds(2))
        thaw()
        for request in waiting { #expect(request.value()?.status != nil) }
    }

    /// The postmaster of `cluster` and its children (the sessions).
    static func serverProcesses(of cluster: PrivateCluster) throws -> [pid_t] {
        let pidFile = try String(contentsOfFile: cluster.directory + "/data/postmaster.pid", encoding: .utf8)
        guard let line = pidFile.split(separator: "\n").first, let postmaster = pid_t(line) else { return [] }
        let children = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (name) state ": the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == postmaster ? pid : nil
        }
        return [postmaster] + children
    }
}

extension Thread {
    /// Runs `body` on a thread of its own; `value()` waits for its result.
    static func detachNewThreadWithResult<T: Sendable>(_ body: @escaping @Sendable () -> T) -> ThreadResult<T> {
        let result = ThreadResult<T>()
        Thread.detachNewThread { result.set(body()) }
        return result
    }
}

/// The result of a thread started by `detachNewThreadWithResult`.
final class ThreadResult<T: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let stored = Mutex<T?>(nil)

    func set(_ value: T) {
        stored.withLock { $0 = value }
        done.signal()
    }

    func value() -> T {
        done.wait()
        return stored.withLock { $0! }
    }
}
