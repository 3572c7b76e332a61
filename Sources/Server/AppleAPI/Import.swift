import AppStore
import AppStoreServerAPI
import Crypto
import Foundation
import JSON
import Storage
import Subscriptions
import Threads

/// Brings existing subscribers in: for each row of a CSV (`original_transaction_id`, optional
/// `app_user_id`), what Apple says of the purchase now (Get All Subscription Statuses, or Get
/// Transaction Info for a one-time purchase), verified, applied through the subscription logic
/// as an answer of Apple's (kept for replay), linked to the customer when the row names one; a
/// purchase already stored (pushed or backfilled first) is only linked, from Apple's current
/// answer, when the row names a customer who does not own it yet. Imported purchases make
/// state, not webhooks: their events are recorded but not delivered unless asked. Resumable: a
/// checkpoint beside the database (on PostgreSQL, beside the configuration) says how many rows
/// of which file are done; a run stops at the first row Apple or storage cannot take now.
package enum Import {
    package struct Row: Equatable, Sendable {
        package var originalTransactionId: String
        package var appUserId: String?
    }

    package struct Summary: Equatable, Sendable {
        package var imported = 0
        package var alreadyKnown = 0
        /// Stored already, and now linked to the row's customer.
        package var linked = 0
        package var notFound = 0
        /// Why rows failed, in file order.
        package var failed: [String] = []
        /// Why the run stopped before the end, and the 1-based row the next run resumes at.
        package var stopped: Stop?
    }

    package struct Stop: Equatable, Sendable {
        package var reason: String
        package var resumeAt: Int
    }

    package enum RowOutcome: Sendable {
        case imported, alreadyKnown, linked, notFound
        /// This row failed; the next may not.
        case failed(String)
        /// Every row would fail alike for now (Apple unreachable, limiting the rate or refusing
        /// the key; storage down): the run stops here and resumes at this row.
        case unavailable(String)
    }

    /// Imports one row: from the first of `environments` where Apple knows the purchase. A row
    /// naming another of the purchase's transactions than its original imports the purchase
    /// under its original id (`followed`: the id the row named; the original's own answer must
    /// name itself), but never moves it from another identified customer: only a row naming the
    /// original does, as a link does (two rows naming one purchase for two customers would
    /// otherwise move it silently, to whichever came last).
    package static func importRow(
        _ row: Row, app: AppConfig, environments: [AppStoreEnvironment], clients: AppleAPIClientPool, store: Store,
        emitEvents: Bool, nowMs: Int64, followed: String? = nil
    ) -> RowOutcome {
        let id = row.originalTransactionId
        do {
            // The row's customer by any of its ids (an alias of the owner is the owner).
            let (stored, owner, user) = try store.read { (rows) throws(StoreError) in
                let (stored, owner) = try LedgerRows.storedOwner(purchaseId: id, appId: app.id, from: rows)
                return (stored, owner, Self.customer(row.appUserId, appId: app.id, in: rows))
            }
            // Stored already: only a customer who does not own it yet needs Apple's answer (to link).
            if stored, user == nil || owner == user { return .alreadyKnown }
            if let followed, let taken = Self.takenFrom(owner, by: user) {
                return .failed(Self.ownedByAnother(followed, original: id, owner: taken))
            }
            // Apple's "not found for now, ask again later" in an environment that knew nothing.
            var missedForNow: AppStoreServerAPIError?
            for environment in environments {
                let client = try clients.client(for: app, environment: environment)
                // Stored: Apple's current answer alone, to link.
                let answers: [AppleAnswerRows.Answer]
                switch Self.fetchOrMissed(id, from: client, history: !stored) {
                case .success(let fetched): answers = fetched
                case .failure(let failure) where failure.isAccountNotFoundForNow:
                    missedForNow = failure
                    continue
                case .failure(let failure): throw failure
                }
                guard !answers.isEmpty else { continue }
                if let original = answers.first?.transaction.originalTransactionId, original != id {
                    // The row names another transaction of the purchase (a renewal's, say): the
                    // purchase is imported whole, under its original id, as that row would.
                    guard followed == nil, original.utf8.count <= 20, original.isASCIIDigits else {
                        return .failed("\(id): Apple's answer names another original transaction, \(original)")
                    }
                    return importRow(
                        Row(originalTransactionId: original, appUserId: row.appUserId), app: app,
                        environments: environments, clients: clients, store: store, emitEvents: emitEvents,
                        nowMs: nowMs, followed: id)
                }
                let keptWith = Locked<String?>(nil)
                let ownedBy = Locked<String?>(nil)
                // A purchase already stored is live state: its events (a TRANSFER from its
                // owner) go out like any other.
                let deliver = stored || emitEvents
                try store.write { rows in
                    // Looked at again where no other row can write between the look and the link.
                    if followed != nil,
                        let taken = Self.takenFrom(
                            try LedgerRows.storedOwner(purchaseId: id, appId: app.id, from: rows).owner,
                            by: Self.customer(row.appUserId, appId: app.id, in: rows))
                    {
                        return ownedBy.withLock { $0 = taken }
                    }
                    for answer in answers {
                        let applied = try LedgerInputs.keepAndApply(
                            .appleAnswer(answer, appUserId: row.appUserId), app: app.ledger, atMs: nowMs,
                            deliver: deliver, in: rows)
                        if let owner = applied?.linkKeptWith { keptWith.withLock { $0 = owner } }
                    }
                    // A lapse before the import is its past too: its EXPIRATION is made now,
                    // recorded like the rest, not left to the scheduler to send.
                    guard !deliver else { return }
                    let timer = PendingTimers.Due(
                        appId: app.id, id: ExpirationTimer(originalTransactionId: id, fireAtMs: 0).id)
                    for _ in 0..<4 {
                        guard
                            try LedgerInputs.keepAndApply(
                                .dueTimer(timer), app: app.ledger, atMs: nowMs, deliver: false, in: rows)
                                != nil
                        else { break }
                    }
                }
                if let followed, let owner = ownedBy.value {
                    return .failed(Self.ownedByAnother(followed, original: id, owner: owner))
                }
                if let owner = keptWith.value {
                    return .failed("\(id): kept with \(owner) by the app's restoreBehavior, not linked to \(row.appUserId ?? "")")
                }
                return stored ? .linked : .imported
            }
            if let missedForNow {
                return .failed("\(id): Apple did not find its account for now (\(missedForNow)): import the row again later")
            }
            if stored {
                return .failed("\(id): stored, but Apple knows it in none of the environments asked, so it was not linked")
            }
            return .notFound
        } catch let failure as AppStoreServerAPIError where failure.failsEveryCall {
            return .unavailable("\(id): \(failure)")
        } catch let failure as StoreError where [.unavailable, .busy, .io].contains(failure.code) {
            return .unavailable("\(id): storage: \(failure)")
        } catch {
            return .failed("\(id): \(error)")
        }
    }

    /// The customer `appUserId` names (the one it is an alias of, else itself); itself when
    /// that cannot be read.
    private static func customer(_ appUserId: String?, appId: String, in rows: some RowReader) -> String? {
        appUserId.map { id in (try? CustomerRows.customerId(of: id, appId: appId, from: rows)) ?? id }
    }

    /// The identified customer other than `user` who owns a purchase now (`owner`), or nil.
    private static func takenFrom(_ owner: String?, by user: String?) -> String? {
        guard let owner, owner != user, !Ledger.isAnonymous(owner) else { return nil }
        return owner
    }

    /// A row naming another transaction than a purchase's original, refused for its owner.
    private static func ownedByAnother(_ followed: String, original: String, owner: String) -> String {
        "\(followed): Apple's answer names original transaction \(original), which \(owner) has: a row naming "
            + "another of its transactions does not move it (name \(original) itself to move it)"
    }

    /// What Apple says of one purchase, in the order to apply it: a subscription's past
    /// transactions (Transaction History, by purchase date, unless `history` is false), then its
    /// status with renewal info; a one-time purchase's transaction. Empty when Apple does not
    /// know it in this environment.
    /// `fetch`, its failure as a value.
    private static func fetchOrMissed(_ id: String, from client: AppStoreServerAPIClient, history: Bool)
        -> Result<[AppleAnswerRows.Answer], AppStoreServerAPIError>
    {
        do { return .success(try fetch(id, from: client, history: history)) } catch { return .failure(error) }
    }

    package static func fetch(_ id: String, from client: AppStoreServerAPIClient, history: Bool = true)
        throws(AppStoreServerAPIError) -> [AppleAnswerRows.Answer]
    {
        do {
            if let status = try client.subscriptionStatuses(id).first(where: { $0.originalTransactionId == id }),
                let signed = status.signedTransactionInfo, let transaction = status.transaction?.payload
            {
                let current = AppleAnswerRows.Answer(
                    signedTransaction: signed, transaction: transaction, signedRenewalInfo: status.signedRenewalInfo,
                    renewalInfo: status.renewalInfo?.payload)
                guard history else { return [current] }
                return try historyAnswers(id, group: transaction.subscriptionGroupIdentifier, from: client) + [current]
            }
            let info = try client.signedTransactionInfo(id)
            return [AppleAnswerRows.Answer(signedTransaction: info.signed, transaction: info.verified.payload)]
        } catch  where error.isUnknownTransaction {
            return []
        }
    }

    /// The transactions of subscription `id` in Apple's Transaction History, bought after
    /// `purchasedAfter` (all when nil), by purchase date: answers from its history, to apply in
    /// that order (Apple signs the whole history when asked, so signed dates say nothing of it).
    /// Apple is asked only for the account's auto-renewable transactions, of subscription group
    /// `group` when known: a customer's consumables and other subscriptions are pages not read.
    package static func historyAnswers(
        _ id: String, group: String?, from client: AppStoreServerAPIClient, purchasedAfter: Int64? = nil
    ) throws(AppStoreServerAPIError) -> [AppleAnswerRows.Answer] {
        let filter = TransactionHistoryRequest(
            startDate: purchasedAfter.map { $0 + 1 }, productTypes: [.autoRenewable], sort: .ascending,
            subscriptionGroupIdentifiers: group.map { [$0] } ?? [])
        return try client.signedTransactionHistory(id, filter: filter)
            .filter {
                $0.verified.payload.originalTransactionId == id
                    && ($0.verified.payload.purchaseDate ?? 0) > (purchasedAfter ?? Int64.min)
            }
            .sorted { ($0.verified.payload.purchaseDate ?? 0) < ($1.verified.payload.purchaseDate ?? 0) }
            .map { AppleAnswerRows.Answer(signedTransaction: $0.signed, transaction: $0.verified.payload, fromHistory: true) }
    }

    /// Where the number of rows done is kept, beside the database.
    package static func checkpointPath(databasePath: String, appId: String, file: String) -> String {
        let name = URL(fileURLWithPath: file).lastPathComponent.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return "\(databasePath).import-\(appId)-\(String(name)).checkpoint"
    }

    /// What a checkpoint is for: the file's rows, digested (SHA-256 of their ids and users), so
    /// that another file saved under the same name starts from its first row.
    package static func fingerprint(_ rows: [Row]) -> String {
        let text = rows.map { "\($0.originalTransactionId),\($0.appUserId ?? "")" }.joined(separator: "\n")
        return Digest.sha256(Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The rows a checkpoint says are done, when it was written for rows with `fingerprint`; 0
    /// when there is none, or it is another file's (or an older build's, which named no file).
    package static func resumePoint(checkpoint: String, fingerprint: String) -> Int {
        resumption(checkpoint: checkpoint, fingerprint: fingerprint)?.done ?? 0
    }

    /// What a checkpoint written for rows with `fingerprint` holds: the rows done, and the note
    /// the run's caller kept with them (`run`'s `note`; empty when none); nil when there is no
    /// such checkpoint.
    package static func resumption(checkpoint: String, fingerprint: String) -> (done: Int, note: String)? {
        guard let text = try? String(contentsOfFile: checkpoint, encoding: .utf8) else { return nil }
        let parts = text.split(whereSeparator: \.isWhitespace)
        guard (2...3).contains(parts.count), parts[1] == fingerprint, let done = Int(parts[0]), done > 0 else { return nil }
        return (done, parts.count == 3 ? String(parts[2]) : "")
    }

    /// A batch's rows that Apple knows in none of the environments asked, and those that failed
    /// with why, in file order.
    package struct Listed: Equatable, Sendable {
        package var notFound: [Row] = []
        package var failed: [Failed] = []

        package struct Failed: Equatable, Sendable {
            package var row: Row
            package var reason: String
        }
    }

    /// Imports `rows` from the checkpoint on, `concurrency` at a time with `importRow` (here,
    /// or through the running server), saving the checkpoint after each batch: a process killed
    /// mid-batch finds that batch's imported rows already known when it goes on. A row Apple or
    /// storage cannot take now stops the run, with the checkpoint at that row. Each batch's rows
    /// not found or failed go to `list` before the checkpoint moves past them, and the
    /// checkpoint keeps `note` (one word: where the caller's lists ended), so a run interrupted
    /// loses none of them and the run that resumes can list them once (`resumption`).
    package static func run(
        _ rows: [Row], concurrency: Int, checkpoint: String, resumed: (Int) -> Void = { _ in },
        progress: (Int, Int, Double) -> Void = { _, _, _ in }, list: (Listed) -> Void = { _ in },
        note: () -> String = { "" }, importRow: @escaping @Sendable (Row) -> RowOutcome
    ) -> Summary {
        let fingerprint = fingerprint(rows)
        var summary = Summary()
        var done = min(max(resumePoint(checkpoint: checkpoint, fingerprint: fingerprint), 0), rows.count)
        if done > 0 { resumed(done) }
        let began = Date()
        var handled = 0
        while done < rows.count {
            let batch = Array(rows[done..<min(rows.count, done + max(1, concurrency))])
            let outcomes = Locked([RowOutcome?](repeating: nil, count: batch.count))
            DispatchQueue.concurrentPerform(iterations: batch.count) { index in
                let outcome = importRow(batch[index])
                outcomes.withLock { $0[index] = outcome }
            }
            // Rows after a stop are taken up again by the next run: counted there, not here.
            let stop = outcomes.value.enumerated().lazy.compactMap { index, outcome -> (index: Int, reason: String)? in
                if case .unavailable(let reason)? = outcome { return (index, reason) }
                return nil
            }.first
            var listed = Listed()
            for (index, outcome) in outcomes.value.prefix(stop?.index ?? batch.count).enumerated() {
                switch outcome {
                case .imported?: summary.imported += 1
                case .alreadyKnown?: summary.alreadyKnown += 1
                case .linked?: summary.linked += 1
                case .notFound?:
                    summary.notFound += 1
                    listed.notFound.append(batch[index])
                case .failed(let reason)?:
                    summary.failed.append(reason)
                    listed.failed.append(Listed.Failed(row: batch[index], reason: reason))
                case .unavailable?: break
                case nil:
                    summary.failed.append("no outcome")
                    listed.failed.append(Listed.Failed(row: batch[index], reason: "no outcome"))
                }
            }
            if !listed.notFound.isEmpty || !listed.failed.isEmpty { list(listed) }
            // Rows of the batch after the stop that went through are found already known next time.
            let finished = stop?.index ?? batch.count
            done += finished
            handled += finished
            // Readable by its owner only, as the database beside it.
            let saved = FileManager.default.createFile(
                atPath: checkpoint,
                contents: Data("\(([String(done), fingerprint, note()]).filter { !$0.isEmpty }.joined(separator: " "))\n".utf8),
                attributes: [.posixPermissions: 0o600])
            progress(done, rows.count, Double(handled) / max(Date().timeIntervalSince(began), 0.001))
            if let stop {
                // Not written (its folder is not this user's to write): the next run starts again.
                summary.stopped =
                    saved
                    ? Stop(reason: stop.reason, resumeAt: done + 1)
                    : Stop(
                        reason: stop.reason + "; the checkpoint could not be written at \(checkpoint), so the same "
                            + "command starts at row 1 again (the rows done are then already known)",
                        resumeAt: 1)
                return summary
            }
        }
        try? FileManager.default.removeItem(atPath: checkpoint)
        return summary
    }
}
