import Foundation
import HTTP
import JSON
import Storage
import Threads

extension SubscribersAPI {
    /// RevenueCat's `POST /v1/receipts` (either key), as its SDKs post a purchase, a restore or a
    /// sync in StoreKit 2 mode: `app_user_id`; `fetch_token`, the transaction's
    /// `jwsRepresentation` (or, for StoreKit testing in Xcode, the SDK's base64 JSON whose
    /// `transactions` are such JWS); `app_transaction`, the `AppTransaction`'s JWS; and
    /// `attributes`, the subscriber attributes not synced yet; `presented_offering_identifier`,
    /// the offering a purchase was made from (for `product_id`'s transactions). Each transaction is posted for the
    /// customer as `POST /v1/subscribers/{id}/transactions` posts it, then for a restore the
    /// Apple account's other purchases (`restoreAccount`), then the app transaction, then the
    /// attributes; the answer is the customer as `GET` shows it. A StoreKit 1 receipt,
    /// which only Apple's retired verifyReceipt can read, is refused (RevenueCat's 7103), as is
    /// any other body (7226), before anything is stored.
    ///
    /// The first step refused ends the request with its answer; the steps before it stay done
    /// (each is a post the app may repeat: the same transaction posted again changes nothing). Keys
    /// RevenueCat's attribute rules refuse do not fail the purchase: the valid ones are saved.
    package func postReceipt(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request), let verifier = verifiers[app.id] else {
            return reply(APIKeys.unauthorized)
        }
        let receipt: PostedReceipt
        switch PostedReceipt.read(request.body, defaultTimeMs: UnixTime.milliseconds(clock())) {
        case .failure(let refusal): return reply(refusal.response)
        case .success(let read): receipt = read
        }
        let appUserId = receipt.appUserId
        if let refused = AppUserIdRule.refusal(appUserId, access: access) { return reply(refused) }
        var steps: [Step] = receipt.transactions.map { signed in
            { [self] next in
                link(
                    signed, app: app, verifier: verifier, appUserId: appUserId, access: access, offering: receipt.offering
                ) { next($0) }
            }
        }
        if receipt.isRestore, !receipt.transactions.isEmpty {
            steps.append { [self] next in
                restoreAccount(
                    of: receipt.transactions, app: app, verifier: verifier, appUserId: appUserId, access: access
                ) { next(nil) }
            }
        }
        if let signed = receipt.appTransaction {
            steps.append { [self] next in
                postAppTransaction(signed, app: app, verifier: verifier, appUserId: appUserId, access: access) { next($0) }
            }
        }
        if let attributes = receipt.attributes {
            var asked = request
            asked.body = Data(JSONValue.object(["attributes": .object(attributes)]).serialized().utf8)
            asked.pathParameters = ["app_user_id": appUserId]
            let posted = asked
            steps.append { [self] next in
                // Keys RevenueCat's rules refuse (7263) were left out and the others saved.
                setAttributes(posted) { answer in next(RevenueCatError.partlySavedAttributes(answer) ? nil : answer) }
            }
        }
        run(steps[...], reply: reply) { [self] in
            // Get or create, as GET; RevenueCat answers a receipt 200 either way.
            answerMakingUnknown(appUserId, app: app, access: access, contact: access == .publishable) { answer in
                var answer = answer
                if answer.status == 201 { answer.status = 200 }
                reply(answer)
            }
        }
    }

    /// One step of a receipt: its answer, or nil to go on as if it succeeded.
    typealias Step = @Sendable (_ next: @escaping @Sendable (HTTPResponse?) -> Void) -> Void

    /// Runs `steps` in turn; the first that answers an error is the reply, else `finish` runs.
    func run(
        _ steps: ArraySlice<Step>, reply: @escaping @Sendable (HTTPResponse) -> Void,
        finish: @escaping @Sendable () -> Void
    ) {
        guard let step = steps.first else { return finish() }
        let rest = Array(steps.dropFirst())
        step { [self] answer in
            if let answer, answer.status >= 300 { return reply(answer) }
            run(rest[...], reply: reply, finish: finish)
        }
    }
}
