import JSON

/// One of an app's offerings (`offerings`), as RevenueCat's SDKs fetch them: the products a
/// paywall shows, in packages, one offering marked current.
package struct OfferingConfig: Sendable, Equatable {
    /// A package: its id (RevenueCat's `$rc_monthly`, `$rc_annual`, ... or one of the app's own)
    /// and the App Store product it sells.
    package struct Package: Sendable, Equatable {
        package var id: String
        package var productId: String
    }

    package var id: String
    package var description: String
    /// In the order the paywall shows them.
    package var packages: [Package]
    /// RevenueCat's offering metadata: any JSON object the app reads.
    package var metadata: [String: JSONValue]
    package var isCurrent: Bool
}

extension AppConfigLoader {
    /// `offerings`: `[{"id", "description", "current": true, "packages": [{"id", "productId"}],
    /// "metadata": {...}}]`; ids unique, at most one current.
    static func offerings(_ app: ConfigReader) throws(ConfigError) -> [OfferingConfig] {
        guard let list = try app.array("offerings") else { return [] }
        var offerings: [OfferingConfig] = []
        for (index, value) in list.enumerated() {
            let entry = try ConfigReader(file: app.file, path: "\(app.key("offerings"))[\(index)]", value: value)
            try entry.rejectUnknownKeys(["id", "description", "current", "packages", "metadata"])
            let id = try entry.requiredString("id")
            guard !id.isEmpty else { throw entry.fail("id", "an offering needs an id") }
            guard !offerings.contains(where: { $0.id == id }) else {
                throw entry.fail("id", "\"\(id)\" is given twice; name each offering once")
            }
            let current = try entry.bool("current") ?? false
            if current, let other = offerings.first(where: \.isCurrent) {
                throw entry.fail("current", "\"\(other.id)\" is current already; at most one offering is")
            }
            offerings.append(
                OfferingConfig(
                    id: id, description: try entry.string("description") ?? "", packages: try packages(entry),
                    metadata: try entry.object("metadata")?.rawMembers ?? [:], isCurrent: current))
        }
        return offerings
    }

    private static func packages(_ offering: ConfigReader) throws(ConfigError) -> [OfferingConfig.Package] {
        guard let list = try offering.array("packages"), !list.isEmpty else {
            throw offering.fail("packages", "must list at least one package")
        }
        var packages: [OfferingConfig.Package] = []
        for (index, value) in list.enumerated() {
            let package = try ConfigReader(file: offering.file, path: "\(offering.key("packages"))[\(index)]", value: value)
            try package.rejectUnknownKeys(["id", "productId"])
            let id = try package.requiredString("id")
            let productId = try package.requiredString("productId")
            guard !id.isEmpty, !productId.isEmpty else {
                throw package.fail(id.isEmpty ? "id" : "productId", "must be a non-empty string")
            }
            guard !packages.contains(where: { $0.id == id }) else {
                throw package.fail("id", "\"\(id)\" is given twice in this offering")
            }
            packages.append(OfferingConfig.Package(id: id, productId: productId))
        }
        return packages
    }
}
