import AppStore
import Foundation
import HTTP
import Storage
import Subscriptions

extension SubscribersAPI {
    /// Stores and applies `action` at `atMs`, then answers with `answer()` once it is on disk
    /// (off the store's flusher thread), or as `storageFailure` says when storage could not take it.
    package func apply(
        _ action: CustomerAction, app: AppConfig, atMs: Int64, access: APIKeys.Access,
        reply: @escaping @Sendable (HTTPResponse) -> Void, answer: @escaping @Sendable () -> HTTPResponse
    ) {
        apply(app: app, atMs: atMs, access: access, reply: reply, keeping: { _ in action }, answer: answer)
    }

    /// `apply`, the action made in the write from what is stored there (`keep`; nil keeps
    /// nothing): a decision that must see the customer as the write leaves it, not as a read
    /// before it did (two requests at once would each pass a check made before the other's).
    package func apply(
        app: AppConfig, atMs: Int64, access: APIKeys.Access, reply: @escaping @Sendable (HTTPResponse) -> Void,
        keeping keep: @escaping @Sendable (WriteTransaction) throws -> CustomerAction?,
        answer: @escaping @Sendable () -> HTTPResponse
    ) {
        store.write(
            { [cache] rows in
                guard let action = try keep(rows) else { return }
                try LedgerInputs.keepAndApply(.customerAction(action), app: app.ledger, atMs: atMs, cache: cache, in: rows)
            },
            completion: { result in
                if case .failure(let error) = result { return reply(HTTPResponse.storageFailure(error, access: access)) }
                offWorker { reply(answer()) }
            })
    }

    /// `apply` answering the customer `appUserId` as `GET` shows it, with `status` for a 200.
    package func apply(
        _ action: CustomerAction, app: AppConfig, atMs: Int64, answering appUserId: String, access: APIKeys.Access,
        status: Int = 200, reply: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        apply(action, app: app, atMs: atMs, access: access, reply: reply) {
            var answer = answerSubscriber(appUserId, app: app, access: access).response
            if answer.status == 200 { answer.status = status }
            return answer
        }
    }

    /// Whether the customer `appUserId` is stored; false when `reply` was answered: 404 for a
    /// customer nobody knows (nothing is made), or the storage failure.
    func isKnown(
        _ appUserId: String, app: AppConfig, access: APIKeys.Access, reply: @Sendable (HTTPResponse) -> Void
    ) -> Bool {
        switch answerSubscriber(appUserId, app: app, access: access) {
        case .found: return true
        case .unknown: reply(.error(status: 404, code: "not_found", message: "no customer \(appUserId)"))
        case .failed(let response): reply(response)
        }
        return false
    }

    /// The app of a request made with its secret key, or nil (then `reply` was answered).
    package func secretKeyApp(_ request: HTTPRequest, reply: @Sendable (HTTPResponse) -> Void) -> (AppConfig, APIKeys.Access)? {
        guard let (app, access) = keys.authenticate(request), access == .secret else {
            reply(APIKeys.secretKeyRequired)
            return nil
        }
        return (app, access)
    }
}
