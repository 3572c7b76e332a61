import Synchronization

/// The memory all connections together may hold in request bodies, shared out as they arrive.
///
/// A request takes its share as its body arrives, piece by piece, whatever its head declared,
/// before the piece is buffered. It gives the
/// share back when its request ends, however it ends (answered, refused, aborted, timed out or
/// its connection closed), so clients that send part of a large body and stop hold at most
/// `limit` bytes between them, whatever their number.
///
/// A part of the budget, `smallShare`, is kept for small bodies (at most `smallBodyBytes`, as
/// Apple's notifications are): a body declared or grown past that size may take only what
/// leaves it free, so clients stalling large bodies cannot keep a notification out. (Many
/// clients stalling small bodies still can fill it, each until the request deadline.)
final class BodyBudget: Sendable {
    /// A body at most this large may use the whole budget.
    static let smallBodyBytes = 64 << 10

    /// The most that may be held at once.
    let limit: Int
    /// What larger bodies leave free: a quarter of the budget, less when a largest body
    /// (`maxBodyBytes`) would not fit in the rest.
    let smallShare: Int
    private let used = Atomic<Int>(0)

    /// - Parameters:
    ///   - limit: at least 0.
    ///   - maxBodyBytes: the largest body a request may have; one that large always fits
    ///     in an empty budget of at least that size.
    init(limit: Int, maxBodyBytes: Int = 0) {
        self.limit = max(limit, 0)
        smallShare = max(0, min(self.limit / 4, self.limit - max(maxBodyBytes, 0)))
    }

    /// Takes `bytes` (at least 0) for a body that will then hold `bodySize` bytes, if they fit
    /// beside what is held (leaving `smallShare` free when `bodySize` is past
    /// `smallBodyBytes`); false, taking nothing, when they do not.
    func reserve(_ bytes: Int, bodySize: Int = 0) -> Bool {
        guard bytes > 0 else { return bytes == 0 }
        let ceiling = bodySize > Self.smallBodyBytes ? limit - smallShare : limit
        var current = used.load(ordering: .relaxed)
        while true {
            // `current` never exceeds `limit`; the ceiling is at least 0.
            guard current <= ceiling, bytes <= ceiling - current else { return false }
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
