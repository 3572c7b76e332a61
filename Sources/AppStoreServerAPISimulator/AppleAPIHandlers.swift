import AppStore
import AppStoreServerAPI
import Foundation
import HTTP
import JSON

/// The simulator's answers to each endpoint, from the store's state, as Apple answers.
enum AppleAPIHandlers {
    typealias App = SimulatedAppStore.App
    typealias Transaction = SimulatedAppStore.Transaction

    // MARK: - Transactions

    static func transactionInfo(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        guard let transaction = store.state.withLock({ state in find(id, in: state.transactions[app.bundleId] ?? []) }) else {
            return error(404, 4_040_010, "Transaction id not found.")
        }
        return signed { ["signedTransactionInfo": .string(try store.sign(transaction.payload))] }
    }

    static func transactionHistory(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        let all = store.state.withLock { state in state.transactions[app.bundleId] ?? [] }
        guard let anchor = find(id, in: all) else { return error(404, 4_040_010, "Transaction id not found.") }
        var history = all.filter { $0.account == anchor.account }
        if let start = request.queryValues("startDate").first.flatMap(Int64.init) {
            history = history.filter { ($0.int("purchaseDate") ?? 0) >= start }
        }
        if let end = request.queryValues("endDate").first.flatMap(Int64.init) {
            history = history.filter { ($0.int("purchaseDate") ?? 0) < end }
        }
        let products = request.queryValues("productId")
        if !products.isEmpty { history = history.filter { products.contains($0.payload["productId"]?.stringValue ?? "") } }
        let types = request.queryValues("productType")
        if !types.isEmpty { history = history.filter { types.contains(queryType(of: $0)) } }
        let groups = request.queryValues("subscriptionGroupIdentifier")
        if !groups.isEmpty {
            history = history.filter { groups.contains($0.payload["subscriptionGroupIdentifier"]?.stringValue ?? "") }
        }
        if let ownership = request.queryValues("inAppOwnershipType").first {
            history = history.filter { $0.payload["inAppOwnershipType"]?.stringValue == ownership }
        }
        if let revoked = request.queryValues("revoked").first {
            history = history.filter { ($0.payload["revocationDate"] != nil) == (revoked.lowercased() == "true") }
        }
        let descending = request.queryValues("sort").first == "DESCENDING"
        // By when each was last changed, as Apple sorts: a transaction changed while the pages
        // are read (a refund, an upgrade) comes again, later, and none is skipped.
        history.sort { descending ? $0.order > $1.order : $0.order < $1.order }
        return pageByChange(history, revision: request.queryValues("revision").first, descending: descending) {
            rows, revision, hasMore in
            [
                "revision": .string(revision), "hasMore": .bool(hasMore), "bundleId": .string(app.bundleId),
                "appAppleId": app.appAppleId.map(JSONValue.integer) ?? .null,
                "environment": .string(app.environment.rawValue),
                "signedTransactions": .array(try rows.map { .string(try store.sign($0.payload)) }),
            ]
        }
    }

    static func refundHistory(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        let all = store.state.withLock { state in state.transactions[app.bundleId] ?? [] }
        guard let anchor = find(id, in: all) else { return error(404, 4_040_010, "Transaction id not found.") }
        // Ascending by revocation date, as Apple sorts it.
        let refunded = all.filter { $0.account == anchor.account && $0.payload["revocationDate"] != nil }
            .sorted { ($0.int("revocationDate") ?? 0, $0.order) < ($1.int("revocationDate") ?? 0, $1.order) }
        return page(refunded, revision: request.queryValues("revision").first, store: store) { rows, revision, hasMore in
            [
                "revision": .string(revision), "hasMore": .bool(hasMore),
                "signedTransactions": .array(try rows.map { .string(try store.sign($0.payload)) }),
            ]
        }
    }

    static func subscriptionStatuses(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        let (all, renewals) = store.state.withLock { state in (state.transactions[app.bundleId] ?? [], state.renewalInfo) }
        guard let anchor = find(id, in: all) else { return error(404, 4_040_010, "Transaction id not found.") }
        let given = request.queryValues("status")
        let wanted = Set(given.compactMap(Int64.init))
        guard wanted.count == Set(given).count, wanted.allSatisfy({ (1...5).contains($0) }) else {
            return error(400, 4_000_031, "Invalid request. The status parameter is invalid.")
        }
        let subscriptions = all.filter { $0.account == anchor.account && $0.payload["expiresDate"] != nil }
        var latest: [String: Transaction] = [:]
        for transaction in subscriptions {
            guard let original = transaction.originalTransactionId else { continue }
            if let known = latest[original], (known.int("purchaseDate") ?? 0) > (transaction.int("purchaseDate") ?? 0) {
                continue
            }
            latest[original] = transaction
        }
        let now = store.nowMs
        return signed {
            var groups: [String: [JSONValue]] = [:]
            for (original, transaction) in latest.sorted(by: { $0.key < $1.key }) {
                let renewal = renewals[original]
                let status = status(of: transaction, renewal: renewal, now: now)
                guard wanted.isEmpty || wanted.contains(status) else { continue }
                var item: [String: JSONValue] = [
                    "status": .integer(status), "originalTransactionId": .string(original),
                    "signedTransactionInfo": .string(try store.sign(transaction.payload)),
                ]
                if let renewal { item["signedRenewalInfo"] = .string(try store.sign(renewal)) }
                groups[transaction.payload["subscriptionGroupIdentifier"]?.stringValue ?? "", default: []].append(.object(item))
            }
            return [
                "environment": .string(app.environment.rawValue), "bundleId": .string(app.bundleId),
                "appAppleId": app.appAppleId.map(JSONValue.integer) ?? .null,
                "data": .array(
                    groups.sorted { $0.key < $1.key }.map { group in
                        .object(["subscriptionGroupIdentifier": .string(group.key), "lastTransactions": .array(group.value)])
                    }),
            ]
        }
    }

