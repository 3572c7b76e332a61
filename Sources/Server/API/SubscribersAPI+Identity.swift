import AppStore
import Foundation
import HTTP
import JSON
import Storage
import Subscriptions
import Threads

extension SubscribersAPI {
    /// `DELETE /v1/subscribers/{id}` (secret key): a data-deletion request. The customer's identity
    /// (its row, its aliases) is erased and its purchases are left with no owner; the deletion is
    /// an input of its own, so `replay` erases it again. `{"app_user_id": id, "deleted": true}`, as RevenueCat
    /// answers; 404 for a customer nobody knows.
    package func delete(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, _) = secretKeyApp(request, reply: reply) else { return }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: .secret, reaching: true) { return reply(refused) }
        guard case .found = answerSubscriber(appUserId, app: app, access: .secret) else {
            return reply(.error(status: 404, code: "not_found", message: "no customer \(appUserId)"))
        }
        let atMs = UnixTime.milliseconds(clock())
        apply(.deleted(appUserId: appUserId), app: app, atMs: atMs, access: .secret, reply: reply) {
            .json(Data(JSONValue.object(["app_user_id": .string(appUserId), "deleted": .bool(true)]).serialized().utf8))
        }
    }

    /// `POST /v1/subscribers/{id}/alias` `{"new_app_user_id": ...}` (either key): the two ids are
    /// one customer from now on. An anonymous id joins the identified one; otherwise the new id
    /// joins the customer of the path, with what it owns (no TRANSFER). Answers the customer.
    package func alias(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request) else { return reply(APIKeys.unauthorized) }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        guard let body = try? JSONValue(parsingWithoutRepeatedNames: request.body),
            let newId = body["new_app_user_id"]?.stringValue, !newId.isEmpty, !appUserId.isEmpty
        else {
            return reply(
                .error(
                    status: 400, code: "bad_request",
                    message: BodyShape.refusal(request.body, shape: #"the body must be {"new_app_user_id": "<app user id>"}"#)))
        }
        if let refused = AppUserIdRule.refusal(appUserId, access: access)
            ?? AppUserIdRule.refusal(newId, access: access, name: "new_app_user_id")
        {
            return reply(refused)
        }
        // The public key ships in every copy of the app: with it, two identified customers may be
        // joined only when the one that joins owns nothing (RevenueCat's logIn merges no more).
        if access == .publishable, let refused = publicAliasRefusal(appUserId, newId, app: app) { return reply(refused) }
        let atMs = UnixTime.milliseconds(clock())
        let action = CustomerAction.aliased(appUserId: appUserId, newAppUserId: newId)
        // The cap is checked in the write, against the customers as they are there: requests at
        // once cannot each pass a check made before the other's write.
        let refused = Locked(false)
        apply(
            app: app, atMs: atMs, access: access, reply: reply,
            keeping: { rows in
                let over = CustomerIdCap.refusesJoining(
                    try CustomerRows.customer(named: appUserId, appId: app.id, from: rows), named: appUserId,
                    try CustomerRows.customer(named: newId, appId: app.id, from: rows), otherNamed: newId)
                refused.withLock { $0 = over }
                return over ? nil : action
            },
            answer: {
                guard !refused.value else {
                    return .error(
                        status: 400, code: "cannot_alias",
                        message: "a customer is known by at most \(CustomerIdCap.maximumIds) ids; joining these would pass it")
                }
                return answerSubscriber(newId, app: app, access: access).response
            })
    }

    /// `POST /v1/subscribers/identify` `{"app_user_id", "new_app_user_id"}` (either key): the
    /// SDK's `logIn`, from its current id to the one given. Merges as RevenueCat's `logIn` does
    /// (`Ledger.logIn`: an anonymous customer into an identified one that is new or has no
    /// anonymous id yet; otherwise nothing merges). Answers the customer logged in to: 201 when
    /// the request made it, 200 when it was known, as the SDK reads "created".
    package func identify(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request) else { return reply(APIKeys.unauthorized) }
        guard let body = try? JSONValue(parsingWithoutRepeatedNames: request.body),
            let appUserId = body["app_user_id"]?.stringValue, let newId = body["new_app_user_id"]?.stringValue
        else {
            return reply(
                .error(
                    status: 400, code: "bad_request",
                    message: BodyShape.refusal(
                        request.body,
                        shape: #"the body must be {"app_user_id": "<current app user id>", "new_app_user_id": "<app user id>"}"#))
            )
        }
        if let refused = AppUserIdRule.refusal(appUserId, access: access, name: "app_user_id")
            ?? AppUserIdRule.refusal(newId, access: access, name: "new_app_user_id")
        {
            return reply(refused)
        }
        let atMs = UnixTime.milliseconds(clock())
        let created = Locked(false)
        store.write(
            { [cache] rows in
                created.withLock { $0 = false }
                let known = try CustomerRows.customer(named: newId, appId: app.id, from: rows) != nil
                try LedgerInputs.keepAndApply(
                    .customerAction(.loggedIn(appUserId: appUserId, newAppUserId: newId)), app: app.ledger, atMs: atMs,
                    cache: cache, in: rows)
                created.withLock { $0 = !known }
            },
            completion: { result in
                if case .failure(let error) = result { return reply(HTTPResponse.storageFailure(error, access: access)) }
                offWorker {
                    var answer = answerSubscriber(newId, app: app, access: access).response
                    if answer.status == 200, created.value { answer.status = 201 }
                    reply(answer)
                }
            })
    }

    /// Why the public key may not join these two ids, or nil when it may: both identified, and
    /// the one that would join the other (the new id) owns purchases or promotional grants. A
    /// customer that cannot be read refuses too (503): the check is not skipped.
    private func publicAliasRefusal(_ appUserId: String, _ newId: String, app: AppConfig) -> HTTPResponse? {
        let read: (kept: CustomerState?, joining: CustomerState?)
        do {
            read = try store.read { (rows) throws(StoreError) in
                try StoreError.decoding {
                    (
                        try CustomerRows.customer(named: appUserId, appId: app.id, from: rows),
                        try CustomerRows.customer(named: newId, appId: app.id, from: rows)
                    )
                }
            }
        } catch {
            return HTTPResponse.storageFailure(error, access: .publishable)
        }
        let keptId = read.kept?.appUserId ?? appUserId
        guard let joining = read.joining, !Ledger.isAnonymous(joining.appUserId), !Ledger.isAnonymous(keptId),
            joining.appUserId != keptId,
            !(joining.originalTransactionIds.isEmpty && joining.oneTimeTransactionIds.isEmpty
                && (joining.promotionalGrants ?? []).isEmpty)
        else { return nil }
        // Named as the caller named it: an alias does not tell the public key its customer's own id.
        return .error(
            status: 409, code: "cannot_alias",
            message: "\(newId) names another identified customer with purchases or grants: join them with the secret key")
    }
}

extension SubscribersAPI {
    /// `{"signedAppTransaction": ...}` posted for a customer: StoreKit's `AppTransaction`, verified
    /// as any signed data; its `originalApplicationVersion` and `originalPurchaseDate` become the
    /// customer's `original_application_version` and `original_purchase_date`. Answers the customer.
    package func postAppTransaction(
        _ signed: String, app: AppConfig, verifier: AppVerifiers, appUserId: String, access: APIKeys.Access,
        reply: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        let now = clock()
        let appTransaction: AppTransaction
        do {
            appTransaction = try verifier.strict.verifyAppTransaction(signed, now: now).payload
        } catch {
            return reply(VerificationRefusal.response(error, of: "signed app transaction"))
        }
        let atMs = UnixTime.milliseconds(now)
        let action = CustomerAction.appTransactionPosted(
            appUserId: appUserId, originalApplicationVersion: appTransaction.originalApplicationVersion,
            originalPurchaseDateMs: appTransaction.originalPurchaseDate)
        apply(action, app: app, atMs: atMs, answering: appUserId, access: access, reply: reply)
    }
}
