import Foundation
import FuzzSupport
import LoopbackClient

#if canImport(Glibc)
    import Glibc
#endif

/// The webhook client's HTTP/1.1 response reader (`LoopbackClient`'s `ResponseReader`), fed the
/// input as a server's answer over a real loopback connection, through the public
/// `LoopbackConnection`: the module needs no seam for it.
///
/// Each input is one connection: the input is written and the server side shut, then responses
/// are read until one fails or closes the connection (so pipelined answers are read too).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzResponseReader.test(UnsafeRawBufferPointer(fuzzInput: data, count: size))
    return 0
}

@main
enum FuzzResponseReader {
    static func main() { FuzzDriver.main(fuzzOneInput) }

    /// At most this many bytes are written: they must fit in the socket buffers, since nothing
    /// reads them until the whole input is written (the fuzz script passes `-max_len` below it).
    static let maximumInput = 256 * 1024

    /// The listening socket and its port, made once.
    static let listener: (descriptor: Int32, port: UInt16) = {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(descriptor >= 0, "socket")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        precondition(bound == 0 && listen(descriptor, 16) == 0, "bind or listen")
        var actual = sockaddr_in()
        var actualLength = length
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        return (descriptor, UInt16(bigEndian: actual.sin_port))
    }()

    /// A connection to the listener, tried again for a while: millions of short connections leave
    /// the loopback ports in TIME_WAIT, and a connect that fails then is no finding (a crash here
    /// showed in long runs as inputs that did not crash again alone). Nil after a second.
    static func connect() -> LoopbackConnection? {
        for _ in 0..<100 {
            if let connection = try? LoopbackConnection(port: listener.port, timeoutSeconds: 5) { return connection }
            usleep(10_000)
        }
        FileHandle.standardError.write(Data("fuzz-response-reader: cannot connect to the listener; input skipped\n".utf8))
        return nil
    }

    static func test(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= maximumInput else { return }
        guard let connection = connect() else { return }
        let server = accept(listener.descriptor, nil, nil)
        precondition(server >= 0, "accept")
        defer { close(server) }
        var sent = 0
        while sent < bytes.count {
            let written = send(server, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            precondition(written > 0, "send")
            sent += written
        }
        shutdown(server, Int32(SHUT_WR))
        for _ in 0..<8 {
            guard (try? connection.readResponse()) != nil else { break }
        }
        connection.close()
    }
}
