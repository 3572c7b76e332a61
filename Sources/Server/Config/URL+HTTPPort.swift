import Foundation

extension URL {
    /// The port of an http URL, given or 80 when none is, if TCP can use it (1-65535); nil for
    /// one past 65535, which `UInt16(_:)` would trap on.
    package var httpPort: UInt16? {
        guard let port = UInt16(exactly: port ?? 80), port > 0 else { return nil }
        return port
    }
}
