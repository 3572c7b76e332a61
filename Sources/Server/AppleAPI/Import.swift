import AppStore
import AppStoreServerAPI
import Foundation
import Storage
import Threads

/// Brings existing subscribers in: for each row of a CSV (`original_transaction_id`, optional
/// `app_user_id`), what Apple says of the purchase now (Get All Subscription Statuses, or Get
/// Transaction Info for a one-time purchase), verified, applied through the subscription logic
/// as an answer of Apple's (kept for replay), linked to the customer when the row names one.
/// Imported purchases make state, not webhooks: their events are recorded but not delivered
/// unless asked. Resumable: a checkpoint beside the database (on PostgreSQL, beside the
/// configuration) says how many rows are done.
package enum Import {
    package struct Row: Equatable, Sendable {
        package var originalTransactionId: String
        package var appUserId: String?
    }

    package struct Summary: Equatable, Sendable {
        package var imported = 0
        package var alreadyKnown = 0
        package var notFound = 0
        package var failed: [String] = []
    }

    package enum RowOutcome: Sendable {
        case imported, alreadyKnown, notFound
        case failed(String)
    }

    /// The rows of a CSV with a header naming `original_transaction_id` (and maybe
    /// `app_user_id`); quoted fields may hold commas and doubled quotes.
    package static func rows(csv text: String) throws(UsageError) -> [Row] {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init).filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
        guard !lines.isEmpty else { throw UsageError("the CSV is empty") }
        let header = fields(lines.removeFirst()).map { $0.lowercased() }
        guard let originalColumn = header.firstIndex(of: "original_transaction_id") else {
            throw UsageError("the CSV's header has no original_transaction_id column")
        }
        let userColumn = header.firstIndex(of: "app_user_id")
        var rows: [Row] = []
        for (index, line) in lines.enumerated() {
            let values = fields(line)
            guard originalColumn < values.count, !values[originalColumn].isEmpty,
                values[originalColumn].utf8.allSatisfy({ (48...57).contains($0) })
            else { throw UsageError("CSV line \(index + 2): no decimal original_transaction_id") }
            let user = userColumn.flatMap { $0 < values.count ? values[$0] : nil }.flatMap { $0.isEmpty ? nil : $0 }
            rows.append(Row(originalTransactionId: values[originalColumn], appUserId: user))
        }
        return rows
    }

    /// One CSV line's fields (RFC 4180 quoting).
    package static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var characters = Array(line)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" {
                        current.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current.trimmingCharacters(in: .whitespaces))
        return fields
    }

    /// Imports one row: from the first of `environments` where Apple knows the purchase.
    package static func importRow(
        _ row: Row, app: AppConfig, environments: [AppStoreEnvironment], clients: AppleAPIClientPool, store: Store,
        emitEvents: Bool, nowMs: Int64
    ) -> RowOutcome {
        let id = row.originalTransactionId
        do {
            let known = try store.read { (rows) throws(StoreError) in
                try LedgerRows.isStored(purchaseId: id, appId: app.id, from: rows)
            }
            if known { return .alreadyKnown }
            for environment in environments {
                let client = try clients.client(for: app, environment: environment)
                let answers = try fetch(id, from: client)
                guard !answers.isEmpty else { continue }
                try store.write { rows in
                    for answer in answers {
                        try LedgerInputs.keepAndApply(
                            .appleAnswer(answer, appUserId: row.appUserId), app: app.ledger, atMs: nowMs,
                            deliver: emitEvents, in: rows)
                    }
                }
                return .imported
            }
            return .notFound
        } catch {
            return .failed("\(id): \(error)")
        }
    }

    /// What Apple says of one purchase, in the order to apply it: a subscription's past
    /// transactions (Transaction History, by purchase date), then its status with renewal info;
    /// a one-time purchase's transaction. Empty when Apple does not know it in this environment.
    package static func fetch(_ id: String, from client: AppStoreServerAPIClient) throws(AppStoreServerAPIError)
        -> [AppleAnswerRows.Answer]
    {
        do {
            if let status = try client.subscriptionStatuses(id).first(where: { $0.originalTransactionId == id }),
                let signed = status.signedTransactionInfo, let transaction = status.transaction?.payload
            {
                let history = try client.signedTransactionHistory(id, filter: TransactionHistoryRequest(sort: .ascending))
                    .filter { $0.verified.payload.originalTransactionId == id }
                    .sorted { ($0.verified.payload.purchaseDate ?? 0) < ($1.verified.payload.purchaseDate ?? 0) }
                    .map {
                        AppleAnswerRows.Answer(signedTransaction: $0.signed, transaction: $0.verified.payload, fromHistory: true)
                    }
                let current = AppleAnswerRows.Answer(
                    signedTransaction: signed, transaction: transaction, signedRenewalInfo: status.signedRenewalInfo,
                    renewalInfo: status.renewalInfo?.payload)
                return history + [current]
            }
            let info = try client.signedTransactionInfo(id)
            return [AppleAnswerRows.Answer(signedTransaction: info.signed, transaction: info.verified.payload)]
        } catch  where error.isUnknownTransaction {
            return []
        }
    }

    /// Where the number of rows done is kept, beside the database.
    package static func checkpointPath(databasePath: String, appId: String, file: String) -> String {
        let name = URL(fileURLWithPath: file).lastPathComponent.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return "\(databasePath).import-\(appId)-\(String(name)).checkpoint"
    }

    /// Imports `rows` from the checkpoint on, `concurrency` at a time with `importRow` (here,
    /// or through the running server), saving the checkpoint after each batch: a process killed
    /// mid-batch finds that batch's imported rows already known when it goes on.
    package static func run(
        _ rows: [Row], concurrency: Int, checkpoint: String, progress: (Int, Int, Double) -> Void = { _, _, _ in },
        importRow: @escaping @Sendable (Row) -> RowOutcome
    ) -> Summary {
        let start = Int(
            (try? String(contentsOfFile: checkpoint, encoding: .utf8)).flatMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            } ?? 0)
        var summary = Summary()
        var done = min(max(start, 0), rows.count)
        let began = Date()
        var handled = 0
        while done < rows.count {
            let batch = Array(rows[done..<min(rows.count, done + max(1, concurrency))])
            let outcomes = Locked([RowOutcome?](repeating: nil, count: batch.count))
            DispatchQueue.concurrentPerform(iterations: batch.count) { index in
                let outcome = importRow(batch[index])
                outcomes.withLock { $0[index] = outcome }
            }
            for outcome in outcomes.value {
                switch outcome {
                case .imported?: summary.imported += 1
                case .alreadyKnown?: summary.alreadyKnown += 1
                case .notFound?: summary.notFound += 1
                case .failed(let reason)?: summary.failed.append(reason)
                case nil: summary.failed.append("no outcome")
                }
            }
            done += batch.count
            handled += batch.count
            try? Data("\(done)\n".utf8).write(to: URL(fileURLWithPath: checkpoint))
            progress(done, rows.count, Double(handled) / max(Date().timeIntervalSince(began), 0.001))
        }
        try? FileManager.default.removeItem(atPath: checkpoint)
        return summary
    }
}
