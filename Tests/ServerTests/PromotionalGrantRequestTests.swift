import Foundation
import Testing

@testable import Server

/// What a body of `POST .../entitlements/{entitlement}/promotional` grants, or its one-line
/// refusal: each mistake is refused, none quietly ignored.
@Suite("Promotional grant requests")
struct PromotionalGrantRequestTests {
    static let now: Int64 = 1_800_000_000_000
    static let day: Int64 = 86_400_000

    /// The grant's start and end, or the refusal's message.
    static func outcome(_ body: String) -> String {
        switch SubscribersAPI.grant(of: "pro", in: Data(body.utf8), nowMs: now) {
        case .success(let grant): "\(grant.startMs - now) \(grant.endMs - now) \(grant.productId)"
        case .failure(let refusal): refusal.message
        }
    }

    @Test(arguments: [
        (#"{"duration": "weekly"}"#, "0 \(7 * day) rc_promo_pro_weekly"),
        (#"{"duration": "daily", "start_time_ms": \#(now - day / 2)}"#, "\(-day / 2) \(day / 2) rc_promo_pro_daily"),
        (#"{"end_time_ms": \#(now + 1000)}"#, "0 1000 rc_promo_pro_custom"),
        // RevenueCat: a start ahead grants at once; the duration runs from that start.
        (#"{"duration": "daily", "start_time_ms": \#(now + 60_000)}"#, "0 \(day + 60_000) rc_promo_pro_daily"),
        (#"{"duration": "monthly", "start_time_ms": \#(now + 10 * day)}"#, "0 \(41 * day) rc_promo_pro_monthly"),
        (#"{"duration": "lifetime"}"#, "0 \(200 * 365 * day) rc_promo_pro_lifetime"),
        (
            #"{"duration": "lifetime", "start_time_ms": \#(now + 30 * day)}"#,
            "0 \(200 * 365 * day + 30 * day) rc_promo_pro_lifetime"
        ),
    ])
    func grants(body: String, expected: String) {
        #expect(Self.outcome(body) == expected)
    }

    @Test(arguments: [
        (#"{"duration": "daily", "start_time_ms": \#(now + 201 * 365 * day)}"#, "start_time_ms is later than a lifetime"),
        (#"{"duration": "bogus", "end_time_ms": \#(now + day)}"#, "unknown duration \"bogus\""),
        (#"{"duration": 7}"#, "the body must be"),
        (#"{"duration": "daily", "end_time_ms": \#(now + day)}"#, "give duration or end_time_ms, not both"),
        (#"{"start_time_ms": \#(now - day), "end_time_ms": \#(now - 2 * day)}"#, "the grant would end in the past"),
        (#"{"end_time_ms": \#(now - 1)}"#, "the grant would end in the past"),
        (#"{"end_time_ms": 99999999999999}"#, "the grant would end later than a lifetime grant from now"),
        (#"{"end_time_ms": -5}"#, "start_time_ms and end_time_ms must be UNIX milliseconds"),
        ("{}", "the body must be"),
        ("[]", "the body must be"),
        (#"{"duration": "weekly", "start_time": \#(now + day)}"#, #"unknown member "start_time""#),
        (#"{"duration": "daily", "extra": true}"#, #"unknown member "extra""#),
    ])
    func refuses(body: String, message: String) {
        #expect(Self.outcome(body).hasPrefix(message), "\(Self.outcome(body))")
    }
}
