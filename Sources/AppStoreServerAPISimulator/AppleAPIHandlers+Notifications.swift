import AppStore
import AppStoreServerAPI
import Crypto
import Foundation
import HTTP
import JSON

extension AppleAPIHandlers {
    /// Notification history reaches back 180 days in Production, 30 in Sandbox.
    static func historyWindowDays(_ environment: AppStoreEnvironment) -> Int64 { environment == .production ? 180 : 30 }

    static func notificationHistory(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        guard let body = try? JSONValue(parsing: request.body), case .object = body else {
            return error(400, 4_000_000, "Bad request.")
        }
        guard case .integer(let start) = body["startDate"] else { return error(400, 4_000_015, "Invalid start date.") }
        guard case .integer(let end) = body["endDate"] else { return error(400, 4_000_016, "Invalid end date.") }
        let now = store.nowMs
        guard start >= now - historyWindowDays(app.environment) * 86_400_000 else {
            return error(400, 4_000_012, "Invalid request. The start date is earlier than the allowed start date.")
        }
        guard start < end else { return error(400, 4_000_013, "Invalid request. The end date precedes the start date.") }
        let type = body["notificationType"]?.stringValue
        let subtype = body["notificationSubtype"]?.stringValue
        let transactionId = body["transactionId"]?.stringValue
        // A subtype narrows a type: alone, or either of them unknown, it is refused.
        guard type.map({ NotificationTypeV2(rawValue: $0).isKnown }) ?? (subtype == nil),
            subtype.map({ Subtype(rawValue: $0).isKnown }) ?? true
        else { return error(400, 4_000_018, "Invalid request. The notification type or subtype is invalid.") }
        guard type == nil || transactionId == nil else {
            return error(400, 4_000_019, "Invalid request. Supply either a transaction id or a notification type.")
        }
        let onlyFailures = body["onlyFailures"] == .bool(true)
        let (all, transactions) = store.state.withLock { state in
            (state.notifications[app.bundleId] ?? [], state.transactions[app.bundleId] ?? [])
        }
        // Any transaction of a customer's names them: the history is of their whole account.
        var customer: Set<String> = []
        if let transactionId {
            customer.insert(transactionId)
            if let account = find(transactionId, in: transactions)?.account {
                for transaction in transactions where transaction.account == account {
                    customer.formUnion([transaction.transactionId, transaction.originalTransactionId].compactMap { $0 })
                }
            }
        }
        var sent = all
        sent = sent.filter { notification in
            notification.signedDate >= start && notification.signedDate < min(end, now + 1)
                && (!onlyFailures || !notification.delivered) && (type == nil || notification.type == type)
                && (subtype == nil || notification.subtype == subtype)
                && (transactionId == nil || !notification.transactionIds.isDisjoint(with: customer))
        }
        sent.sort { $0.signedDate < $1.signedDate }
        // A token goes with the body it was given for: another body is refused, as Apple does.
        let bodyMark = Digest.hex(Digest.sha256(request.body).prefix(8))
        var token = request.queryValues("paginationToken").first
        if let given = token, let dash = given.lastIndex(of: "-") {
            guard given[given.index(after: dash)...] == bodyMark else {
                return error(
                    400, 4_000_017,
                    "Invalid request. The pagination token is expired: send it with the body it was given for.")
            }
            token = String(given[..<dash])
        }
        guard let offset = offset(of: token, prefix: "p", count: sent.count) else {
            return error(400, 4_000_014, "Invalid pagination token.")
        }
        let pageEnd = min(sent.count, offset + AppStoreServerAPISimulator.pageSize)
        let hasMore = pageEnd < sent.count
        var answer: [String: JSONValue] = [
            "hasMore": .bool(hasMore),
            "notificationHistory": .array(
                sent[offset..<pageEnd].map { notification in
                    .object([
                        "signedPayload": .string(notification.signedPayload),
                        "sendAttempts": .array(notification.attempts.map(attemptJSON)),
                    ])
                }),
        ]
        if hasMore { answer["paginationToken"] = .string("p\(pageEnd)-\(bodyMark)") }
        return signed { answer }
    }

    static func attemptJSON(_ attempt: SendAttemptItem) -> JSONValue {
        .object([
            "attemptDate": attempt.attemptDate.map(JSONValue.integer) ?? .null,
            "sendAttemptResult": attempt.sendAttemptResult.map { .string($0.rawValue) } ?? .null,
        ])
    }

