/// An Apple enumeration that keeps values Apple adds after this code was written.
///
/// Apple extends its enums without notice (new notification types, subtypes, offer types,
/// environments). A value this code does not know decodes to `unknown(rawValue)`, is kept,
/// and encodes back to the same raw value, so nothing Apple sent is rejected or dropped.
public protocol OpenEnum: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible
where RawValue: Codable & Hashable & Sendable {
    /// Every value this code knows, in Apple's documentation order.
    static var knownValues: [Self] { get }
    /// The value for a raw value this code does not know.
    static func unknown(_ rawValue: RawValue) -> Self
}

extension OpenEnum {
    /// Never fails: an unknown raw value becomes `unknown(rawValue)`.
    public init(rawValue: RawValue) {
        self = Self.resolve(rawValue)
    }

    /// The known value with this raw value, or `unknown(rawValue)`.
    public static func resolve(_ rawValue: RawValue) -> Self {
        knownValues.first { $0.rawValue == rawValue } ?? unknown(rawValue)
    }

    /// Whether Apple documented this value when this code was written.
    public var isKnown: Bool { Self.knownValues.contains(self) }

    public var description: String { "\(rawValue)" }

    public init(from decoder: any Decoder) throws {
        self = Self.resolve(try decoder.singleValueContainer().decode(RawValue.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
