import AppStore
import AppStoreServerAPI
import Foundation
import Storage
import Threads

extension Backfill {
    /// Where a pass reads the mark and what is stored, hands notifications, and moves the mark
    /// on: this process's store and ingest (`inProcess`), or a running server (the command's).
    package struct Target {
        /// For people: the database, or the server.
        package var name: String
        package var deliver: Deliver
        /// Where the history was read through.
        package var mark: (AppStoreEnvironment) throws -> Int64?
        package var advanceMark: (AppStoreEnvironment, Int64) throws -> Void
        package var close: () -> Void

        package init(
            name: String, deliver: @escaping Deliver, mark: @escaping (AppStoreEnvironment) throws -> Int64?,
            advanceMark: @escaping (AppStoreEnvironment, Int64) throws -> Void, close: @escaping () -> Void = {}
        ) {
            (self.name, self.deliver, self.mark) = (name, deliver, mark)
            (self.advanceMark, self.close) = (advanceMark, close)
        }

        /// `store`, through `ingest`, for app `appId` (`close` leaves the store open).
        package static func inProcess(store: Store, ingest: Ingest, appId: String, name: String) -> Target {
            Target(
                name: name, deliver: BackfillDelivery.inProcess(ingest, appId: appId),
                mark: { try store.backfillMark(appId: appId, environment: $0.rawValue) },
                advanceMark: { environment, through in
                    try store.advanceBackfillMark(
                        appId: appId, environment: environment.rawValue, readThroughMs: through, nowMs: UnixTime.nowMs)
                })
        }
    }

    /// What a pass is asked for: from `since` (else from the mark, `window`), to `until` (else
    /// now), every notification or only Apple's failed deliveries.
    package struct Asked: Sendable {
        package var since: Int64?
        package var until: Int64?
        package var onlyFailures: Bool

        package init(since: Int64? = nil, until: Int64? = nil, onlyFailures: Bool = false) {
            (self.since, self.until, self.onlyFailures) = (since, until, onlyFailures)
        }
    }

    /// One pass over `environment` of `target`, as `serve`'s backfill and the command make it:
    /// the window from the mark (`window`), what to ask Apple (`requests`, told to `planned`
    /// before Apple is asked), every page delivered (`run`), and the mark moved on when the
    /// pass read everything from it (`markAfter`).
    package static func pass(
        _ environment: AppStoreEnvironment, of target: Target, client: AppStoreServerAPIClient, asked: Asked,
        marginMs: Int64, isCancelled: () -> Bool = { false },
        planned: (Window, [NotificationHistoryRequest]) -> Void = { _, _ in }, progress: (Counts) -> Void = { _ in }
    ) throws -> Counts {
        let mark = try target.mark(environment)
        let nowMs = UnixTime.nowMs
        let window = window(
            since: asked.since, until: asked.until, readThrough: mark, marginMs: marginMs, environment: environment,
            nowMs: nowMs)
        let requests = requests(window, onlyFailures: asked.onlyFailures)
        planned(window, requests)
        let counts = try run(
            client: client, requests: requests, deliver: target.deliver, isCancelled: isCancelled, progress: progress)
        if let through = markAfter(window, readThrough: mark, onlyFailures: asked.onlyFailures, refused: counts.refused) {
            try target.advanceMark(environment, through)
        }
        return counts
    }
}
