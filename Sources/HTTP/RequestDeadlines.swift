import Dispatch
import Foundation
import Synchronization
import Threads

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cuts off a connection that takes too long to send a request's headers, a whole request, or
/// to take its answer.
///
/// libmicrohttpd's connection timeout only counts silence, so a client that sends a byte now
/// and then keeps its connection, and enough of them fill the connection limit; so does one that
/// reads its answer a few bytes at a time. Here every connection owes a request's complete
/// headers within `headerLimit`, and the complete request (headers and body) within
/// `requestLimit`, both counted from its opening or its previous answer; and once an answer is
/// queued, the connection owes taking all of it within `requestLimit` too, less the time its
/// earlier slow answers took (pipelined answers read slowly add up). One that is late has
/// its socket shut down; libmicrohttpd then reads the end of the stream and closes the connection
/// as if the client had left. A connection whose request is in and not yet answered (being
/// handled, or suspended for a commit) owes nothing: the handler has a deadline of its own.
///
/// The socket is only shut down, never closed, and only while libmicrohttpd has not reported
/// the connection closed: it reports that before it closes the socket, and the report and the
/// shutdown take the same lock, so a descriptor number taken over by a newer connection is
/// never touched.
final class RequestDeadlines: Sendable {
    /// What one connection owes.
    struct Entry {
        /// Where the connection is in its current exchange.
        enum Phase: Equatable {
            /// It owes a request since `since`; `headersIn` once only the body is owed.
            case owingRequest(since: ContinuousClock.Instant, headersIn: Bool)
            /// Its request is in and being handled: nothing is owed.
            case handling
            /// Its answer was queued at `since`: it owes taking all of it.
            case owingAnswerTaken(since: ContinuousClock.Instant)
            /// Cut off already: nothing more is owed.
            case cut
        }

        /// An answer taken in longer than this counts toward `slowTaking`: a client that reads
        /// what it asked for takes it in milliseconds.
        static let slowAnswer = Duration.seconds(1)

        let descriptor: Int32
        var phase: Phase
        /// How long the connection's slow answers (`slowAnswer`) since its last quick one took to
        /// be taken, in all. A reader that takes pipelined answers a few bytes at a time finishes
        /// each within the limit, but not all of them: the total counts against the limit of the
        /// next one. An answer taken quickly starts the count again: a connection kept open for
        /// hours (a TLS terminator's) with a slow answer now and then is no trickle.
        var slowTaking = Duration.zero

        /// The request is done at `now`: its answer's time is counted if slow (else the count
        /// starts again), and the next request, headers first, is owed from now.
        mutating func answered(at now: ContinuousClock.Instant) {
            if case .owingAnswerTaken(let since) = phase {
                if now - since > Self.slowAnswer { slowTaking += now - since } else { slowTaking = .zero }
            }
            if phase != .cut { phase = .owingRequest(since: now, headersIn: false) }
        }

        /// Whether the connection owes more than the limits allow at `now` (a nil limit is off).
        func isLate(at now: ContinuousClock.Instant, headerLimit: Duration?, requestLimit: Duration?) -> Bool {
            switch phase {
            case .owingRequest(let since, let headersIn):
                let owed = now - since
                if let requestLimit, owed > requestLimit { return true }
                if let headerLimit, !headersIn, owed > headerLimit { return true }
                return false
            case .owingAnswerTaken(let since):
                guard let requestLimit else { return false }
                return now - since + slowTaking > requestLimit
            case .handling, .cut:
                return false
            }
        }
    }

    private let headerLimit: Duration?
    private let requestLimit: Duration?
    private let entries = Mutex<[UInt: Entry]>([:])
    private let onCut: @Sendable () -> Void
    private let running = Atomic<Bool>(false)
    private let stopping = MonotonicSemaphore()

    /// Nil when both limits are nil (off): nothing would ever be late.
    ///
    /// - Parameter onCut: called once for every connection cut off (for metrics).
    init?(headerLimit: Duration?, requestLimit: Duration?, onCut: @escaping @Sendable () -> Void = {}) {
        guard headerLimit != nil || requestLimit != nil else { return nil }
        self.headerLimit = headerLimit
        self.requestLimit = requestLimit
        self.onCut = onCut
    }

