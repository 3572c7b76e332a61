import AdvancedCommerce
import AppStore
import Foundation
import Storage
import Subscriptions
import Threads

/// Preparing an Advanced Commerce in-app request for a customer: Apple's rules on the request,
/// then (for a modify) the customer's live subscription, then the signature. Shared by
/// `POST /v1/advanced-commerce/{appId}/requests` and `revenuedot commerce validate|sign`.
package struct CommerceRequests: Sendable {
    package let app: AppConfig
    /// Where the customer's live subscriptions are read: the store, or a reader (a command
    /// validating beside a running server).
    package let reads: any ReadsStore
    package let clock: @Sendable () -> Date

    package init(app: AppConfig, reads: any ReadsStore, clock: @escaping @Sendable () -> Date) {
        (self.app, self.reads, self.clock) = (app, reads, clock)
    }

    package enum Outcome {
        /// Valid; `token` and `stored` only when signing was asked for.
        case valid(InAppRequest, token: String?)
        case invalid([ValidationError])
    }

    package enum Failure: Error, CustomStringConvertible {
        case noKey(String)
        case storage(String)
        package var description: String {
            switch self {
            case .noKey(let app): "app \"\(app)\" has no inAppPurchaseKey to sign with"
            case .storage(let message): message
            }
        }
    }

    /// Validates `json` for `appUserId`; with a store to sign into, signs it and records it there
    /// as `pending`. A missing `requestInfo.requestReferenceId` is generated; a given one is
    /// signed as given (Apple echoes it in the transaction) and kept under its lower case (a UUID
    /// in either case names one request, so no case can use it twice).
    package func prepare(_ json: Data, for appUserId: String, signingInto store: Store?) throws -> Outcome {
        var request: InAppRequest
        do throws(ValidationError) {
            request = try InAppRequest(json: json)
        } catch {
            return .invalid([error])
        }
        let given = request.requestReferenceId ?? UUID().uuidString.lowercased()
        request.requestReferenceId = given
        // The key it is stored and found under.
        let reference = given.lowercased()
        var errors = request.validationErrors()
        let nowMs = UnixTime.milliseconds(clock())
        let (live, earlier) = try liveState(of: appUserId, atMs: nowMs, reference: reference)
        let used: Set<String> = earlier == nil ? [] : [request.requestReferenceId ?? ""]
        switch request {
        case .modifySubscription(let modify):
            let checked = LiveValidator.validate(modify, subscriptions: live, usedRequestReferenceIds: used)
            request = .modifySubscription(checked.request)
            errors += checked.errors
        case .reactivateSubscription(let reactivate):
            let checked = LiveValidator.validate(reactivate, subscriptions: live, usedRequestReferenceIds: used)
            request = .reactivateSubscription(checked.request)
            errors += checked.errors
        case .createSubscription(let create):
            let checked = LiveValidator.validate(create, subscriptions: live, usedRequestReferenceIds: used)
            request = .createSubscription(checked.request)
            errors += checked.errors
        case .oneTimeCharge:
            errors += LiveValidator.repeatedReference(request.requestReferenceId, used: used)
        }
        // A retry of a request already signed and still pending (its answer was lost, or the
        // customer dismissed the payment sheet): the same customer and the same request, filled
        // in the same way, get it signed again, dated now, as Apple dates a token's life from `iat`.
        if let earlier, !errors.isEmpty,
            errors.allSatisfy({ $0.code == AdvancedCommerceErrorCode.repeatedRequestReferenceId.code }),
            Self.isRetry(earlier, of: String(decoding: try request.json(), as: UTF8.self), for: appUserId)
        {
            return .valid(request, token: store == nil ? nil : try signed(request))
        }
        guard errors.isEmpty else { return .invalid(errors) }
        guard let store else { return .valid(request, token: nil) }
        let token = try signed(request)
        guard try record(request, under: reference, token: token, for: appUserId, atMs: nowMs, into: store) else {
            return .invalid([ValidationError(.repeatedRequestReferenceId, field: "requestInfo.requestReferenceId")])
        }
        return .valid(request, token: token)
    }

    /// `request` signed now with the app's In-App Purchase key.
    private func signed(_ request: InAppRequest) throws -> String {
        guard let key = app.inAppPurchaseKey else { throw Failure.noKey(app.id) }
        let signer = try InAppRequestSigner(key: key.privateKey, keyId: key.keyId, issuerId: key.issuerId, bundleId: app.bundleId)
        return try request.sign(with: signer, at: clock())
    }

    /// The customer's Advanced Commerce subscriptions, and the request signed under `reference`
    /// if the app already used it (one indexed lookup; the insert's conflict check catches a race
    /// between two requests).
    private func liveState(of appUserId: String, atMs nowMs: Int64, reference: String?) throws -> (
        [LiveSubscription], StoredCommerceRequest?
    ) {
        let app = app
        do {
            return try reads.read { (rows) throws(StoreError) -> ([LiveSubscription], StoredCommerceRequest?) in
                let ledger = try StoreError.decoding(stateOf: appUserId) {
                    try LedgerRows.customerSlice(appUserId, app: app.ledger, from: rows)
                }
                let live = ledger.subscriptions.values.compactMap { state -> LiveSubscription? in
                    guard state.journal.ownerAppUserId == ledger.customerId(appUserId), let info = state.advancedCommerce else {
                        return nil
                    }
                    let items = (info.items ?? []).filter { $0.revocationDate == nil }
                    return LiveSubscription(
                        transactionIds: state.knownTransactionIds.union([state.originalTransactionId]),
                        items: items.compactMap(\.sku),
                        consistencyToken: state.renewalAdvancedCommerce?.consistencyToken,
                        isActive: state.hasAccess(atMs: nowMs), autoRenews: state.autoRenewEnabled ?? true,
                        isPurchased: state.ownershipType != .familyShared,
                        currency: state.currentTransaction?.currency,
                        prices: Dictionary(items.compactMap { item in item.sku.flatMap { sku in item.price.map { (sku, $0) } } })
                        {
                            first, _ in first
                        },
                        offered: Set(items.filter { $0.offer != nil }.compactMap(\.sku)),
                        renewingItems: state.renewalAdvancedCommerce?.items.map { $0.compactMap(\.sku) })
                }
                guard let reference else { return (live, nil) }
                return (live, try CommerceRequestRows.find(appId: app.id, reference: reference, from: rows))
            }
        } catch {
            throw Failure.storage("\(error)")
        }
    }

    /// Whether `requestJSON` for `appUserId` is `stored` sent again (its answer lost, or sent
    /// twice at once): still pending, the same customer, the same request filled in the same way.
    private static func isRetry(_ stored: StoredCommerceRequest, of requestJSON: String, for appUserId: String) -> Bool {
        stored.isPending && stored.appUserId == appUserId && stored.requestJSON == requestJSON
    }

    /// Stores a signed request as pending; whether `token` may be answered: true also when the
    /// same request for the same customer was stored meanwhile under `reference` (a retry sent at
    /// once, to this node or another), false when another request took it.
    private func record(
        _ request: InAppRequest, under reference: String, token: String, for appUserId: String, atMs nowMs: Int64,
        into store: Store
    ) throws -> Bool {
        let json = String(decoding: try request.json(), as: UTF8.self)
        let stored = StoredCommerceRequest(
            appUserId: appUserId, operation: request.operation.rawValue, requestJSON: json, token: token, createdAtMs: nowMs)
        let appId = app.id
        let answered = Locked(false)
        do {
            try store.write { transaction in
                if try CommerceRequestRows.insertPending(stored, appId: appId, reference: reference, in: transaction) {
                    answered.withLock { $0 = true }
                } else if let winner = try CommerceRequestRows.find(appId: appId, reference: reference, from: transaction),
                    Self.isRetry(winner, of: json, for: appUserId)
                {
                    answered.withLock { $0 = true }
                }
            }
        } catch {
            throw Failure.storage("\(error)")
        }
        return answered.withLock { $0 }
    }
}