    /// Makes a TEST notification and, when the store has somewhere to deliver it, sends it there
    /// before answering (Apple sends it shortly after), keeping the attempt for its status and
    /// the notification in the history.
    static func requestTestNotification(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let now = store.nowMs
        let token = UUID().uuidString.lowercased() + "_" + String(now)
        let payload = SimulatedAppStore.notification("TEST", data: SimulatedAppStore.data(about: app))
        return signed {
            let signed = try store.sign(payload)
            var attempts: [SendAttemptItem] = []
            if let deliver = store.deliver {
                let result = deliver(app, signed)
                attempts = [SendAttemptItem(attemptDate: now, sendAttemptResult: result)]
                try store.addNotification(signed, bundleId: app.bundleId, delivered: result == .success, result: result)
            }
            store.state.withLock { $0.testNotifications[token] = (signed, attempts) }
            return ["testNotificationToken": .string(token)]
        }
    }

    static func testNotificationStatus(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let token = request.pathParameters["token"] ?? ""
        guard let test = store.state.withLock({ $0.testNotifications[token] }) else {
            return error(
                404, 4_040_008,
                "Either the test notification token is expired or the notification and status are not yet available.")
        }
        return self.signed {
            ["signedPayload": .string(test.signedPayload), "sendAttempts": .array(test.attempts.map(attemptJSON))]
        }
    }

    // MARK: - Changes

    /// Extends one subscription's current period: once per request identifier (a repeat gets
    /// the first answer), twice a year at most, an active subscription bought, not shared.
    static func extendRenewalDate(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let original = request.pathParameters["id"] ?? ""
        guard let body = try? JSONValue(parsing: request.body) else { return error(400, 4_000_000, "Bad request.") }
        if let refusal = extensionRefusal(body) { return refusal }
        guard case .integer(let days) = body["extendByDays"], case .string(let identifier) = body["requestIdentifier"] else {
            return error(400, 4_000_009, "Invalid extend by days value.")
        }
        let now = store.nowMs
        typealias Extended = (answer: [String: JSONValue], notice: ([String: JSONValue], [String: JSONValue]?)?)
        let outcome = store.state.withLock { state -> Result<Extended, Refusal> in
            let done = state.extensions[original] ?? []
            if let repeated = done.first(where: { $0.requestIdentifier == identifier }) {
                return .success((repeated.answer, nil))
            }
            guard var list = state.transactions[app.bundleId],
                let index = list.lastIndex(where: { $0.originalTransactionId == original && $0.payload["expiresDate"] != nil }),
                let expires = list[index].int("expiresDate")
            else { return .failure(Refusal(404, 4_040_005, "Original transaction id not found.")) }
            guard list[index].payload["inAppOwnershipType"]?.stringValue != "FAMILY_SHARED" else {
                return .failure(Refusal(403, 4_030_007, "Family-shared subscriptions cannot be extended."))
            }
            guard expires > now, list[index].payload["revocationDate"] == nil else {
                return .failure(Refusal(403, 4_030_004, "The subscription is not eligible for an extension."))
            }
            guard done.filter({ $0.at > now - 365 * 86_400_000 }).count < 2 else {
                return .failure(Refusal(403, 4_030_005, "The subscription has had the most extensions a year allows."))
            }
            let extended = expires + days * 86_400_000
            list[index].payload["expiresDate"] = .integer(extended)
            state.transactions[app.bundleId] = list
            let answer: [String: JSONValue] = [
                "originalTransactionId": .string(original),
                "webOrderLineItemId": list[index].payload["webOrderLineItemId"] ?? .null, "success": .bool(true),
                "effectiveDate": .integer(extended),
            ]
            state.extensions[original, default: []].append((identifier, now, answer))
            let renewal = SimulatedAppStore.extendRenewalInfo(&state, originalTransactionId: original, to: extended)
            return .success((answer, (list[index].payload, renewal)))
        }
        switch outcome {
        case .success(let extended):
            if extended.notice != nil {
                store.record?(
                    .extensionMade(
                        originalTransactionId: original, requestIdentifier: identifier, atMs: now, answer: extended.answer,
                        bundleId: app.bundleId, environment: app.environment))
            }
            return signed {
                // Apple tells the app's server too, as for an extension made any other way.
                // The extension is made: a notification that could not be signed does not undo it.
                if let (transaction, renewal) = extended.notice {
                    try? store.sendRenewalExtended(app: app, transaction: transaction, renewal: renewal)
                }
                return extended.answer
            }
        case .failure(let refusal): return error(refusal.status, refusal.code, refusal.message)
        }
    }

