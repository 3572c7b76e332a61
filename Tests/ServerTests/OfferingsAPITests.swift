import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

/// The offerings and product-entitlement mapping RevenueCat's SDKs fetch at start, from the
/// app's configuration, read as purchases-ios decodes them.
@Suite("RevenueCat offerings")
struct OfferingsAPITests {
    static let offerings = #"""
        "offerings": [
          {"id": "default", "description": "Standard plans", "current": true,
           "packages": [{"id": "$rc_annual", "productId": "pro.yearly"}, {"id": "$rc_monthly", "productId": "pro.monthly"}],
           "metadata": {"headline": "Go Pro"}},
          {"id": "sale", "packages": [{"id": "$rc_monthly", "productId": "pro.monthly"}]}
        ]
        """#

    /// purchases-ios `OfferingsResponse` and `ProductEntitlementMappingResponse`, their fields as
    /// the SDK declares them, decoded as it decodes (`convertFromSnakeCase`).
    struct SDKOfferings: Decodable {
        struct Offering: Decodable {
            struct Package: Decodable {
                let identifier: String
                let platformProductIdentifier: String
            }
            let identifier: String
            let description: String
            let packages: [Package]
        }
        let currentOfferingId: String?
        let offerings: [Offering]
    }

    struct SDKMapping: Decodable {
        struct Product: Decodable {
            let productIdentifier: String
            let entitlements: [String]
        }
        let productEntitlementMapping: [String: Product]
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    @Test func theSDKReadsTheConfiguredOfferingsAndMapping() throws {
        let fixture = try ServerFixture(demoOptions: Self.offerings)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let headers = ["Authorization": "Bearer pk_test_public", "X-Platform": "iOS"]
        let answer = try connection.request("GET", "/v1/subscribers/%24RCAnonymousID%3Aabc/offerings", headers: headers)
        #expect(answer.status == 200, "\(answer.text)")
        let offerings = try Self.decoder().decode(SDKOfferings.self, from: answer.body)
        #expect(offerings.currentOfferingId == "default")
        #expect(offerings.offerings.map(\.identifier) == ["default", "sale"])
        #expect(offerings.offerings[0].packages.map(\.platformProductIdentifier) == ["pro.yearly", "pro.monthly"])
        #expect(offerings.offerings[1].description == "")
        guard case .array(let listed)? = try JSONValue(parsing: answer.body)["offerings"] else {
            Issue.record("no offerings: \(answer.text)")
            return
        }
        #expect(listed.first?["metadata"]?["headline"] == .string("Go Pro"))
        // Fetching offerings makes no customer.
        let head = try connection.request(
            "HEAD", "/v1/subscribers/%24RCAnonymousID%3Aabc", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(head.status == 404)

        let mapping = try connection.request("GET", "/v1/product_entitlement_mapping", headers: headers)
        #expect(mapping.status == 200, "\(mapping.text)")
        let products = try Self.decoder().decode(SDKMapping.self, from: mapping.body).productEntitlementMapping
        #expect(products["pro.monthly"]?.entitlements == ["pro"] && products["pro.yearly"]?.productIdentifier == "pro.yearly")

        let unauthorized = try connection.request("GET", "/v1/product_entitlement_mapping", headers: [:])
        #expect(unauthorized.status == 401)
        #expect(try JSONValue(parsing: unauthorized.body)["code"] == .integer(7225))
    }

    /// An app without offerings answers none, which the SDK reports as a configuration error.
    @Test func noOfferingsIsAnEmptyList() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let answer = try LoopbackConnection(port: service.port).request(
            "GET", "/v1/subscribers/bob/offerings", headers: ["Authorization": "Bearer pk_test_public"])
        let offerings = try Self.decoder().decode(SDKOfferings.self, from: answer.body)
        #expect(offerings.currentOfferingId == nil && offerings.offerings.isEmpty)
    }

    @Test(arguments: [
        (#""offerings": [{"id": "a", "packages": []}]"#, "offerings[0].packages: must list at least one package"),
        (#""offerings": [{"packages": [{"id": "p", "productId": "x"}]}]"#, "offerings[0].id: missing"),
        (
            #""offerings": [{"id": "a", "packages": [{"id": "p", "productId": "x"}]}, {"id": "a", "packages": [{"id": "p", "productId": "x"}]}]"#,
            "offerings[1].id: \"a\" is given twice"
        ),
        (
            #""offerings": [{"id": "a", "current": true, "packages": [{"id": "p", "productId": "x"}]}, {"id": "b", "current": true, "packages": [{"id": "p", "productId": "x"}]}]"#,
            "offerings[1].current: \"a\" is current already"
        ),
        (
            #""offerings": [{"id": "a", "packages": [{"id": "p", "productId": "x"}, {"id": "p", "productId": "y"}]}]"#,
            "offerings[0].packages[1].id: \"p\" is given twice"
        ),
        (#""offerings": [{"id": "a", "packages": [{"id": "p", "product": "x"}]}]"#, "packages[0].product: unknown key"),
    ])
    func aWrongOfferingIsRefusedInOneLine(options: String, says: String) throws {
        let fixture = try ServerFixture(demoOptions: options)
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: fixture.configPath) }
        #expect(error?.description.contains(says) == true, "\(error?.description ?? "")")
    }

    /// RevenueCat's offering override: the backend makes an offering a customer's current one,
    /// by its id, until it removes the choice; other customers keep the app's.
    @Test func anOverrideIsTheCustomersCurrentOfferingUntilRemoved() throws {
        let fixture = try ServerFixture(demoOptions: Self.offerings)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let secret = ["Authorization": "Bearer sk_test_secret"]
        func current(_ user: String) throws -> String? {
            let answer = try connection.request(
                "GET", "/v1/subscribers/\(user)/offerings", headers: ["Authorization": "Bearer pk_test_public"])
            #expect(answer.status == 200, "\(answer.text)")
            return try Self.decoder().decode(SDKOfferings.self, from: answer.body).currentOfferingId
        }
        let chosen = try connection.request("POST", "/v1/subscribers/rita/offerings/sale/override", headers: secret)
        #expect(chosen.status == 200, "\(chosen.text)")
        #expect(try JSONValue(parsing: chosen.body)["subscriber"]?["original_app_user_id"] == .string("rita"))
        #expect(try current("rita") == "sale")
        #expect(try current("sam") == "default")
        // Through an alias too: the choice is the customer's.
        let aliased = try connection.request(
            "POST", "/v1/subscribers/rita/alias", headers: secret.merging(["Content-Type": "application/json"]) { $1 },
            body: Data(#"{"new_app_user_id": "rita-2"}"#.utf8))
        #expect(aliased.status == 200, "\(aliased.text)")
        #expect(try current("rita-2") == "sale")

        let refusals: [(String, String, [String: String], Int, Int64)] = [
            ("POST", "/v1/subscribers/rita/offerings/nothing/override", secret, 404, 7259),
            ("POST", "/v1/subscribers/rita/offerings/sale/override", ["Authorization": "Bearer pk_test_public"], 401, 7225),
            ("DELETE", "/v1/subscribers/nobody/offerings/override", secret, 404, 7259),
        ]
        for (method, path, headers, status, code) in refusals {
            // A DELETE declares no length, so its connection closes after the answer: one each.
            let answer = try LoopbackConnection(port: service.port).request(method, path, headers: headers)
            #expect(answer.status == status, "\(method) \(path): \(answer.text)")
            #expect(try JSONValue(parsing: answer.body)["code"] == .integer(code), "\(answer.text)")
        }
        let nobody = try LoopbackConnection(port: service.port).request("HEAD", "/v1/subscribers/nobody", headers: secret)
        #expect(nobody.status == 404)

        let removed = try LoopbackConnection(port: service.port).request(
            "DELETE", "/v1/subscribers/rita/offerings/override", headers: secret)
        #expect(removed.status == 200, "\(removed.text)")
        // A DELETE declares no length, so its connection closes after the answer.
        let fresh = try LoopbackConnection(port: service.port)
        let answer = try fresh.request(
            "GET", "/v1/subscribers/rita/offerings", headers: ["Authorization": "Bearer pk_test_public"])
        #expect(try Self.decoder().decode(SDKOfferings.self, from: answer.body).currentOfferingId == "default")
    }

    /// An override naming an offering the configuration no longer has gives way to the app's current one.
    @Test func anOverrideOfAnOfferingNoLongerConfiguredIsIgnored() {
        let offerings = [
            OfferingConfig(id: "default", description: "", packages: [], metadata: [:], isCurrent: true),
            OfferingConfig(id: "sale", description: "", packages: [], metadata: [:], isCurrent: false),
        ]
        #expect(SubscribersAPI.offeringsJSON(offerings, current: "sale")["current_offering_id"] == .string("sale"))
        #expect(SubscribersAPI.offeringsJSON(offerings, current: "gone")["current_offering_id"] == .string("default"))
        #expect(SubscribersAPI.offeringsJSON(offerings)["current_offering_id"] == .string("default"))
    }
}
