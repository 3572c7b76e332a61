import AppStore
import Foundation
import Subscriptions
import Testing

@testable import Storage

/// A refund gives one CANCELLATION, whichever report of it comes first (the REFUND notification,
/// the app posting the refunded transaction, Apple's API answering with it) and whatever the
/// store keeps at hand of the purchase's facts when the next report comes.
@Suite("Storage contract: one refund, one CANCELLATION")
struct RefundReportContractTests {
    typealias S = StoreUnderTest

    enum Report: CaseIterable, Sendable { case posted, appleAnswer }

    static let expires = S.t0 + 30 * S.day
    static let refundedAt = S.t0 + 5 * S.day

    static var refunded: JWSTransactionDecodedPayload {
        var refunded = S.transaction("100", original: "100", purchase: S.t0, expires: expires, customer: S.customer(1))
        refunded.revocationDate = refundedAt
        refunded.revocationReason = .refundedForOtherReason
        refunded.signedDate = refundedAt
        return refunded
    }

    static func refundNotice() throws -> NotificationRecord {
        try S.record(.refund, uuid: "refund-100", at: refundedAt, transaction: refunded)
    }

    /// Another notification after the refund: the REFUND is no longer the newest fact.
    static func laterNotice() throws -> NotificationRecord {
        try S.record(
            .expired, .voluntary, uuid: "expired-100", at: refundedAt + S.day, transaction: refunded,
            renewal: S.renewal(original: "100", autoRenew: false, signed: refundedAt + S.day))
    }

    /// The refunded transaction, as the app posts it or Apple's API answers with it.
    static func report(_ report: Report, atMs: Int64, in under: StoreUnderTest) throws {
        var shown = refunded
        shown.signedDate = atMs
        let input: StoredInput =
            switch report {
            case .posted: .postedTransaction(shown, signed: "jws-\(atMs)", appUserId: S.customer(1), digest: "d\(atMs)")
            case .appleAnswer:
                .appleAnswer(AppleAnswerRows.Answer(signedTransaction: "jws-\(atMs)", transaction: shown), appUserId: nil)
            }
        try under.write { transaction in
            try LedgerInputs.keepAndApply(input, app: S.app, atMs: atMs, in: transaction)
        }
    }

    static func refundCancellations(_ under: StoreUnderTest) throws -> Int {
        try under.events().count { $0.type == "CANCELLATION" && $0.json.contains("CUSTOMER_SUPPORT") }
    }

    @Test(arguments: ContractEngine.allCases, Report.allCases)
    func aReportAfterTheNotificationAndALaterOneGivesNoSecond(_ engine: ContractEngine, _ report: Report) throws {
        for laterNotice in [false, true] {
            let under = try StoreUnderTest(engine)
            try under.subscribe(1, original: "100", expires: Self.expires)
            #expect(try under.store.store(Self.refundNotice()) == .stored)
            if laterNotice { #expect(try under.store.store(Self.laterNotice()) == .stored) }
            try Self.report(report, atMs: Self.refundedAt + 2 * S.day, in: under)
            #expect(try Self.refundCancellations(under) == 1, "later notice: \(laterNotice)")
        }
    }

    @Test(arguments: ContractEngine.allCases, Report.allCases)
    func theNotificationAfterAReportGivesNoSecond(_ engine: ContractEngine, _ report: Report) throws {
        let under = try StoreUnderTest(engine)
        try under.subscribe(1, original: "100", expires: Self.expires)
        try Self.report(report, atMs: Self.refundedAt + S.day / 2, in: under)
        #expect(try Self.refundCancellations(under) == 1)
        #expect(try under.store.store(Self.refundNotice()) == .stored)
        #expect(try under.store.store(Self.laterNotice()) == .stored)
        try Self.report(report, atMs: Self.refundedAt + 2 * S.day, in: under)
        #expect(try Self.refundCancellations(under) == 1)
    }
}