    /// An error answer decided under the store's lock, sent after it.
    struct Refusal: Error {
        var status: Int
        var code: Int64
        var message: String
        init(_ status: Int, _ code: Int64, _ message: String) { (self.status, self.code, self.message) = (status, code, message) }
    }

    static func massExtend(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        guard let body = try? JSONValue(parsing: request.body) else { return error(400, 4_000_000, "Bad request.") }
        if let refusal = extensionRefusal(body) { return refusal }
        guard case .string(let product) = body["productId"], case .string(let identifier) = body["requestIdentifier"],
            case .integer(let days) = body["extendByDays"]
        else { return error(400, 4_000_023, "Invalid product id.") }
        let now = store.nowMs
        let extended = store.state.withLock { state -> [([String: JSONValue], [String: JSONValue]?)]? in
            // A repeated request identifier extends nothing more.
            guard state.massExtensions[identifier] == nil else { return nil }
            var list = state.transactions[app.bundleId] ?? []
            var extended: [([String: JSONValue], [String: JSONValue]?)] = []
            // Each active subscription's current period: its latest transaction, of the product,
            // still running and not taken back (as one extension asks).
            var latest: [String: (index: Int, expires: Int64)] = [:]
            for index in list.indices {
                guard let original = list[index].originalTransactionId, let expires = list[index].int("expiresDate") else {
                    continue
                }
                if let kept = latest[original], kept.expires >= expires { continue }
                latest[original] = (index, expires)
            }
            for index in latest.values.map(\.index).sorted() where list[index].payload["productId"]?.stringValue == product {
                guard let expires = list[index].int("expiresDate"), expires > now, list[index].payload["revocationDate"] == nil
                else { continue }
                let date = expires + days * 86_400_000
                list[index].payload["expiresDate"] = .integer(date)
                let renewal = list[index].originalTransactionId.flatMap {
                    SimulatedAppStore.extendRenewalInfo(&state, originalTransactionId: $0, to: date)
                }
                extended.append((list[index].payload, renewal))
            }
            state.transactions[app.bundleId] = list
            state.massExtensions[identifier] = (product, Int64(extended.count), now)
            return extended
        }
        if let extended {
            store.record?(
                .massExtensionMade(
                    requestIdentifier: identifier, productId: product, count: Int64(extended.count), atMs: now,
                    bundleId: app.bundleId, environment: app.environment))
        }
        return signed {
            // Apple's RENEWAL_EXTENDED for each subscription, then the RENEWAL_EXTENSION summary.
            // The extensions are made: a notification that cannot be signed does not undo them.
            if let extended {
                for (transaction, renewal) in extended {
                    try? store.sendRenewalExtended(app: app, transaction: transaction, renewal: renewal)
                }
                try? store.send(
                    "RENEWAL_EXTENSION", subtype: "SUMMARY", app: app,
                    summary: [
                        "requestIdentifier": .string(identifier), "environment": .string(app.environment.rawValue),
                        "appAppleId": app.appAppleId.map(JSONValue.integer) ?? .null, "bundleId": .string(app.bundleId),
                        "productId": .string(product), "storefrontCountryCodes": body["storefrontCountryCodes"] ?? .array([]),
                        "succeededCount": .integer(Int64(extended.count)), "failedCount": .integer(0),
                    ])
            }
            return ["requestIdentifier": .string(identifier)]
        }
    }

    static func massExtendStatus(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let identifier = request.pathParameters["requestIdentifier"] ?? ""
        let product = request.pathParameters["productId"] ?? ""
        guard let done = store.state.withLock({ $0.massExtensions[identifier] }), done.productId == product else {
            return error(404, 4_040_009, "Invalid request. The request identifier was not found.")
        }
        return signed {
            [
                "requestIdentifier": .string(identifier), "complete": .bool(true), "completeDate": .integer(done.at),
                "succeededCount": .integer(done.count), "failedCount": .integer(0),
            ]
        }
    }

    /// Apple's checks of an extension request's days, reason and identifier.
    static func extensionRefusal(_ body: JSONValue) -> HTTPResponse? {
        guard case .integer(let days) = body["extendByDays"], (1...90).contains(days) else {
            return error(400, 4_000_009, "Invalid extend by days value.")
        }
        guard case .integer(let reason) = body["extendReasonCode"], (0...3).contains(reason) else {
            return error(400, 4_000_010, "Invalid extend reason code.")
        }
        guard case .string(let identifier) = body["requestIdentifier"], !identifier.isEmpty, identifier.count <= 128 else {
            return error(400, 4_000_011, "Invalid request identifier.")
        }
        return nil
    }
}
