import Foundation
import Synchronization

/// Which node this is, among several on one database: in the deliveries it claims and in what
/// `serve` prints.
package enum NodeIdentity {
    private static let made = Atomic<Int>(0)

    /// `name` (the configured `node.id`, else the host name), the process id and four random hex
    /// digits, unique among the nodes running at once even when they share one configuration
    /// file, and when containers share a host name and each runs as process 1; a second service
    /// in the same process (tests) gets `-2` after them, and so on.
    package static func next(name: String? = nil) -> String {
        let random = String(UInt16.random(in: .min ... .max) | 0x1000, radix: 16)
        let base = "\(name ?? ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(random)"
        let count = made.wrappingAdd(1, ordering: .relaxed).newValue
        return count == 1 ? base : "\(base)-\(count)"
    }
}
