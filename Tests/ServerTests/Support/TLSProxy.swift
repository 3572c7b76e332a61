import Foundation
import Glibc

/// A TLS server on a loopback port (python3's `ssl` module) in front of a plain-http receiver:
/// it runs the handshake with a `TestCertificates` server certificate and relays the decrypted
/// bytes both ways, so that every `RawReceiver` script and `WebhookReceiver` works over https.
///
/// It reports each connection on a line of its own (`events`): "handshake done", or
/// "handshake failed: <python's reason>" when the client gave up during the handshake.
/// `@unchecked Sendable`: `Process` is not, and the test that starts the proxy alone stops it.
final class TLSProxy: @unchecked Sendable {
    /// What the server does with each connection.
    enum Mode: String, Sendable {
        /// The handshake, then relaying to the upstream port.
        case relay
        /// Reads the ClientHello, sends the first half of its answer (ServerHello, certificate,
        /// ...), then nothing more until the client leaves: a handshake stalled half-way.
        case stall
    }

    static let script = """
        import select, socket, ssl, sys, threading
        certificate, key, upstream, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print(listener.getsockname()[1], flush=True)

        def stall(raw):
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            tls = context.wrap_bio(incoming, outgoing, server_side=True)
            incoming.write(raw.recv(65536))
            try:
                tls.do_handshake()
            except ssl.SSLWantReadError:
                pass
            flight = outgoing.read()
            raw.sendall(flight[:len(flight) // 2])
            print("stalled after %d of %d bytes" % (len(flight) // 2, len(flight)), flush=True)
            raw.recv(1)
            raw.close()

        def relay(raw):
            try:
                tls = context.wrap_socket(raw, server_side=True)
            except (ssl.SSLError, OSError) as error:
                print("handshake failed: %s" % error, flush=True)
                raw.close()
                return
            print("handshake done", flush=True)
            up = socket.create_connection(("127.0.0.1", upstream))
            try:
                while True:
                    ready = [tls] if tls.pending() else select.select([tls, up], [], [])[0]
                    if tls in ready:
                        data = tls.recv(65536)
                        if not data:
                            break
                        up.sendall(data)
                    if up in ready:
                        data = up.recv(65536)
                        if not data:
                            break
                        tls.sendall(data)
            except (ssl.SSLError, OSError):
                pass
            finally:
                up.close()
                tls.close()

        while True:
            connection, _ = listener.accept()
            threading.Thread(target=stall if mode == "stall" else relay, args=(connection,), daemon=True).start()
        """

    private let process: Process
    private let output = CollectedOutput()
    let port: UInt16

    /// The https URL of the webhook path, by host name (checked against the certificate, sent as SNI).
    var url: String { "https://localhost:\(port)/hooks" }

    /// Events reported so far, one per connection.
    var events: [String] {
        output.text.withLock { $0 }.split(separator: "\n").dropFirst().map(String.init)
    }

    /// Starts serving `server`'s certificate in front of `upstreamPort` on 127.0.0.1.
    init(upstreamPort: UInt16 = 0, server: TestCertificates.Server? = nil, mode: Mode = .relay) throws {
        let server = try server ?? TestCertificates.shared().localhost
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script, server.certificate, server.key, String(upstreamPort), mode.rawValue]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        self.process = process
        PipeDrain.start(pipe.fileHandleForReading, into: output)
        let output = output
        var found: UInt16?
        poll(seconds: 10) {
            found = output.text.withLock { text in text.firstIndex(of: "\n").flatMap { UInt16(text[..<$0]) } }
            return found != nil
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TLSProxyError(output: output.text.withLock { $0 })
        }
        port = found
    }

    /// Waits until `count` events have been reported (or 10 s); the events.
    func events(count: Int) -> [String] {
        poll(seconds: 10) { events.count >= count }
        return events
    }

    /// Kills the server. SIGKILL, not `terminate()`: a child started by the test process inherits
    /// the signal mask of the thread that started it, on which SIGTERM may be blocked.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

struct TLSProxyError: Error, CustomStringConvertible {
    var output: String
    var description: String { "the python3 TLS server did not start: \(output)" }
}
