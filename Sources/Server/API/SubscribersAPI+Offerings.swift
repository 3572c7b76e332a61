import Foundation
import HTTP
import JSON
import Storage
import Subscriptions
import Threads

extension SubscribersAPI {
    /// `GET /v1/subscribers/{app_user_id}/offerings` (either key): the app's `offerings` as
    /// RevenueCat's SDKs read them (purchases-ios `OfferingsResponse`). The current one is the
    /// customer's override (`overrideOffering`) while it is configured, else the app's
    /// (RevenueDot runs no experiments or targeting). Makes no customer; when storage cannot be
    /// read, the app's current offering is answered, so that a paywall still shows.
    package func offerings(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request) else { return reply(APIKeys.unauthorized) }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: access, reaching: true) { return reply(refused) }
        guard !app.offerings.isEmpty else { return reply(.json(Data(Self.offeringsJSON([]).serialized().utf8))) }
        readInline { [self] in
            let chosen = try? store.read { (rows) throws(StoreError) in
                try StoreError.decoding(stateOf: appUserId) {
                    try CustomerRows.customer(named: appUserId, appId: app.id, from: rows)?.offeringOverride
                }
            }
            reply(.json(Data(Self.offeringsJSON(app.offerings, current: chosen ?? nil).serialized().utf8)))
        }
    }

    /// The offerings answer; `current`, when configured, is the current offering in place of the app's.
    static func offeringsJSON(_ offerings: [OfferingConfig], current: String? = nil) -> JSONValue {
        let currentId = current.flatMap { id in offerings.contains { $0.id == id } ? id : nil }
        return .object([
            "current_offering_id": (currentId ?? offerings.first(where: \.isCurrent)?.id).map(JSONValue.string) ?? .null,
            "offerings": .array(
                offerings.map { offering in
                    .object([
                        "identifier": .string(offering.id), "description": .string(offering.description),
                        "metadata": .object(offering.metadata),
                        "packages": .array(
                            offering.packages.map {
                                .object(["identifier": .string($0.id), "platform_product_identifier": .string($0.productId)])
                            }),
                    ])
                }),
            "placements": .null, "targeting": .null,
        ])
    }

    /// `POST /v1/subscribers/{app_user_id}/offerings/{offering_id}/override` (secret key):
    /// RevenueCat's offering override, by the offering's `id` (RevenueCat names it by its
    /// dashboard UUID): the customer's current offering from now on, made first when unknown.
    /// 200 and the customer; 404 for an offering not configured.
    package func overrideOffering(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = secretKeyApp(request, reply: reply) else { return }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: access) { return reply(refused) }
        let offeringId = request.pathParameters["offering_id"] ?? ""
        guard app.offerings.contains(where: { $0.id == offeringId }) else {
            return reply(.error(status: 404, code: "not_found", message: "no offering \"\(offeringId)\" is configured"))
        }
        apply(
            .offeringOverridden(appUserId: appUserId, offeringId: offeringId), app: app,
            atMs: UnixTime.milliseconds(clock()), answering: appUserId, access: access, reply: reply)
    }

    /// `DELETE /v1/subscribers/{app_user_id}/offerings/override` (secret key): the customer's
    /// current offering is the app's again. 200 and the customer; 404, nothing stored, for a
    /// customer nobody knows.
    package func removeOfferingOverride(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = secretKeyApp(request, reply: reply) else { return }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: access, reaching: true) { return reply(refused) }
        guard isKnown(appUserId, app: app, access: access, reply: reply) else { return }
        apply(
            .offeringOverridden(appUserId: appUserId, offeringId: nil), app: app, atMs: UnixTime.milliseconds(clock()),
            answering: appUserId, access: access, reply: reply)
    }

    /// `GET /v1/product_entitlement_mapping` (either key): which entitlements each product
    /// grants (`entitlements`), which RevenueCat's SDKs keep to grant access from StoreKit
    /// alone while the server cannot be reached.
    package func productEntitlementMapping(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, _) = keys.authenticate(request) else { return reply(APIKeys.unauthorized) }
        // The reducer's own reading of the map, so the SDK grants offline what events grant.
        let configuration = LedgerConfiguration(entitlements: app.entitlements)
        var products: [String: JSONValue] = [:]
        for product in Set(app.entitlements.values.joined()) {
            products[product] = .object([
                "product_identifier": .string(product), "base_plan_id": .null,
                "entitlements": .array((configuration.entitlementIds(for: product) ?? []).map(JSONValue.string)),
            ])
        }
        reply(.json(Data(JSONValue.object(["product_entitlement_mapping": .object(products)]).serialized().utf8)))
    }
}
