import Foundation
import Synchronization

/// Which node this is, among several on one database: in the deliveries it claims and in what
/// `serve` prints.
package enum NodeIdentity {
    private static let made = Atomic<Int>(0)

    /// `name` (the configured `node.id`, else the host name) and the process id, unique among
    /// the nodes running at once even when they share one configuration file; a second service
    /// in the same process (tests) gets `-2` after them, and so on.
    package static func next(name: String? = nil) -> String {
        let base = "\(name ?? ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        let count = made.wrappingAdd(1, ordering: .relaxed).newValue
        return count == 1 ? base : "\(base)-\(count)"
    }
}
