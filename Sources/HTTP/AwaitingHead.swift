import Synchronization

/// Request contexts made from a request line (`microHTTPDRequestTarget`) that the access
/// handler has not seen yet, by connection.
///
/// libmicrohttpd calls its completion callback, which releases a context, for a request it
/// closes the usual way; one it gives up on before its head is handed over (a query of more
/// arguments than its buffer holds) may be marked closed without that call, and its context
/// would stay retained and counted in `openRequests` for good: a stranger's request line would
/// leak memory and make every stop wait out its drain. So a context stays here until the
/// access handler takes it (completion is then owed) or the completion takes it; whatever is
/// still here when its connection closes is settled then.
final class AwaitingHead: Sendable {
    /// Context pointers by connection, both as addresses (pointers are not `Sendable`).
    private let contexts = Mutex<[UInt: UInt]>([:])

    /// A context made for `connection`'s next request, retained, waiting for the access handler.
    func begun(_ context: UnsafeMutableRawPointer, on connection: OpaquePointer) {
        let address = UInt(bitPattern: context)
        contexts.withLock { $0[UInt(bitPattern: connection)] = address }
    }

    /// The access handler or the completion took `connection`'s context: nothing to settle.
    func taken(on connection: OpaquePointer) {
        _ = contexts.withLock { $0.removeValue(forKey: UInt(bitPattern: connection)) }
    }

    /// The context `connection` still held when it closed, no longer awaited by anyone.
    func abandoned(on connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        let address = contexts.withLock { $0.removeValue(forKey: UInt(bitPattern: connection)) }
        return address.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
    }
}
