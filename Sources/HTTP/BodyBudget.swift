import Synchronization

/// The memory all connections together may hold in request bodies, shared out as they arrive.
///
/// A request takes its share as its body arrives, piece by piece, whatever its head declared,
/// before the piece is buffered. It gives the
/// share back when its request ends, however it ends (answered, refused, aborted, timed out or
/// its connection closed), so clients that send part of a large body and stop hold at most
/// `limit` bytes between them, whatever their number.
final class BodyBudget: Sendable {
    /// The most that may be held at once.
    let limit: Int
    private let used = Atomic<Int>(0)

    /// - Parameter limit: at least 0.
    init(limit: Int) {
        self.limit = max(limit, 0)
    }

    /// Takes `bytes` (at least 0) if they fit beside what is held; false, taking nothing, when
    /// they do not.
    func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return bytes == 0 }
        var current = used.load(ordering: .relaxed)
        while true {
            // `current` never exceeds `limit`, so the subtraction cannot overflow.
            guard bytes <= limit - current else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back `bytes` taken by `reserve`.
    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        used.subtract(bytes, ordering: .relaxed)
    }

    /// The bytes held now.
    var inUse: Int { used.load(ordering: .relaxed) }
}
