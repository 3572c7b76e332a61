/// A date member of Apple's models: UNIX time in whole milliseconds, nil when absent.
///
/// The App Store writes integers. Xcode's StoreKit testing writes fractions of a millisecond
/// (`"purchaseDate": 1697679936049.7297`), and Apple's libraries accept them; so does this, by
/// truncating toward zero to whole milliseconds, as Apple's Python library does (`int(value)`).
/// Nothing App Store dates measure is finer than a millisecond. A number that is not finite or
/// does not fit in `Int64` once truncated is a decoding error, as for any integer member.
///
/// Encoded as the integer, and left out when nil, as an `Int64?` member would be.
@propertyWrapper
public struct Milliseconds: Hashable, Sendable, Codable {
    public var wrappedValue: Int64?

    public init(wrappedValue: Int64?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            wrappedValue = nil
            return
        }
        do {
            wrappedValue = try container.decode(Int64.self)
        } catch {
            // Not an integer that fits (Foundation's decoder says so with an error of its own
            // type, turned into a DecodingError only at the top): a fraction, or not a number.
            guard let number = try? container.decode(Double.self) else { throw error }
            wrappedValue = try Self.truncating(
                number,
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "Number does not fit in Int64."))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }

    /// `value` truncated toward zero to whole milliseconds; `context` describes a value that
    /// cannot be.
    public static func truncating(_ value: Double, _ context: DecodingError.Context) throws -> Int64 {
        guard value.isFinite, let whole = Int64(exactly: value.rounded(.towardZero)) else {
            throw DecodingError.dataCorrupted(context)
        }
        return whole
    }
}

extension KeyedDecodingContainer {
    /// A `Milliseconds` member: absent and `null` are nil, as for an optional member.
    public func decode(_ type: Milliseconds.Type, forKey key: Key) throws -> Milliseconds {
        try decodeIfPresent(type, forKey: key) ?? Milliseconds(wrappedValue: nil)
    }
}

extension KeyedEncodingContainer {
    /// A `Milliseconds` member: left out when nil, as an optional member is.
    public mutating func encode(_ value: Milliseconds, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue, forKey: key)
    }
}
