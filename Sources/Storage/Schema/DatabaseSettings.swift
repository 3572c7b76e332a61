import Crypto
import Subscriptions

/// Choices a database makes once and keeps, one row each in `database_settings` (migration 29).
enum DatabaseSettings {
    /// How tracking writes the ids of the anonymous customers it makes in this database, chosen
    /// at the first start of a build that knows the choice: RevenueCat's form, with a secret key
    /// of its own, when nothing has been applied yet; RevenueDot's when inputs were, so that its
    /// customers keep their ids and `replay` gives them again. Several nodes starting on one new
    /// database keep the first one's key.
    static func anonymousIds(on connection: any StatementRunner, newKey: () -> String = randomKey) throws(StoreError)
        -> AnonymousIds
    {
        let key = newKey()
        try connection.run(
            """
            INSERT INTO database_settings (name, value)
            SELECT 'anonymous_ids', CASE WHEN EXISTS (SELECT 1 FROM applied_inputs) THEN 'revenuedot' ELSE ? END
            WHERE true
            ON CONFLICT (name) DO NOTHING
            """, [.text(revenueCatValuePrefix + key)])
        let value = try connection.query("SELECT value FROM database_settings WHERE name = 'anonymous_ids'").first?.first
        return try anonymousIds(from: value?.textValue)
    }

    /// The stored value: `revenuedot`, or `revenuecat:` and the key.
    static func anonymousIds(from value: String?) throws(StoreError) -> AnonymousIds {
        if value == "revenuedot" { return .revenueDot }
        if let value, value.hasPrefix(revenueCatValuePrefix), value.count > revenueCatValuePrefix.count {
            return .revenueCat(key: String(value.dropFirst(revenueCatValuePrefix.count)))
        }
        throw StoreError(.corrupt, "database_settings holds no valid anonymous_ids (\(value ?? "none"))")
    }

    /// 128 random bits in hexadecimal, from the system's cryptographic generator.
    static func randomKey() -> String {
        var random = SystemRandomNumberGenerator()
        return Digest.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// Forgets every choice: a copy into a database (`migrate-db`) brings the source's.
    static func forget(on connection: any StatementRunner) throws(StoreError) {
        try connection.run("DELETE FROM database_settings")
    }

    private static let revenueCatValuePrefix = "revenuecat:"
}
