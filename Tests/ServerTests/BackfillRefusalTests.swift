import Foundation
import Testing

@testable import Server
@testable import Tools

/// What a backfill says of notifications it could not take as new ones.
@Suite("Backfill: refused and held notifications")
struct BackfillRefusalTests {
    /// Apple signed every notification it lists: one that does not verify means the app's
    /// configuration is wrong, and a scheduled run must not exit 0 over it.
    @Test func aNotificationThatDoesNotVerifyFailsTheRun() throws {
        let world = try AppleAPIWorld()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        service.shutdown()
        let notifications = try world.subscription(
            original: "1000000007", user: BackfillTests.user, renewals: 1, boughtDaysAgo: 2)
        for (index, signed) in notifications.enumerated() {
            // The first one's signature broken: a character inside it changed (the last may
            // carry padding bits, which would make it no base64url at all).
            var characters = Array(signed)
            let inside = characters.count - 10
            characters[inside] = characters[inside] == "A" ? "B" : "A"
            let sent = index == 0 ? String(characters) : signed
            try world.store.addNotification(sent, bundleId: "com.example.app", delivered: false)
        }
        let run = try runCLI(["backfill", "--config", world.configPath, "--app", "demo", "--environment", "Sandbox"])
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("2 notifications: 1 new, 0 already stored, 1 refused by verification"), "\(run.output)")
        #expect(run.output.contains("1 of Apple's notifications did not verify; check the app's rootCertificates"))
    }

    @Test func heldOnesAreSaidApartFromTheNew() {
        let counts = Backfill.Counts(pages: 1, listed: 5, new: 4, held: 3, alreadyStored: 1, refused: 0)
        #expect(counts.summary == "5 notifications: 4 new (3 held: see notifications list --held), 1 already stored")
        #expect(Backfill.Counts(pages: 1, listed: 1, new: 1).summary == "1 notification: 1 new, 0 already stored")
    }
}
