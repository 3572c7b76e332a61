import AppStore
import Foundation
import SubscriptionsFixtures

@testable import Subscriptions

/// A minimal shell for tests: runs the ledger, keeps the outbox and the pending timers.
///
/// Effects are executed as the real shell must: events appended in order, timers stored by id
/// (a new one replaces the old). `advance(to:)` plays the scheduler: it fires every due timer.
struct Harness {
    var ledger: Ledger
    var nowMs: Int64
    var timers: [String: ExpirationTimer] = [:]
    var outbox: [Event] = []
    /// The owners links were refused for (`restoreBehavior`), in order.
    var refusedLinks: [String] = []

    init(ledger: Ledger = Ledger(), nowMs: Int64 = Apple.t0, owner: String? = "user") {
        self.ledger = ledger
        self.nowMs = nowMs
        if let owner { _ = apply(.linked(.subscription(originalTransactionId: Apple.original), appUserId: owner)) }
    }

    /// Applies an input at the current time (moved forward to `atMs` if later) and returns its events.
    @discardableResult
    mutating func apply(_ input: Ledger.Input, atMs: Int64? = nil) -> [Event] {
        nowMs = max(nowMs, atMs ?? nowMs)
        var events: [Event] = []
        for effect in ledger.apply(input, at: Date(milliseconds: nowMs)) {
            switch effect {
            case .emit(let event): events.append(event)
            case .schedule(let timer): timers[timer.id] = timer
            case .linkRefused(_, let owner): refusedLinks.append(owner)
            }
        }
        outbox += events
        return events
    }

    /// Delivers a notification when Apple signed it (or later, if the clock is already past it).
    @discardableResult
    mutating func send(_ facts: VerifiedNotificationFacts) -> [Event] {
        apply(.notificationReceived(facts), atMs: facts.signedDateMs)
    }

    /// Moves the clock to `atMs` and fires every timer due by then.
    @discardableResult
    mutating func advance(to atMs: Int64) -> [Event] {
        nowMs = max(nowMs, atMs)
        var events: [Event] = []
        while let due = timers.values.filter({ $0.fireAtMs <= nowMs }).min(by: { $0.fireAtMs < $1.fireAtMs }) {
            timers[due.id] = nil
            events += apply(.timerFired(due))
        }
        return events
    }

    var subscription: SubscriptionState { ledger.subscriptions[Apple.original]! }
}

extension Date {
    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension Array where Element == Event {
    /// The event types, in order.
    var types: [EventType] { map(\.type) }
}

/// `transaction` as the app posts it, signed by App Store at `signed`.
func posted(_ transaction: JWSTransactionDecodedPayload, at signed: Int64) -> JWSTransactionDecodedPayload {
    var copy = transaction
    copy.signedDate = signed
    return copy
}
