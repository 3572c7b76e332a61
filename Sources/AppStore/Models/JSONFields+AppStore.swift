import JSON

/// Reading App Store members: dates in milliseconds and open enums.
extension JSONFields {
    /// A date member in milliseconds, read as `Milliseconds` reads one: an integer, or a
    /// fraction truncated toward zero.
    public func optionalMilliseconds(_ key: String) throws -> Int64? {
        try present(key).map { value in
            guard case .number(let number) = value else { return try readInteger(value, Int64.self, key) }
            return try Milliseconds.truncating(
                number, DecodingError.Context(codingPath: path(key), debugDescription: "Number does not fit in Int64."))
        }
    }
    /// An open enum member with a string raw value; unknown values are kept.
    public func optional<E: OpenEnum>(_ key: String, _ type: E.Type) throws -> E? where E.RawValue == String {
        try optionalString(key).map(E.resolve)
    }

    /// An open enum member with a number raw value; unknown values are kept.
    public func optional<E: OpenEnum>(_ key: String, _ type: E.Type) throws -> E? where E.RawValue == Int32 {
        try optionalInt32(key).map(E.resolve)
    }
}
