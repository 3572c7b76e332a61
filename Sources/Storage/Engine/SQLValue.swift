import Foundation

/// A value bound to, or read from, an SQL statement: SQLite's five storage classes.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

// MARK: - Building and reading values

extension SQLValue {
    /// `.text(value)`, or `.null` when `value` is nil.
    init(_ value: String?) {
        self = value.map(SQLValue.text) ?? .null
    }

    /// `.integer(value)`, or `.null` when `value` is nil.
    init(_ value: Int64?) {
        self = value.map(SQLValue.integer) ?? .null
    }

    /// The text, when this is a text value.
    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The integer, when this is an integer value.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}
