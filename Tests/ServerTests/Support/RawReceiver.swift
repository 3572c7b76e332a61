import Foundation
import Glibc
import Synchronization

/// A TCP listener on a loopback port that answers each webhook request with whatever bytes its
/// script writes: a stand-in for the receivers no HTTP server library would be (absurd numbers,
/// trickled or endless answers, redirects). It records every connection and request it takes.
///
/// Each connection gets one request: its head and `Content-Length` body are read, then the
/// script runs, then the connection is closed.
final class RawReceiver: Sendable {
    /// One connection, for the script to answer on.
    struct Peer: Sendable {
        fileprivate let descriptor: Int32
        fileprivate let receiver: RawReceiver

        /// Writes all of `bytes`; false once the sender has gone (closed or reset the connection).
        @discardableResult
        func write(_ bytes: Data) -> Bool {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return false }
                    offset += written
                    receiver.state.withLock { $0.written += written }
                }
                return true
            }
        }

        @discardableResult
        func write(_ text: String) -> Bool { write(Data(text.utf8)) }

        /// Waits until the sender closes the connection or `seconds` pass; true when it closed.
        func waitForClose(seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            var byte: UInt8 = 0
            while Date() < deadline {
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 50) > 0 else { continue }
                if recv(descriptor, &byte, 1, 0) <= 0 { return true }
            }
            return false
        }
    }

    fileprivate struct State {
        var connections = 0
        var requests: [String] = []
        var written = 0
        var finishedScripts = 0
        var open: Set<Int32> = []
        var stopped = false
    }

    private let listener: Int32
    fileprivate let state = Mutex(State())
    let port: UInt16
    var url: String { "http://127.0.0.1:\(port)/hooks" }

    /// Connections accepted so far.
    var connections: Int { state.withLock { $0.connections } }
    /// The head of each request received (request line and headers).
    var requests: [String] { state.withLock { $0.requests } }
    /// Bytes the scripts have written so far, all connections together.
    var written: Int { state.withLock { $0.written } }
    /// Scripts that have returned.
    var finishedScripts: Int { state.withLock { $0.finishedScripts } }

    /// Listens on an ephemeral loopback port; `script` answers each request.
    init(script: @escaping @Sendable (Peer) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard listener >= 0, bound else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop(script) }.start()
    }

    /// Stops listening and cuts every open connection, ending scripts blocked on them.
    func stop() {
        // Under the lock: a connection's thread leaves `open` under it before closing the
        // descriptor, which could otherwise be reused by the time it is shut down here.
        state.withLock { state in
            state.stopped = true
            for descriptor in state.open { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
        _ = shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit {
        close(listener)
    }

    /// Waits until `condition` holds or `seconds` pass; returns whether it held.
    @discardableResult
    func wait(seconds: Double = 10, until condition: (RawReceiver) -> Bool) -> Bool {
        poll(seconds: seconds) { condition(self) }
    }

    // MARK: - Connections

    private func acceptLoop(_ script: @escaping @Sendable (Peer) -> Void) {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)  // not inherited by child servers tests start
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections += 1
                state.open.insert(descriptor)
                return true
            }
            guard admitted else {
                close(descriptor)
                return
            }
            // A sender that stops reading must not hold a script's write for ever.
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            Thread { [self] in
                if let head = readRequest(descriptor) {
                    state.withLock { $0.requests.append(head) }
                    script(Peer(descriptor: descriptor, receiver: self))
                }
                state.withLock { state in
                    state.open.remove(descriptor)
                    state.finishedScripts += 1
                }
                close(descriptor)
            }.start()
        }
    }

    /// Reads one request (head and `Content-Length` body); its head, or nil if the connection
    /// closed first.
    private func readRequest(_ descriptor: Int32) -> String? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var bodyLength = 0
        while headEnd.map({ received.count < $0 + bodyLength }) ?? true {
            let read = recv(descriptor, &chunk, chunk.count, 0)
            guard read > 0 else { return nil }
            received += chunk[..<read]
            if headEnd == nil, let range = received.firstRange(of: separator) {
                headEnd = range.upperBound
                let head = String(decoding: received[..<range.lowerBound], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    bodyLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        return headEnd.map { String(decoding: received[..<($0 - 4)], as: UTF8.self) }
    }
}
