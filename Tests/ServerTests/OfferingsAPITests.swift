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
}
