import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import LoopbackClient
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Backfill after an outage: every notification Apple could not deliver is recovered once,
/// through the ingest path, with its events in order, whether the server runs or not.
@Suite("Backfill of missed notifications")
struct BackfillTests {
    static let user = "8f0c1a2e-4b3d-4e5f-9a6b-7c8d9e0f1a2b"

    /// The notifications of one subscription: the first two pushed before an outage, the last
    /// two sent while the server was down (Sandbox never retries).
    func outage(_ world: AppleAPIWorld) throws -> [String] {
        let notifications = try world.subscription(original: "1000000001", user: Self.user, renewals: 3, boughtDaysAgo: 3)
        // Before the outage: no backfill, and timers that tick only at start (before the posts),
        // so the lapsed first period is not expired between the two posts.
        var config = try world.config()
        config.appleAPI.backfillIntervalMinutes = 0
        config.scheduler.intervalMs = 3_600_000
        let service = try RevenueDotService(config: config, log: { _ in })
        try service.start()
        #expect(service.waitForSchedulerStart())
        let connection = try LoopbackConnection(port: service.port)
        for signed in notifications.prefix(2) {
            #expect(try connection.postNotification(signed).status == 200)
        }
        service.shutdown()
        for (index, signed) in notifications.enumerated() {
            try world.store.addNotification(signed, bundleId: "com.example.app", delivered: index < 2)
        }
        return notifications
    }