    /// Checks the connections every quarter of the shorter limit (at most every second), on a
    /// thread of its own, until `stop()`; `alsoCheck` runs at each check too (the deferred
    /// handlers' deadline).
    func start(alsoCheck: (@Sendable (ContinuousClock.Instant) -> Void)? = nil) {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let shorter = [headerLimit, requestLimit].compactMap { $0 }.min() ?? .seconds(1)
        let period = min(shorter / 4, .seconds(1))
        // Weak: a server dropped without `stop()` lets go of this, and the thread ends at its next check.
        let stopping = stopping
        NamedThread.start("http-deadlines") { [weak self] in
            while stopping.wait(timeout: .after(period)) == .timedOut {
                guard let self else { return }
                _ = self.cutLate(at: .now)
                alsoCheck?(.now)
            }
        }
    }

    func stop() {
        if running.exchange(false, ordering: .acquiringAndReleasing) { stopping.signal() }
    }

    deinit {
        stop()
    }

    // MARK: - What libmicrohttpd reports

    /// A connection was accepted: it owes its first request from now.
    func opened(_ connection: OpaquePointer, descriptor: Int32) {
        guard descriptor >= 0 else { return }
        entries.withLock {
            $0[Self.key(connection)] = Entry(descriptor: descriptor, phase: .owingRequest(since: .now, headersIn: false))
        }
    }

    /// The connection's request headers are in: only the rest of the request is owed.
    func headersReceived(_ connection: OpaquePointer) {
        update(connection) { phase in
            if case .owingRequest(let since, _) = phase { phase = .owingRequest(since: since, headersIn: true) }
        }
    }

    /// The connection's request is in: nothing is owed while it is handled. (An answer queued
    /// before the body was read, a refusal, stays owed: the body is read and dropped after it.)
    func received(_ connection: OpaquePointer) {
        update(connection) { phase in
            if case .owingRequest = phase { phase = .handling }
        }
    }

    /// The connection's answer is queued: taking all of it is owed from now.
    func answerQueued(_ connection: OpaquePointer) {
        update(connection) { phase in
            if phase != .cut { phase = .owingAnswerTaken(since: .now) }
        }
    }

    /// The connection's request is done: on a kept-alive connection the next one, headers first,
    /// is owed from now.
    func answered(_ connection: OpaquePointer) {
        entries.withLock { entries in
            entries[Self.key(connection)]?.answered(at: .now)
        }
    }

    /// Whether the connection was cut off for being late: libmicrohttpd then sees the end of the
    /// stream and ends its request as if the client had left. Known until it reports the
    /// connection closed, which comes after it reports the request done.
    func wasCut(_ connection: OpaquePointer) -> Bool {
        entries.withLock { $0[Self.key(connection)]?.phase == .cut }
    }

    /// libmicrohttpd closed the connection (it closes the socket after this).
    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    // MARK: - Cutting

    /// Shuts down the socket of every connection that owes its headers, its request or the
    /// taking of its answer for longer than their limit at `now`; returns how many. Each is cut
    /// once: it owes nothing more after that.
    func cutLate(at now: ContinuousClock.Instant) -> Int {
        let cut = entries.withLock { entries -> Int in
            let late = entries.filter { _, entry in
                entry.isLate(at: now, headerLimit: headerLimit, requestLimit: requestLimit)
            }
            for (key, entry) in late {
                _ = shutdown(entry.descriptor, Int32(SHUT_RDWR))
                entries[key]?.phase = .cut
            }
            return late.count
        }
        for _ in 0..<cut { onCut() }
        return cut
    }

    private func update(_ connection: OpaquePointer, _ change: (inout Entry.Phase) -> Void) {
        entries.withLock { entries in
            guard var entry = entries[Self.key(connection)] else { return }
            change(&entry.phase)
            entries[Self.key(connection)] = entry
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }
}
