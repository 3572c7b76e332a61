import Foundation
import HTTP
import JSON
import Subscriptions

extension SubscribersAPI {
    /// `GET /v1/subscribers/{app_user_id}/offerings` (either key): the app's `offerings` as
    /// RevenueCat's SDKs read them (purchases-ios `OfferingsResponse`), the same for every
    /// customer (RevenueDot runs no experiments or targeting). Reads nothing stored and makes
    /// no customer.
    package func offerings(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request) else { return reply(APIKeys.unauthorized) }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: access, reaching: true) { return reply(refused) }
        reply(.json(Data(Self.offeringsJSON(app.offerings).serialized().utf8)))
    }

    static func offeringsJSON(_ offerings: [OfferingConfig]) -> JSONValue {
        .object([
            "current_offering_id": offerings.first(where: \.isCurrent).map { .string($0.id) } ?? .null,
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