    /// After the outage, another customer's purchase pushed to a server without a backfill and
    /// stored: the newest notification, now.
    func pushAfterTheOutage(_ world: AppleAPIWorld) throws {
        let push = try #require(
            try world.subscription(original: "1000000009", user: "other", renewals: 0, boughtDaysAgo: 0).first)
        try world.store.addNotification(push, bundleId: "com.example.app", delivered: true)
        var config = try world.config()
        config.appleAPI.backfillIntervalMinutes = 0
        let service = try RevenueDotService(config: config, log: { _ in })
        try service.start()
        #expect(try LoopbackConnection(port: service.port).postNotification(push).status == 200)
        service.shutdown()
    }

    func stored(_ world: AppleAPIWorld) throws -> (notifications: Int, events: [String]) {
        let reader = try StoreReader(path: world.databasePath)
        return try reader.read { (rows) throws(StoreError) in
            let count = try rows.query("SELECT count(*) FROM notifications").first?.first?.integerValue ?? 0
            let events = try rows.query("SELECT type, sequence FROM events ORDER BY position")
                .map { "\($0[0].textValue ?? "?") \($0[1].integerValue ?? -1)" }
            return (Int(count), events)
        }
    }

    static let expectedEvents = ["INITIAL_PURCHASE 1", "RENEWAL 2", "RENEWAL 3", "RENEWAL 4"]

    @Test func theCommandRecoversWhatTheOutageMissedOnce() throws {
        let world = try AppleAPIWorld()
        _ = try outage(world)
        #expect(try stored(world).notifications == 2)
        #expect(try BackfillCommand(arguments: ["--config", world.configPath, "--app", "demo"]).run() == 0)
        let after = try stored(world)
        #expect(after.notifications == 4)
        #expect(after.events == Self.expectedEvents)
        // Again: nothing new, nothing changed.
        #expect(
            try BackfillCommand(arguments: ["--config", world.configPath, "--app", "demo", "--since", "2020-01-01"]).run() == 0)
        #expect(try stored(world).notifications == 4)
        let events = try stored(world).events
        #expect(events == Self.expectedEvents, "\(events)")
        // The first run: Apple's failed deliveries (one request), then the run from --since.
        #expect(world.store.requestCount("notification-history") == 2)
    }

    /// Each progress line counts the pages whose notifications are settled, so its numbers add
    /// up, every page is said once, and the last line is the summary's.
    @Test func progressLinesAddUp() throws {
        let world = try AppleAPIWorld()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        service.shutdown()
        for original in ["1000000002", "1000000003"] {
            for signed in try world.subscription(original: original, user: Self.user, renewals: 22, boughtDaysAgo: 23) {
                try world.store.addNotification(signed, bundleId: "com.example.app", delivered: false)
            }
        }
        let run = try runCLI(["backfill", "--config", world.configPath, "--app", "demo", "--environment", "Sandbox"])
        #expect(run.status == 0, "\(run.output)")
        let pages = run.output.split(separator: "\n").filter { $0.contains(": page ") }.map(String.init)
        #expect(pages.count == 3, "\(run.output)")
        for (index, line) in pages.enumerated() {
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            // "backfill demo Sandbox: page P, L notifications: N new, S already stored"
            let (page, listed, new, stored) = (numbers[0], numbers[1], numbers[2], numbers[3])
            #expect(page == index + 1, "\(line)")
            #expect(listed == min(46, 20 * page) && new + stored == listed, "\(line)")
        }
        #expect(run.output.contains("46 notifications: 46 new, 0 already stored"), "\(run.output)")
    }

    /// Storage failing partway through a page stops the run; its counts hold the pages settled
    /// before, and of the failing page only the notifications settled before the failure.
    @Test func aStopPartwayThroughAPageCountsOnlyWhatSettled() throws {
        let world = try AppleAPIWorld()
        for signed in try world.subscription(original: "1000000004", user: Self.user, renewals: 22, boughtDaysAgo: 23) {
            try world.store.addNotification(signed, bundleId: "com.example.app", delivered: false)
        }
        let config = try world.config()
        let client = try AppleAPIClients.client(
            for: try #require(config.app("demo")), environment: .sandbox, config: config.appleAPI)
        let pagesHanded = Locked(0)
        let deliver: Backfill.Deliver = { bodies in
            let page = pagesHanded.withLock { count -> Int in
                count += 1
                return count
            }
            let outcomes = bodies.indices.map { index -> IngestOutcome in
                page == 2 && index >= 1 ? .unavailable("disk full") : .stored(uuid: "\(page)-\(index)")
            }
            return .done(outcomes)
        }
        let window = Backfill.window(
            since: nil, until: nil, readThrough: nil, marginMs: 0, environment: .sandbox, nowMs: UnixTime.nowMs)
        var lines: [Backfill.Counts] = []
        #expect {
            _ = try Backfill.run(
                client: client, requests: [NotificationHistoryRequest(startDate: window.start, endDate: window.end)],
                deliver: deliver, progress: { lines.append($0) })
        } throws: { error in
            guard let stopped = error as? Backfill.Stopped else { return false }
            #expect(stopped.description == "storage could not commit: disk full")
            #expect(stopped.counts == Backfill.Counts(pages: 1, listed: 21, new: 21, alreadyStored: 0, refused: 0))
            return true
        }
        #expect(lines == [Backfill.Counts(pages: 1, listed: 20, new: 20, alreadyStored: 0, refused: 0)])
    }

    @Test func beside_aRunningServerItGoesThroughItsNotificationURL() throws {
        let world = try AppleAPIWorld()
        _ = try outage(world)
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        // This server backfills nothing itself: its timers find the subscription lapsed.
        try service.fireDueTimers()
        // The configuration says port 0: the command is told the port this server took.
        var config = try world.config()
        config.listen = ListenAddress(host: "127.0.0.1", port: service.port)
        let target = try Backfill.Target.open(config: config, appId: "demo")
        #expect(target.name.hasPrefix("the running server"))
        let client = try AppleAPIClients.client(
            for: try #require(config.app("demo")), environment: .sandbox, config: config.appleAPI)
        let window = Backfill.window(
            since: nil, until: nil, readThrough: try target.mark(.sandbox), marginMs: 3_600_000, environment: .sandbox,
            nowMs: UnixTime.nowMs)
        let counts = try Backfill.run(
            client: client, requests: [NotificationHistoryRequest(startDate: window.start, endDate: window.end)],
            deliver: target.deliver)
        // No mark: the window starts where Apple's history does, so both pushed before the
        // outage are read too, and found stored.
        #expect(counts.new == 2)
        #expect(counts.alreadyStored == 2)
        // The expiry stays recorded; the renewals that come after bring the subscription back.
        let events = try stored(world).events
        #expect(events == ["INITIAL_PURCHASE 1", "RENEWAL 2", "EXPIRATION 3", "RENEWAL 4", "RENEWAL 5"], "\(events)")
        // The completed run's mark is moved on through the server, which keeps one further on.
        try target.advanceMark(.sandbox, window.end - 1)
        #expect(try target.mark(.sandbox) == window.end - 1)
        try target.advanceMark(.sandbox, window.end - 10)
        #expect(try target.mark(.sandbox) == window.end - 1)
        #expect(try target.mark(.production) == nil)
        target.close()
    }

    /// What the backfill command sends beside a server: the secret key, the app's environments,
    /// a mark not after now.
    @Test func theMarkRouteRefusesWhatNoCompletedRunCouldSend() throws {
        let world = try AppleAPIWorld()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        func post(key: String = "sk_test_secret", _ body: String) throws -> Int {
            try LoopbackConnection(port: service.port).request(
                "POST", "/v1/apple/backfill-mark",
                headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"], body: Data(body.utf8)
            ).status
        }
        let now = UnixTime.nowMs
        #expect(try post(key: "pk_test_public", #"{"environment": "Sandbox", "read_through": 5}"#) == 401)
        for refused in [
            #"{"environment": "Sandbox"}"#, #"{"environment": "Sandbox", "read_through": "5"}"#,
            #"{"environment": "Sandbox", "read_through": 0}"#, #"{"environment": "Xcode", "read_through": 5}"#,
            #"{"environment": "Sandbox", "read_through": \#(now + 3_600_000)}"#,
            #"{"environment": "Sandbox", "read_through": 5, "read_through": 6}"#, "[]",
        ] {
            #expect(try post(refused) == 400, "\(refused)")
        }
        #expect(try StoreReader(path: world.databasePath).backfillMark(appId: "demo", environment: "Sandbox") == nil)
        #expect(try post(#"{"environment": "Sandbox", "read_through": 5}"#) == 200)
        #expect(try StoreReader(path: world.databasePath).backfillMark(appId: "demo", environment: "Sandbox") == 5)
    }

    @Test func serveBackfillsAtStart() throws {
        let world = try AppleAPIWorld(backfillIntervalMinutes: 60)
        _ = try outage(world)
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        #expect(poll(seconds: 10) { (try? stored(world).notifications) == 4 })
        let events = try stored(world).events
        #expect(events == Self.expectedEvents, "\(events)")
        #expect(poll(seconds: 5) { service.metrics.backfillRuns.counts["completed"] == 1 })
        #expect(service.metrics.backfillNotifications.counts["new"] == 2)
        #expect(service.metrics.render().contains("revenuedot_backfill_notifications_total{result=\"new\"} 2"))
    }

    /// Apple failing at the first backfill does not let the timers go: a renewal sent while the
    /// server was down would be taken for an expiry first. The pass is tried again, and the
    /// timers start once one completes.
    @Test func aFailedFirstBackfillKeepsTheTimersWaiting() throws {
        let world = try AppleAPIWorld(backfillIntervalMinutes: 60)
        _ = try outage(world)
        // Five attempts, all 500: the first try of the first pass fails.
        world.store.inject(.status(500, code: nil, retryAfter: nil), count: 5, endpoint: "notification-history")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        #expect(poll(seconds: 30) { service.metrics.backfillRuns.counts["completed"] == 1 })
        #expect(service.metrics.backfillRuns.counts["stopped"] == 1)
        // Every attempt at Apple is counted by endpoint and status.
        let calls = service.metrics.appleAPIRequests.counts
        #expect(calls[#"endpoint="notification-history",status="500""#] == 5, "\(calls)")
        #expect((calls[#"endpoint="notification-history",status="200""#] ?? 0) >= 1, "\(calls)")
        #expect(poll(seconds: 10) { (try? stored(world).events) == Self.expectedEvents })
        try service.fireDueTimers()
        let events = try stored(world).events
        #expect(events == Self.expectedEvents, "\(events)")
    }

    /// A reload before the first backfill completes keeps the timers waiting for it, as the
    /// start did: the server was down all the same.
    @Test func aReloadKeepsTheTimersWaitingForTheFirstBackfill() throws {
        let world = try AppleAPIWorld(backfillIntervalMinutes: 60)
        _ = try outage(world)
        // The first try of the start's pass fails, and so does the reloaded one's (5 attempts each).
        world.store.inject(.status(500, code: nil, retryAfter: nil), count: 10, endpoint: "notification-history")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        #expect(poll(seconds: 30) { service.metrics.backfillRuns.counts["stopped"] == 1 })
        #expect(service.reload(to: try world.config()) == .reloaded(restartNeeded: []))
        #expect(!service.waitForSchedulerStart(seconds: 2))
        #expect(poll(seconds: 30) { service.metrics.backfillRuns.counts["completed"] == 1 })
        #expect(service.waitForSchedulerStart())
        #expect(poll(seconds: 10) { (try? stored(world).events) == Self.expectedEvents })
    }

    @Test func failuresAreOneLineAndStoreNothing() throws {
        let world = try AppleAPIWorld()
        _ = try outage(world)
        world.store.inject(.status(401, code: nil, retryAfter: nil), count: 10)
        #expect(try BackfillCommand(arguments: ["--config", world.configPath, "--app", "demo"]).run() == 1)
        #expect(try stored(world).notifications == 2)
        #expect(throws: UsageError.self) { _ = try BackfillCommand(arguments: ["--app", "demo", "--since", "yesterday"]) }
        #expect(throws: UsageError.self) { _ = try BackfillCommand(arguments: ["--app", "demo", "--since", "2026-02-30"]) }
        #expect(throws: UsageError.self) {
            _ = try BackfillCommand(arguments: ["--app", "demo", "--since", "2026-12-02", "--until", "2026-12-01"])
        }
        #expect(throws: UsageError.self) { _ = try BackfillCommand(arguments: ["--app", "demo", "--since", "2999-01-01"]) }
        // UNIX seconds, or a negative number, taken for milliseconds would be 1970: refused.
        for (text, hint) in [("1765000000", " (UNIX seconds? add 000)"), ("-5", "")] {
            let refused = #expect(throws: UsageError.self) {
                _ = try BackfillCommand(arguments: ["--app", "demo", "--since", text])
            }
            #expect(
                refused?.description == "--since \(text) is before 1973 in UNIX milliseconds\(hint): give UNIX milliseconds, "
                    + "YYYY-MM-DD or an ISO 8601 time")
        }
        #expect(try BackfillCommand(arguments: ["--app", "demo", "--since", "1765000000000"]).since == 1_765_000_000_000)
        // 0 asks for as far back as Apple keeps (the bench's backfill does).
        #expect(try BackfillCommand(arguments: ["--app", "demo", "--since", "0"]).since == 0)
        // The demo app accepts Sandbox only: Production is refused before anything is asked.
        #expect(throws: UsageError.self) {
            _ = try BackfillCommand(arguments: ["--config", world.configPath, "--app", "demo", "--environment", "Production"])
                .run()
        }
        #expect(throws: UsageError.self) { _ = try BackfillCommand(arguments: ["--config", world.configPath]) }
    }

    @Test(
        arguments: [
            // since, mark, expected start (ms before now), first sight (only failures asked)
            (nil, nil, 30 * 86_400_000 - 3_600_000, true),
            (-40 * 86_400_000, nil, 30 * 86_400_000 - 3_600_000, false),
            (-5 * 3_600_000, nil, 5 * 3_600_000, false),
            (nil, -10 * 3_600_000, 11 * 3_600_000, false),
            (nil, -40 * 86_400_000, 30 * 86_400_000 - 3_600_000, false),
            (-2 * 3_600_000, -10 * 3_600_000, 2 * 3_600_000, false),
        ] as [(Int64?, Int64?, Int64, Bool)])
    func theWindowStartsAtTheMarkLessTheMarginWithinApplesLimit(
        since: Int64?, mark: Int64?, startBeforeNow: Int64, firstSight: Bool
    ) {
        let now: Int64 = 1_800_000_000_000
        let window = Backfill.window(
            since: since.map { now + $0 }, until: nil, readThrough: mark.map { now + $0 }, marginMs: 3_600_000,
            environment: .sandbox, nowMs: now)
        #expect(window.start == now - startBeforeNow)
        #expect(window.end == now + 1)
        #expect(window.firstSight == firstSight)
        #expect(Backfill.requests(window, onlyFailures: false).map(\.onlyFailures) == [firstSight ? true : nil])
    }

    /// A completed run moves the mark to its end only when it read everything after the mark
    /// that Apple still keeps, and verification refused none of it.
    @Test(
        arguments: [
            // window start, window end, from Apple's earliest, mark, only failures, refused, new mark
            (100, 201, false, Int64?.none, false, 0, Int64?(200)),
            (100, 201, false, 150, false, 0, 200),
            (100, 201, false, 100, false, 0, 200),
            (160, 201, false, 150, false, 0, nil),
            (100, 201, false, 300, false, 0, nil),
            (100, 201, false, 150, true, 0, nil),
            (100, 201, false, 150, false, 1, nil),
            // A mark older than Apple's history: the window starts at Apple's oldest, nothing is skipped.
            (160, 201, true, 150, false, 0, 200),
        ] as [(Int64, Int64, Bool, Int64?, Bool, Int, Int64?)])
    func theMarkMovesOnlyOverWhatWasRead(
        start: Int64, end: Int64, fromEarliest: Bool, mark: Int64?, onlyFailures: Bool, refused: Int, moved: Int64?
    ) {
        let window = Backfill.Window(start: start, end: end, fromEarliest: fromEarliest)
        #expect(Backfill.markAfter(window, readThrough: mark, onlyFailures: onlyFailures, refused: refused) == moved)
    }

    /// A mark older than the history Apple keeps (an environment left alone for a month): the
    /// window starts at Apple's oldest day, says so, and the run then moves the mark on.
    @Test func aMarkOlderThanApplesHistoryIsCaughtUp() {
        let now: Int64 = 1_800_000_000_000
        let window = Backfill.window(
            since: nil, until: nil, readThrough: now - 40 * 86_400_000, marginMs: 3_600_000, environment: .sandbox,
            nowMs: now)
        #expect(window.fromEarliest)
        #expect(Backfill.markAfter(window, readThrough: now - 40 * 86_400_000) == now)
    }

    /// A push that arrives after an outage is newer than what the outage missed: the next
    /// backfill starts where the last one read through, not at that push.
    @Test func aPushAfterAnOutageDoesNotHideWhatTheOutageMissed() throws {
        let world = try AppleAPIWorld()
        _ = try outage(world)
        // A backfill read everything before the outage.
        let store = try Store(path: world.databasePath)
        let before = try #require(
            try store.read { (rows) throws(StoreError) in
                try rows.query("SELECT max(signed_date) FROM notifications").first?.first?.integerValue
            })
        try store.advanceBackfillMark(appId: "demo", environment: "Sandbox", readThroughMs: before, nowMs: UnixTime.nowMs)
        #expect(try store.backfillMark(appId: "demo", environment: "Sandbox") == before)
        // An older mark does not move it back.
        try store.advanceBackfillMark(appId: "demo", environment: "Sandbox", readThroughMs: before - 1, nowMs: UnixTime.nowMs)
        #expect(try store.backfillMark(appId: "demo", environment: "Sandbox") == before)
        store.close()
        // The server comes back; another customer's purchase is pushed to it before any backfill.
        try pushAfterTheOutage(world)
        #expect(try stored(world).notifications == 3)
        #expect(try BackfillCommand(arguments: ["--config", world.configPath, "--app", "demo"]).run() == 0)
        #expect(try stored(world).notifications == 5)
        let reader = try StoreReader(path: world.databasePath)
        #expect(try #require(try reader.backfillMark(appId: "demo", environment: "Sandbox")) > before)
    }
}
