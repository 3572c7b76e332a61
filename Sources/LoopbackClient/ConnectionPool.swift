import Dispatch
import Foundation
import Synchronization

/// Keep-alive connections to one host, taken in turn by the threads that send: a request goes
/// over an idle connection, or a new one; a reused one the server had closed meanwhile (a
/// keep-alive race, no answer at all) is replaced once. At most `maxIdle` connections are kept.
public final class ConnectionPool: Sendable {
    /// Why a request got no answer: connecting (resolving, connecting, the TLS handshake) or
    /// the exchange itself failed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var whileConnecting: Bool
        public var error: LoopbackClientError

        /// The deadline passed.
        public var isTimeout: Bool { error.code == .timedOut }
        public var description: String { "\(error)" }
    }

    public let host: String
    public let port: UInt16
    private let tls: TLSClientContext?
    private let maxIdle: Int
    private let idle = Mutex<[Pooled]>([])

    public init(host: String, port: UInt16, tls: TLSClientContext?, maxIdle: Int = .max) {
        self.host = host
        self.port = port
        self.tls = tls
        self.maxIdle = maxIdle
    }

    /// Sends one request and reads its answer, all by `deadline`; a new connection's silences
    /// are bounded by `timeoutSeconds` too.
    public func request(
        _ method: String, _ path: String, headers: [String: String], body: Data, limits: ExchangeLimits,
        timeoutSeconds: Double, deadline: DispatchTime
    ) throws(Failure) -> LoopbackResponse {
        var reused = idle.withLock { $0.popLast() }
        while true {
            let wasReused = reused != nil
            let connection: Pooled
            if let pooled = reused {
                connection = pooled
            } else {
                let now = DispatchTime.now()
                guard now < deadline else {
                    throw Failure(
                        whileConnecting: true,
                        error: LoopbackClientError(code: .timedOut, message: "the deadline passed before connecting"))
                }
                let left = min(timeoutSeconds, Double(deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9)
                do {
                    connection = Pooled(
                        try LoopbackConnection(host: host, port: port, timeoutSeconds: left, tls: tls, deadline: deadline))
                } catch let error as LoopbackClientError {
                    throw Failure(whileConnecting: true, error: error)
                } catch {
                    throw Failure(whileConnecting: true, error: LoopbackClientError(code: .connectFailed, message: "\(error)"))
                }
            }
            reused = nil
            do {
                let response = try connection.connection.request(method, path, headers: headers, body: body, limits: limits)
                if connection.connection.isOpen {
                    idle.withLock { if $0.count < maxIdle { $0.append(connection) } }
                }
                return response
            } catch let error as LoopbackClientError
                where wasReused && [.sendFailed, .closedBeforeResponse].contains(error.code)
            {
                continue
            } catch let error as LoopbackClientError {
                throw Failure(whileConnecting: false, error: error)
            } catch {
                throw Failure(whileConnecting: false, error: LoopbackClientError(code: .receiveFailed, message: "\(error)"))
            }
        }
    }
}

/// A keep-alive connection that moves between threads, used by one at a time.
private final class Pooled: @unchecked Sendable {
    let connection: LoopbackConnection
    init(_ connection: LoopbackConnection) { self.connection = connection }
}
