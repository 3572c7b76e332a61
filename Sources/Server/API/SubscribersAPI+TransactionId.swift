import AppStore
import AppStoreServerAPI
import Foundation
import HTTP
import JSON

extension SubscribersAPI {
    /// Links the purchase the app names by its transaction id: fetched from Apple, verified, and
    /// linked as a posted `jwsRepresentation`, except that it never moves a purchase another
    /// customer owns (anyone with the public key could name any id). Apple is asked off the
    /// server's workers, at most `AppleTransactionLookups.perApp` at once per app; more is 429.
    package func linkById(
        _ transactionId: String, app: AppConfig, verifier: AppVerifiers, appUserId: String, access: APIKeys.Access,
        reply: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        // "0042" would also pass the memory of ids Apple does not know as 42.
        guard transactionId.isAppleTransactionId else {
            return reply(.error(status: 400, code: "bad_request", message: "transactionId must be Apple's decimal id"))
        }
        guard let lookups = appleLookups, app.inAppPurchaseKey != nil else {
            return reply(
                .error(
                    status: 409, code: "no_app_store_server_api",
                    message: "app \"\(app.id)\" has no inAppPurchaseKey to ask Apple for a transaction by its id"))
        }
        if lookups.isKnownMissing(transactionId, app: app.id) {
            return reply(Self.notFound(transactionId))
        }
        guard lookups.begin(app: app.id) else {
            var busy = HTTPResponse.error(
                status: 429, code: "busy", message: "too many transactions are being fetched from Apple")
            busy.headers["Retry-After"] = "1"
            return reply(busy)
        }
        DispatchQueue.global().async {
            defer { lookups.end(app: app.id) }
            let signed: String
            do {
                signed = try lookups.fetch(app, transactionId)
            } catch let failure as AppStoreServerAPIError where failure.isUnknownTransaction {
                lookups.rememberMissing(transactionId, app: app.id)
                return reply(Self.notFound(transactionId))
            } catch {
                lookups.log.warning(
                    "apple.lookup_failed", "a posted transaction could not be fetched from Apple",
                    [("app", .text(app.id)), ("transaction", .text(transactionId)), ("error", .text("\(error)"))])
                return reply(
                    .error(status: 502, code: "app_store_server_api", message: "Apple could not be asked; try again later"))
            }
            link(
                signed, app: app, verifier: verifier, appUserId: appUserId, access: access, allowTransfer: false,
                reply: reply)
        }
    }

    package static func notFound(_ transactionId: String) -> HTTPResponse {
        .error(status: 404, code: "transaction_not_found", message: "Apple knows no transaction \(transactionId)")
    }
}
