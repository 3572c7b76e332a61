import Foundation

/// A request's body as libmicrohttpd hands it over, piece by piece: the bytes kept, the share
/// of the server's `BodyBudget` it holds, and, once it is refused, why.
///
/// The bytes grow only as they arrive, never from what the client declared. A refused body is
/// dropped as it arrives, so it costs no memory, and answered once it is all in:
/// libmicrohttpd takes no answer while a body is arriving.
struct RequestBody {
    /// Why the body is dropped.
    enum Refusal: Equatable {
        /// It grew past the body limit: 413.
        case tooLarge
        /// The budget had no room for it: 503, to be sent again.
        case overBudget
    }

    /// What became of a piece of body.
    enum Outcome: Equatable {
        case kept
        /// Dropped: the body is refused, and answered once it ends.
        case dropped
        /// Dropped, and the body has gone on past the limit by another limit's worth (64 KiB at
        /// least): the connection should be closed instead of reading more.
        case cutOff
    }

    /// The bytes kept so far; empty once refused or taken.
    private(set) var bytes = Data()
    /// Bytes received so far, kept or not.
    private(set) var received = 0
    /// The share of the budget held, until `release(to:)`.
    private(set) var reserved = 0
    /// Set once the body is refused; `tooLarge` is never replaced.
    private(set) var refusal: Refusal?
    /// What the head's Content-Length declared, when it did: a body declared past
    /// `BodyBudget.smallBodyBytes` is large from its first byte, so it never takes from the
    /// part of the budget small bodies keep. It reserves nothing by itself.
    var declaredBytes: Int?

    /// Takes in a piece: kept while the body is within `limit` bytes and `budget` has room for
    /// it (a body takes its share as it grows, whatever its head declared; once it is, or is
    /// declared to be, past `BodyBudget.smallBodyBytes`, from the part small bodies do not keep).
    mutating func append(_ piece: UnsafeRawBufferPointer, limit: Int, budget: BodyBudget) -> Outcome {
        received += piece.count
        if received > limit {
            refuse(.tooLarge, budget: budget)
        } else if refusal == nil, received > reserved {
            if budget.reserve(received - reserved, bodySize: max(received, declaredBytes ?? 0)) {
                reserved = received
            } else {
                refuse(.overBudget, budget: budget)
            }
        }
        guard refusal == nil else {
            return received - limit > max(limit, 1 << 16) ? .cutOff : .dropped
        }
        if let start = piece.baseAddress {
            bytes.append(start.assumingMemoryBound(to: UInt8.self), count: piece.count)
        }
        return .kept
    }

    /// Hands the bytes over (to the handler); the share stays held until `release(to:)`.
    mutating func take() -> Data {
        defer { bytes = Data() }
        return bytes
    }

    /// Gives the share back to `budget`; for when the request has ended.
    mutating func release(to budget: BodyBudget) {
        budget.release(reserved)
        reserved = 0
    }

    private mutating func refuse(_ reason: Refusal, budget: BodyBudget) {
        if refusal != .tooLarge { refusal = reason }
        bytes = Data()
        release(to: budget)
    }
}