    /// Apple's status of a subscription: revoked, in its grace period, in billing retry,
    /// active, or expired, from its latest transaction and renewal info.
    static func status(of transaction: Transaction, renewal: [String: JSONValue]?, now: Int64) -> Int64 {
        if transaction.payload["revocationDate"] != nil { return 5 }
        if case .integer(let grace) = renewal?["gracePeriodExpiresDate"], grace > now { return 4 }
        if renewal?["isInBillingRetryPeriod"] == .bool(true) { return 3 }
        return (transaction.int("expiresDate") ?? 0) > now ? 1 : 2
    }

    static func lookUpOrder(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let orderId = request.pathParameters["orderId"] ?? ""
        let (ids, all) = store.state.withLock { state in (state.orders[orderId], state.transactions[app.bundleId] ?? []) }
        let transactions = (ids ?? []).compactMap { find($0, in: all) }
        return signed {
            [
                "status": .integer(transactions.isEmpty ? 1 : 0),
                "signedTransactions": .array(try transactions.map { .string(try store.sign($0.payload)) }),
            ]
        }
    }

    static func setAppAccountToken(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let original = request.pathParameters["id"] ?? ""
        guard let body = try? JSONValue(parsing: request.body), case .string(let token) = body["appAccountToken"],
            UUID(uuidString: token) != nil
        else { return error(400, 4_000_183, "Invalid request. The app account token field must be a valid UUID.") }
        let outcome = store.state.withLock { state -> HTTPResponse in
            guard var list = state.transactions[app.bundleId] else {
                return error(404, 4_040_005, "Original transaction id not found.")
            }
            let purchase = list.indices.filter { list[$0].originalTransactionId == original }
            guard !purchase.isEmpty else {
                // A later transaction's id names the purchase, but not as Apple asks.
                return list.contains { $0.transactionId == original }
                    ? error(400, 4_000_187, "Invalid request. The transaction id is not an original transaction id.")
                    : error(404, 4_040_005, "Original transaction id not found.")
            }
            if purchase.contains(where: { list[$0].payload["inAppOwnershipType"]?.stringValue == "FAMILY_SHARED" }) {
                return error(400, 4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
            }
            for index in purchase { list[index].payload["appAccountToken"] = .string(token.lowercased()) }
            state.transactions[app.bundleId] = list
            return HTTPResponse(status: 200)
        }
        return outcome
    }

    // MARK: - Helpers

    static func find(_ id: String, in transactions: [Transaction]) -> Transaction? {
        transactions.last { $0.transactionId == id } ?? transactions.last { $0.originalTransactionId == id }
    }

    /// The `productType` query value of a transaction's `type`.
    static func queryType(of transaction: Transaction) -> String {
        switch transaction.payload["type"]?.stringValue {
        case "Auto-Renewable Subscription": "AUTO_RENEWABLE"
        case "Non-Renewing Subscription": "NON_RENEWABLE"
        case "Consumable": "CONSUMABLE"
        case "Non-Consumable": "NON_CONSUMABLE"
        default: ""
        }
    }

    /// A page of `rows` from the offset `revision` names ("" or nil for the first).
    static func page<Row>(
        _ rows: [Row], revision: String?, store: SimulatedAppStore,
        _ body: ([Row], String, Bool) throws -> [String: JSONValue]
    ) -> HTTPResponse {
        guard let offset = offset(of: revision, prefix: "r", count: rows.count) else {
            return error(400, 4_000_005, "Invalid request revision.")
        }
        let end = min(rows.count, offset + AppStoreServerAPISimulator.pageSize)
        return signed { try body(Array(rows[offset..<end]), "r\(end)", end < rows.count) }
    }

    /// A page of transactions sorted by change (`order`), from after the one `revision` names
    /// (`o` and its order; "" or nil for the first): a cursor, not an offset, so that a row
    /// changed between pages moves to the end instead of shifting the others past a page.
    static func pageByChange(
        _ rows: [Transaction], revision: String?, descending: Bool,
        _ body: ([Transaction], String, Bool) throws -> [String: JSONValue]
    ) -> HTTPResponse {
        var rest = rows
        if let revision, !revision.isEmpty {
            guard revision.first == "o", let after = Int(revision.dropFirst()) else {
                return error(400, 4_000_005, "Invalid request revision.")
            }
            rest = rows.filter { descending ? $0.order < after : $0.order > after }
        }
        let rows = Array(rest.prefix(AppStoreServerAPISimulator.pageSize))
        let next = rows.last.map { "o\($0.order)" } ?? revision ?? "o0"
        return signed { try body(rows, next, rest.count > rows.count) }
    }

    /// The row a paging token (`r20`, `p40`: `prefix` and an offset) stands for: 0 for none, nil
    /// for a token this server did not give.
    static func offset(of token: String?, prefix: Character, count: Int) -> Int? {
        guard let token, !token.isEmpty else { return 0 }
        guard token.first == prefix, let number = Int(token.dropFirst()), (0...count).contains(number) else { return nil }
        return number
    }

    /// A 200 with the JSON `body` makes; a 500 if signing fails.
    static func signed(_ body: () throws -> [String: JSONValue]) -> HTTPResponse {
        do {
            return .json(Data(JSONValue.object(try body()).serialized().utf8))
        } catch {
            return self.error(500, 5_000_000, "An unknown error occurred.")
        }
    }

    static func error(_ status: Int, _ code: Int64, _ message: String) -> HTTPResponse {
        .json(
            Data(JSONValue.object(["errorCode": .integer(code), "errorMessage": .string(message)]).serialized().utf8),
            status: status)
    }
}
