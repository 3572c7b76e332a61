/// RevenueCat's rules for subscriber attributes: which keys exist, how long keys and values may
/// be, and how many a customer may keep.
extension SubscriberAttribute {
    /// The reserved keys RevenueCat documents and its SDKs send.
    public static let reservedKeys: Set<String> = [
        "$displayName", "$email", "$phoneNumber", "$apnsTokens", "$fcmTokens", "$attConsentStatus", "$deviceVersion",
        "$appleRefundHandlingPreference", "$ip", "$idfa", "$idfv", "$gpsAdId", "$androidId", "$amazonAdId", "$adjustId",
        "$amplitudeDeviceId", "$amplitudeUserId", "$appsflyerId", "$brazeAliasName", "$brazeAliasLabel", "$fbAnonId",
        "$mparticleId", "$onesignalId", "$onesignalUserId", "$airshipChannelId", "$iterableUserId", "$iterableCampaignId",
        "$iterableTemplateId", "$firebaseAppInstanceId", "$mixpanelDistinctId", "$kochavaDeviceId", "$tenjinId",
        "$posthogUserId", "$customerioId", "$clevertapId", "$appstackId", "$airbridgeDeviceId", "$solarEngineDistinctId",
        "$solarEngineAccountId", "$solarEngineVisitorId", "$mediaSource", "$campaign", "$adGroup", "$ad", "$keyword",
        "$creative",
    ]
    /// The longest key and value, in characters.
    public static let maximumKeyLength = 40
    public static let maximumValueLength = 500
    /// The most UTF-8 bytes a value may take: 500 characters of four bytes each. A character may
    /// hold any number of combining marks, so characters alone do not bound a value.
    public static let maximumValueBytes = 4 * maximumValueLength
    /// How many custom (not reserved) attributes a customer may keep.
    public static let maximumCustomAttributes = 50

    /// Why `key` cannot take `value`, in RevenueCat's words; nil when it can.
    public static func problem(key: String, value: String?) -> String? {
        if key.hasPrefix("$") {
            guard reservedKeys.contains(key) else { return "Key name format is not valid." }
        } else {
            let bytes = Array(key.utf8)
            guard let first = bytes.first, isLetter(first), key.count <= maximumKeyLength,
                bytes.allSatisfy({ isLetter($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
            else { return "Key name format is not valid." }
        }
        guard let value, !value.isEmpty else { return nil }
        if value.utf8.count > maximumValueBytes || value.count > maximumValueLength { return "Value is too long." }
        // NUL ends a string in most of what reads an attribute next (C libraries, many databases).
        if value.utf8.contains(0) { return "Value holds a NUL character." }
        if key == "$email", !isEmail(value) { return "Value is not a valid email address." }
        if key == "$attConsentStatus", !["restricted", "denied", "authorized", "unknown", "notDetermined"].contains(value) {
            return "Value is not a valid ATT consent status."
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }

    /// One `@` with something before it, and a dotted domain after it, without spaces.
    private static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(" ") else { return false }
        let domain = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return domain.count >= 2 && domain.allSatisfy { !$0.isEmpty }
    }

    /// The new custom keys of `updates` (given a value, not held by `stored`) that do not fit
    /// under `maximumCustomAttributes` for a customer holding `stored`, sorted. The request's
    /// other keys go first (its deletions make room); then its new keys take the room left in
    /// key order, and those past it are named.
    public static func newKeysPastCap(
        _ updates: [String: SubscriberAttribute], stored: [String: SubscriberAttribute]
    ) -> [String] {
        // New: a custom key without a value now that this update gives one (not one older than
        // the key's deletion, which changes nothing).
        let new = updates.filter { key, update in
            !key.hasPrefix("$") && stored[key]?.value == nil && merging([key: update], into: stored)[key]?.value != nil
        }
        let others = updates.filter { new[$0.key] == nil }
        let room = max(0, maximumCustomAttributes - customCount(merging(others, into: stored)))
        return Array(new.keys.sorted().dropFirst(room))
    }

    /// How many custom attributes with a value `attributes` holds.
    public static func customCount(_ attributes: [String: SubscriberAttribute]) -> Int {
        attributes.filter { !$0.key.hasPrefix("$") && $0.value.value != nil }.count
    }
}
