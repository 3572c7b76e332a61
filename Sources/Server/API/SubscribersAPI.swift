import AppStore
import AppStoreServerAPI
import Foundation
import HTTP
import JSON
import Storage
import Subscriptions
import Threads

/// `GET /v1/subscribers/{app_user_id}` and `POST /v1/subscribers/{app_user_id}/transactions`.
///
/// https://www.revenuecat.com/docs/api-v1 (the v1 subscriber shape RevenueDot stays compatible with)
package struct SubscribersAPI: Sendable {
    package let keys: APIKeys
    package let verifiers: [String: AppVerifiers]
    package let store: Store
    /// What the store keeps decoded (`LedgerCache`), shared with ingest.
    package var cache: LedgerCache?
    package let clock: @Sendable () -> Date
    /// Asks Apple for a transaction the app names by its id; nil where there is no Apple.
    package var appleLookups: AppleTransactionLookups? = nil
    /// The app's last contact per customer (`last_seen`); nil keeps none.
    package var contacts: CustomerContacts? = nil
    /// Threads for work that waits on storage, off the HTTP workers and Dispatch's shared pool
    /// (`WorkerPool`); Dispatch's when nil.
    package var work: WorkerPool? = nil

    /// Which HTTP workers may read a customer themselves (`subscriber`); all when nil.
    package var inlineReads: InlineReads? = nil

    /// Runs `body` where work that waits on storage runs (`work`).
    func offWorker(_ body: @escaping @Sendable () -> Void) {
        if let work { work.submit(body) } else { DispatchQueue.global().async(execute: body) }
    }

    /// What this customer has now (found by its id or an alias); an unknown customer is created
    /// first, as RevenueCat creates it: 201 then, 200 after. A request with the public key (the
    /// app) or with RevenueCat's `X-Platform` header is a contact: `last_seen`. `HEAD` (a probe,
    /// `curl -I`) changes nothing: no contact, and an unknown customer is 404, not made.
    package func subscriber(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request) else { return reply(APIKeys.unauthorized) }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: access, reaching: true) { return reply(refused) }
        let looking = request.method == "HEAD"
        let contact = !looking && (access == .publishable || request.header("X-Platform") != nil)
        readInline { [self] in
            answerMakingUnknown(appUserId, app: app, access: access, contact: contact, looking: looking, reply: reply)
        }
    }

    /// Runs `answering`, a read of storage, on this HTTP worker while others are free
    /// (`InlineReads`), else on the storage pool (`offWorker`).
    func readInline(_ answering: @escaping @Sendable () -> Void) {
        guard let inlineReads else { return answering() }
        guard inlineReads.begin() else { return offWorker(answering) }
        answering()
        inlineReads.end()
    }

    /// The customer as `GET` shows it, made first (201) when unknown; `looking` (`HEAD`) makes
    /// nobody and answers 404.
    package func answerMakingUnknown(
        _ appUserId: String, app: AppConfig, access: APIKeys.Access, contact: Bool, looking: Bool = false,
        reply: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        let answer = answerSubscriber(appUserId, app: app, access: access, contact: contact)
        if case .found(_, madeByTracking: true) = answer, contact, !looking {
            // The app's first contact with a customer tracking made from a token: the app's now,
            // one restoreBehavior keeps purchases with (`CustomerState.madeByTracking`).
            return apply(
                .seen(appUserId: appUserId), app: app, atMs: UnixTime.milliseconds(clock()), answering: appUserId,
                access: access, reply: reply)
        }
        guard case .unknown = answer, !looking else { return reply(answer.response) }
        // A customer is made only under an id the rules take today, whichever the key.
        if let refused = AppUserIdRule.refusal(appUserId, access: access) { return reply(refused) }
        let atMs = UnixTime.milliseconds(clock())
        apply(
            .seen(appUserId: appUserId), app: app, atMs: atMs, answering: appUserId, access: access, status: 201,
            reply: reply)
    }

    /// What `GET` answers for a customer, or that it is unknown.
    package enum SubscriberAnswer {
        /// `madeByTracking`: tracking made the customer from a token, and the app has not acted as it yet.
        case found(HTTPResponse, madeByTracking: Bool = false)
        case unknown
        case failed(HTTPResponse)

        package var response: HTTPResponse {
            switch self {
            case .found(let response, _), .failed(let response): response
            case .unknown: .error(status: 404, code: "not_found", message: "no such customer")
            }
        }
    }

    /// The customer as `GET` shows it now, answered with `access` (a public key records a contact).
    /// `contact`: whether the request is the app's (RevenueCat's `last_seen`): by default one made
    /// with the public key; `GET` also counts one with `X-Platform`, as RevenueCat does.
    package func answerSubscriber(_ appUserId: String, app: AppConfig, access: APIKeys.Access, contact: Bool? = nil)
        -> SubscriberAnswer
    {
        do {
            let found = try store.read { (rows) throws(StoreError) in
                try StoreError.decoding(stateOf: appUserId) {
                    try LedgerRows.customerView(appUserId, app: app.ledger, from: rows)
                }
            }
            guard let found else { return .unknown }
            let now = clock()
            let id = found.customer.appUserId
            if contact ?? (access == .publishable) {
                contacts?.record(appId: app.id, appUserId: id, atMs: UnixTime.milliseconds(now))
            }
            let lastSeen = [contacts?.unwritten(appId: app.id, appUserId: id), found.lastSeenMs].compactMap { $0 }.max()
            let body = SubscriberInfo.body(
                for: id, customer: found.customer, purchases: found.purchases, entitlements: app.entitlements,
                displayNames: app.productDisplayNames, lastSeenMs: lastSeen, showsAttributes: access == .secret,
                sandboxGrants: app.sandboxAccess.grants(found.customer, appUserId: id), at: now)
            return .found(.json(Data(body)), madeByTracking: found.customer.madeByTracking == true)
        } catch {
            return .failed(HTTPResponse.storageFailure(error, access: access))
        }
    }

    /// Links a StoreKit 2 transaction (its `jwsRepresentation`) to the customer, applies it, and
    /// answers with the customer as `GET` would. Deferred: the worker verifies, then serves other
    /// connections while the commit is on its way; the answer is read once the commit is on disk,
    /// off the store's flusher thread.
    package func postTransaction(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request), let verifier = verifiers[app.id] else {
            return reply(APIKeys.unauthorized)
        }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: access) { return reply(refused) }
        // A name given twice is refused with every other body that is not one of the three.
        let body = try? JSONValue(parsingWithoutRepeatedNames: request.body)
        if let signed = body?["signedTransaction"]?.stringValue {
            var offering: PresentedOffering?
            switch PresentedOffering.read(body?["presentedOfferingId"], name: "presentedOfferingId") {
            case .none: break
            case .offering(let id): offering = PresentedOffering(id: id)
            case .refused(let problem): return reply(.error(status: 400, code: "bad_request", message: problem))
            }
            return link(
                signed, app: app, verifier: verifier, appUserId: appUserId, access: access, offering: offering, reply: reply)
        }
        if let signed = body?["signedAppTransaction"]?.stringValue {
            return postAppTransaction(signed, app: app, verifier: verifier, appUserId: appUserId, access: access, reply: reply)
        }
        if let transactionId = body?["transactionId"]?.stringValue {
            return linkById(transactionId, app: app, verifier: verifier, appUserId: appUserId, access: access, reply: reply)
        }
        reply(
            .error(
                status: 400, code: "bad_request",
                message: BodyShape.refusal(
                    request.body,
                    shape:
                        #"the body must be {"signedTransaction": "<jwsRepresentation>"}, {"transactionId": "<id>"} or {"signedAppTransaction": "<AppTransaction jwsRepresentation>"}"#
                )))
    }

    /// Verifies the signed transaction, links it to the customer and applies it.
    ///
    /// `allowTransfer` false refuses (409) a purchase another customer owns: a transaction id
    /// proves nothing about who holds the purchase, a signed transaction from the device does.
    /// A purchase the app's `restoreBehavior` keeps with another customer is applied but not
    /// linked: 409, as RevenueCat answers. `offering`: the offering the app says it sold the
    /// purchase from, kept with it when it is this transaction's.
    package func link(
        _ signed: String, app: AppConfig, verifier: AppVerifiers, appUserId: String, access: APIKeys.Access,
        allowTransfer: Bool = true, offering: PresentedOffering? = nil, reply: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        let now = clock()
        let verified: VerifiedPayload<JWSTransactionDecodedPayload>
        do {
            verified = try verifier.strict.verifyTransaction(signed, now: now)
        } catch {
            return reply(VerificationRefusal.response(error, of: "signed transaction"))
        }
        let transaction = verified.payload
        // Signed, but nothing to link: a purchase is known by these (it was answered 200 and linked nothing).
        for (name, value) in [
            ("transactionId", transaction.transactionId), ("originalTransactionId", transaction.originalTransactionId),
        ] where value?.isEmpty ?? true {
            return reply(
                .error(status: 422, code: "invalid_transaction", message: "the signed transaction has no \(name)"))
        }
        let atMs = UnixTime.milliseconds(now)
        let digest: String
        do { digest = try PostedTransactionRows.contentDigest(verified.json) } catch {
            return reply(.error(status: 400, code: "bad_request", message: "the signed transaction is not a JSON object"))
        }
        let refusal = Locked<HTTPResponse?>(nil)
        store.write(
            { transactionRows in
                if !allowTransfer,
                    let refused = try Self.refusalByIdOnly(
                        transaction, app: app, appUserId: appUserId, access: access, rows: transactionRows)
                {
                    refusal.withLock { $0 = refused }
                    return
                }
                let applied = try LedgerInputs.keepAndApply(
                    .postedTransaction(
                        transaction, signed: signed, appUserId: appUserId, digest: digest,
                        presentedOfferingId: offering?.id(for: transaction)),
                    app: app.ledger, atMs: atMs, cache: cache, in: transactionRows)
                if let applied {
                    if applied.linkKeptWith != nil { refusal.withLock { $0 = Self.keptWithOriginal } }
                    return
                }
                // The same post again changes nothing; it is answered as the first was, by who
                // owns the purchase now.
                let customer = try CustomerRows.customerId(of: appUserId, appId: app.id, from: transactionRows)
                if let owner = try Self.owner(of: transaction, app: app, from: transactionRows), owner != customer {
                    refusal.withLock { $0 = Self.keptWithOriginal }
                }
            },
            completion: { result in
                if case .failure(let error) = result { return reply(HTTPResponse.storageFailure(error, access: access)) }
                if let refused = refusal.value { return reply(refused) }
                offWorker { reply(answerSubscriber(appUserId, app: app, access: access).response) }
            })
    }

    /// Why a purchase named by its id alone may not be linked to `appUserId`: another customer
    /// owns it, or it was bought for another account (its `appAccountToken`, which the app set
    /// at purchase, names someone else). Nil when it may.
    ///
    /// An id is no secret (Apple's are near one another): with the public key, which every copy
    /// of the app holds, it links only a purchase the customer owns already or one whose token
    /// names it; a purchase nobody owns and no token names, only with the secret key (the app's
    /// backend, which knows its user). Else anyone could claim the purchases RevenueDot has not
    /// linked yet, and `restoreBehavior` would then keep them from their buyers.
    package static func refusalByIdOnly(
        _ transaction: JWSTransactionDecodedPayload, app: AppConfig, appUserId: String, access: APIKeys.Access,
        rows: some RowReader
    ) throws -> HTTPResponse? {
        if let owner = try owner(of: transaction, app: app, from: rows) {
            guard owner != (try CustomerRows.customerId(of: appUserId, appId: app.id, from: rows)) else { return nil }
            return .error(
                status: 409, code: "owned_by_another_customer",
                message:
                    "this purchase belongs to another customer: post the signed transaction (jwsRepresentation) from the device to move it"
            )
        }
        if let token = transaction.appAccountToken, !token.isEmpty {
            guard token.lowercased() == appUserId.lowercased() else {
                return .error(
                    status: 409, code: "bought_for_another_account",
                    message:
                        "this purchase carries another appAccountToken: post the signed transaction from the device to link it")
            }
            return nil
        }
        guard access == .secret else {
            return .error(
                status: 403, code: "signed_transaction_required",
                message:
                    "a purchase nobody owns is linked by its id alone with the secret key only: post the signed transaction (jwsRepresentation) from the device"
            )
        }
        return nil
    }

    /// The answer to a post of a purchase `restoreBehavior` keeps with the customer who owns it.
    package static let keptWithOriginal = HTTPResponse.error(
        status: 409, code: "receipt_already_in_use",
        message: "this purchase belongs to another customer, and the app's restoreBehavior keeps it with them")

    /// Who owns the purchase of `transaction` now, nil when nobody does.
    package static func owner(of transaction: JWSTransactionDecodedPayload, app: AppConfig, from rows: some RowReader) throws
        -> String?
    {
        let input = Ledger.Input.transactionPosted(transaction, appUserId: "")
        let ledger = try LedgerRows.slice(for: input, app: app.ledger, from: rows).ledger
        switch input.purchaseKey {
        case .subscription(let id)?: return ledger.subscriptions[id]?.journal.ownerAppUserId
        case .oneTime(let id)?: return ledger.oneTimePurchases[id]?.journal.ownerAppUserId
        case nil: return nil
        }
    }
}
