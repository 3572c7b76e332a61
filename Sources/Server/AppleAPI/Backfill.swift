import AppStore
import AppStoreServerAPI
import Foundation
import JSON

/// Recovers the notifications Apple sent that RevenueDot never stored (a server down longer
/// than Apple's retries, which Sandbox never makes): pages through Get Notification History and
/// hands every `signedPayload` to the ingest path as Apple's POST would, so a backfilled
/// notification is verified, deduplicated on `notificationUUID`, stored and applied exactly as a
/// pushed one, and one already stored changes nothing.
///
/// https://developer.apple.com/documentation/appstoreserverapi/get-notification-history
package enum Backfill {
    /// What a run did, for progress lines, the summary and `/metrics`.
    package struct Counts: Equatable, Sendable {
        package var pages = 0
        /// Notifications Apple listed whose outcome is known (all of a page but one a stop cut short).
        package var listed = 0
        /// Stored now (applied, held, or failed to apply and kept): Apple's push had not arrived.
        package var new = 0
        /// Of `new`, those stored held: for another bundle or environment than the app's, they
        /// wait for a configuration fix (`notifications list --held`).
        package var held = 0
        /// Already stored: nothing changed.
        package var alreadyStored = 0
        /// Refused by verification (nothing stored; the reject log says why).
        package var refused = 0

        package init(pages: Int = 0, listed: Int = 0, new: Int = 0, held: Int = 0, alreadyStored: Int = 0, refused: Int = 0) {
            (self.pages, self.listed, self.new, self.held) = (pages, listed, new, held)
            (self.alreadyStored, self.refused) = (alreadyStored, refused)
        }

        /// One line for people: `12 notifications: 3 new, 9 already stored`.
        package var summary: String {
            "\(listed) notification\(listed == 1 ? "" : "s"): \(new) new"
                + (held > 0 ? " (\(held) held: see notifications list --held)" : "") + ", \(alreadyStored) already stored"
                + (refused > 0 ? ", \(refused) refused by verification (see notifications rejects)" : "")
        }
    }

    /// Why a run stopped before the end; what it did so far is kept, and the next run continues.
    package struct Stopped: Error, CustomStringConvertible {
        package var description: String
        package var counts: Counts
    }

    /// Hands a page of bodies (`{"signedPayload": ...}`) to the ingest path, in order: returns
    /// once they are handed over, with what ingest made of each once committed.
    package typealias Deliver = @Sendable ([Data]) -> PendingOutcomes

    /// The days back Apple keeps notification history: 180 in Production, 30 in Sandbox.
    package static func historyDays(_ environment: AppStoreEnvironment) -> Int64 { environment == .production ? 180 : 30 }

    /// The range a run asks for, in UNIX ms: from `since`; or else from where the last completed
    /// run read through (`readThrough`, the stored mark) less `marginMs`; before any, as far back
    /// as Apple keeps (`firstSight`). Never further back than Apple keeps (Apple refuses it); to
    /// `until` or now.
    ///
    /// The mark, not the newest notification: a push that arrived after an outage is newer
    /// than everything the outage missed.
    ///
    /// `fromEarliest`: the window starts as far back as Apple keeps, so nothing older can be read.
    /// `firstSight`: no mark and no `since`: no run has completed for this app in this
    /// environment (`requests`).
    package static func window(
        since: Int64?, until: Int64?, readThrough: Int64?, marginMs: Int64, environment: AppStoreEnvironment,
        nowMs: Int64
    ) -> Window {
        let earliest = earliest(environment, nowMs: nowMs)
        let wanted = since ?? readThrough.map { $0 - marginMs } ?? earliest
        let end = min(until ?? nowMs, nowMs) + 1
        let start = min(max(wanted, earliest), end - 1)
        return Window(
            start: start, end: end, fromEarliest: start == earliest, firstSight: since == nil && readThrough == nil)
    }

    /// The oldest moment a run asks Apple for: an hour inside Apple's limit, since every page
    /// repeats the start date, and a long first backfill must not be refused halfway through
    /// for the time its pages took.
    static func earliest(_ environment: AppStoreEnvironment, nowMs: Int64) -> Int64 {
        nowMs - historyDays(environment) * 86_400_000 + 3_600_000
    }

    /// What a run over `window` asks Apple: its notifications, or only the failed deliveries.
    ///
    /// Until a run completes (`Window.firstSight`: a new installation, one that has only
    /// imported, or one whose server took notifications before its key was configured), only
    /// the failed deliveries, as far back as Apple keeps them: few pages, where the whole
    /// history may be many. A notification Apple delivered that RevenueDot never stored went to
    /// the server before it (RevenueCat, say), whose consumers had its events: that server's
    /// past, whose state `import` brings, not a missed notification. Decided from the mark
    /// alone, so a first run stopped partway (or two nodes' first runs at once), having stored
    /// some failures, is followed by another first run, never by all of the history since them.
    package static func requests(_ window: Window, onlyFailures: Bool) -> [NotificationHistoryRequest] {
        [
            NotificationHistoryRequest(
                startDate: window.start, endDate: window.end, onlyFailures: onlyFailures || window.firstSight ? true : nil)
        ]
    }

    /// A range of Apple's history to read, in UNIX ms, end excluded.
    package struct Window: Equatable, Sendable {
        package var start: Int64
        package var end: Int64
        /// Whether it starts at the oldest time Apple still keeps.
        package var fromEarliest = false
        /// Whether no run has completed for the app in this environment (no mark) and no start
        /// was asked for: only the failed deliveries are read (`requests`).
        package var firstSight = false
    }

    /// Where the mark moves once a run over `window` completed: to its end, when the run read
    /// everything after the mark that Apple still keeps (it started at or before the mark, or at
    /// Apple's oldest, or there was no mark), nil when it stays: a run from a later `since`
    /// leaves a gap unread, one listing only failures read part of the history, and one with
    /// notifications refused by verification (a root certificate missing, say) is read again
    /// from the same mark once the configuration is fixed.
    package static func markAfter(
        _ window: Window, readThrough: Int64?, onlyFailures: Bool = false, refused: Int = 0
    ) -> Int64? {
        guard !onlyFailures, refused == 0, window.fromEarliest || readThrough.map({ window.start <= $0 }) ?? true else {
            return nil
        }
        let through = window.end - 1
        return through > (readThrough ?? Int64.min) ? through : nil
    }

    /// Pages through Apple's history of each of `requests` in turn (`requests(_:readThrough:...)`)
    /// and delivers every notification, calling `progress` after each page with what the run
    /// settled so far: its requests count as one run, and so does a stop.
    ///
    /// Pages are handed over in order; a page's commit overlaps the fetch and verification of
    /// the next.
    package static func run(
        client: AppStoreServerAPIClient, requests: [NotificationHistoryRequest], deliver: Deliver,
        isCancelled: () -> Bool = { false }, progress: (Counts) -> Void = { _ in }
    ) throws(Stopped) -> Counts {
        var counts = Counts()
        for request in requests {
            counts = try page(
                client: client, request: request, deliver: deliver, isCancelled: isCancelled, progress: progress,
                counted: counts)
        }
        return counts
    }

    /// One request's pages, counted on top of `counted` (what the run's earlier requests settled).
    private static func page(
        client: AppStoreServerAPIClient, request: NotificationHistoryRequest, deliver: Deliver,
        isCancelled: () -> Bool, progress: (Counts) -> Void, counted: Counts
    ) throws(Stopped) -> Counts {
        var counts = counted
        var token: String?
        var tokensSeen: Set<String> = []
        var inFlight: PendingOutcomes?
        /// Waits for the page in flight and counts it, with what ingest made of each notification.
        func settle() throws(Stopped) {
            guard let delivery = inFlight else { return }
            inFlight = nil
            // A page stopped partway counts only the notifications settled before the stop.
            for outcome in delivery.wait() {
                switch outcome {
                case .stored: counts.new += 1
                case .held:
                    counts.new += 1
                    counts.held += 1
                case .duplicate: counts.alreadyStored += 1
                case .rejected, .badRequest: counts.refused += 1
                case .unavailable(let reason):
                    throw Stopped(description: "storage could not commit: \(reason)", counts: counts)
                case .busy:
                    // Not from a batch (`Ingest.submit`), which waits for its turn.
                    throw Stopped(description: "the server was too busy to verify it", counts: counts)
                case .unknownApp(let app):
                    throw Stopped(description: "no app \"\(app)\" is configured", counts: counts)
                }
                counts.listed += 1
            }
            counts.pages += 1
            progress(counts)
        }
        repeat {
            let page: NotificationHistoryResponse
            do {
                page = try client.notificationHistoryPage(request, paginationToken: token)
            } catch {
                try settle()
                throw Stopped(description: "\(error)", counts: counts)
            }
            guard !isCancelled() else {
                try settle()
                throw Stopped(description: "the server is stopping", counts: counts)
            }
            let bodies = (page.notificationHistory ?? []).compactMap(\.signedPayload).map {
                Data(JSONValue.object(["signedPayload": .string($0)]).serialized().utf8)
            }
            let handedOver = bodies.isEmpty ? PendingOutcomes.done([]) : deliver(bodies)
            try settle()
            inFlight = handedOver
            guard page.hasMore == true else { break }
            // More pages, but no way to them: not a complete run, so the mark must not move past them.
            guard let next = page.paginationToken, tokensSeen.insert(next).inserted else {
                try settle()
                throw Stopped(
                    description:
                        "Apple said more pages follow but gave \(page.paginationToken == nil ? "no" : "a repeated") pagination token",
                    counts: counts)
            }
            token = next
        } while true
        try settle()
        return counts
    }

    /// The environments of `app` the App Store Server API serves: Production and Sandbox.
    package static func environments(of app: AppConfig) -> [AppStoreEnvironment] {
        [.production, .sandbox].filter { app.environments.contains($0) }
    }
}
