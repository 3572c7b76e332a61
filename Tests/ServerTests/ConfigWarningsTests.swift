import Foundation
import Testing

@testable import Server

/// Settings `serve` runs with that no production deployment wants: said by `check-config` and
/// at start, never refused.
@Suite("Configuration warnings")
struct ConfigWarningsTests {
    let directory = TestDirectory("config-warnings")

    func warnings(apps: String, appleApi: String = "{}", http: String = "{}") throws -> [String] {
        let path = try directory.write(
            "revenuedot.json",
            #"{"listen": "127.0.0.1:0", "database": "sqlite:r.sqlite", "appleApi": \#(appleApi), "http": \#(http), "#
                + #""apps": [\#(apps)]}"#)
        return ConfigWarnings.of(try ConfigLoader.load(path: path))
    }

    static func app(_ id: String, bundle: String = "com.example.app", environments: String = #"["Sandbox"]"#, key: String? = nil)
        -> String
    {
        #"{"id": "\#(id)", "bundleId": "\#(bundle)", "appAppleId": 1234, "environments": \#(environments)"#
            + (key.map { #", "secretApiKey": "\#($0)""# } ?? "") + "}"
    }

    @Test func aSoundConfigurationWarnsOfNothing() throws {
        let apps = [
            Self.app("a", key: "sk_0123456789abcdef0123456789abcdef"),
            Self.app("b", environments: #"["Production"]"#),
            Self.app("c", bundle: "com.example.other"),
        ]
        #expect(try warnings(apps: apps.joined(separator: ", ")) == [])
    }

    @Test(arguments: [
        (app("a", key: "short"), #"app "a": secretApiKey is 5 characters"#),
        (app("a", key: "sk_..."), #"app "a": secretApiKey is a placeholder"#),
        (
            app("a") + ", " + app("b", environments: #"["Sandbox", "Production"]"#),
            #"apps "a" and "b" both accept com.example.app in Sandbox"#
        ),
        (
            #"{"id": "a", "bundleId": "b", "environments": ["Sandbox"], "secretApiKey": "sk_0123456789abcdef0123456789abcdef", "#
                + #""webhook": {"url": "http://127.0.0.1:9/h", "environments": ["PRODUCTION"]}}"#,
            #"app "a": webhook takes PRODUCTION events only, and the app accepts Sandbox notifications only: it is sent none of their events"#
        ),
    ])
    func appsThatInviteTroubleAreNamed(apps: String, warning: String) throws {
        let said = try warnings(apps: apps)
        #expect(said.count == 1 && said[0].hasPrefix(warning), "\(said)")
    }

    @Test func appleAPISettingsThatLoseWorkAreNamed() throws {
        let margin = try warnings(apps: Self.app("a"), appleApi: #"{"backfillMarginMinutes": 0}"#)
        #expect(margin.count == 1 && margin[0].hasPrefix("appleApi.backfillMarginMinutes is 0"), "\(margin)")
        let consent = try warnings(apps: Self.app("a"), appleApi: #"{"consumption": {"enabled": true}}"#)
        #expect(consent.count == 1 && consent[0].hasPrefix("appleApi.consumption is enabled without customerConsented"))
        #expect(
            try warnings(apps: Self.app("a"), appleApi: #"{"consumption": {"enabled": true, "customerConsented": true}}"#)
                == [])
        // A prorated refund Apple refuses for every one-time purchase.
        for consumption in [
            #"{"enabled": true, "customerConsented": true, "refundPreference": "GRANT_PRORATED"}"#,
            #"{"enabled": true, "customerConsented": true, "refundPreference": "GRANT_PRORATED", "oneTimeConsumptionPercentage": 5000, "deliveryStatus": "UNDELIVERED_OTHER"}"#,
        ] {
            let prorated = try warnings(apps: Self.app("a"), appleApi: #"{"consumption": \#(consumption)}"#)
            #expect(prorated.count == 1 && prorated[0].contains("GRANT_PRORATED without a oneTimeConsumptionPercentage"))
        }
        #expect(
            try warnings(
                apps: Self.app("a"),
                appleApi:
                    #"{"consumption": {"enabled": true, "customerConsented": true, "refundPreference": "GRANT_PRORATED", "oneTimeConsumptionPercentage": 5000}}"#
            ) == [])
    }

    /// A body limit that may refuse Apple's notifications (about 14 KB) is named; 64 KiB is not.
    @Test func aBodyLimitBelowAppleNotificationsIsNamed() throws {
        let small = try warnings(apps: Self.app("a"), http: #"{"maxBodyBytes": 4096}"#)
        #expect(small.count == 1 && small[0].hasPrefix("http.maxBodyBytes is 4096: App Store notifications"), "\(small)")
        #expect(try warnings(apps: Self.app("a"), http: #"{"maxBodyBytes": 65536}"#) == [])
    }
}
