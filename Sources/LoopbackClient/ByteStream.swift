import Dispatch

/// A connected byte stream a `ResponseReader` reads from and a `LoopbackConnection` writes to:
/// plain TCP (`LoopbackSocket`) or TLS over it (`TLSStream`).
///
/// One owner at a time; not `Sendable`.
protocol ByteStream: AnyObject {
    /// When the exchange in progress must be over: while set, sends and receives never block
    /// past it and fail with `.timedOut` once it has passed. nil: each send and receive waits at
    /// most the connection's timeout.
    var deadline: DispatchTime? { get set }

    /// Writes all of `bytes`. Never raises SIGPIPE.
    func sendAll(_ bytes: UnsafeRawBufferPointer) throws(LoopbackClientError)

    /// Reads at most `count` bytes into `buffer`; 0 means the peer closed the stream.
    func receive(into buffer: UnsafeMutableRawPointer, count: Int) throws(LoopbackClientError) -> Int

    /// Whether the peer has closed its side (or reset), checked without blocking.
    var peerClosed: Bool { get }

    /// Whether `disconnect()` has been called (or a failure closed the stream).
    var isClosed: Bool { get }

    /// The underlying socket's descriptor, for `poll`; -1 once closed.
    var fileDescriptor: Int32 { get }

    /// Closes the stream and its socket; later sends and receives fail with `.notOpen`.
    func disconnect()
}
