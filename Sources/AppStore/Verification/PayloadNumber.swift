/// A number an App Store payload carries, named by its path, with the range RevenueDot believes.
///
/// Apple's libraries take any JSON integer; RevenueDot turns these numbers into dates, sums and
/// indexes, and a value no App Store could send (`signedDate` of `Int64.min`) must be refused as
/// the payload's fault before anything computes with it, never trap. The ranges hold every value
/// App Store sends, with room: they are about plausibility, not policy.
public struct PayloadNumber: Equatable, Sendable {
    /// What the number measures, which sets its range.
    public enum Kind: Equatable, Sendable {
        /// UNIX milliseconds: App Store dates lie in `PayloadNumber.dates`.
        case date
        /// Milliunits of a currency (prices, taxes, refunds): `PayloadNumber.amounts`.
        case amount
        /// A count or share within the given bounds.
        case count(ClosedRange<Int64>)
    }

    /// Where the number sits in the payload: `data.signedTransactionInfo.expiresDate`.
    public var path: String
    public var value: Int64
    public var kind: Kind

    public init(_ path: String, _ value: Int64, _ kind: Kind) {
        self.path = path
        self.value = value
        self.kind = kind
    }

    /// 2008-01-01T00:00:00Z (the App Store opened in July 2008) to 2100-01-01T00:00:00Z, in ms.
    public static let dates: ClosedRange<Int64> = 1_199_145_600_000...4_102_444_800_000
    /// ±10^13 milliunits (ten billion units of any currency): a price times a refund share in
    /// milliunits of a percent (at most 100,000) still fits in 64 bits.
    public static let amounts: ClosedRange<Int64> = -10_000_000_000_000...10_000_000_000_000

    /// The range this number must lie in.
    public var range: ClosedRange<Int64> {
        switch kind {
        case .date: Self.dates
        case .amount: Self.amounts
        case .count(let range): range
        }
    }

    /// Why this number is not plausible, or nil when it is.
    public var problem: String? {
        guard !range.contains(value) else { return nil }
        switch kind {
        case .date:
            return "\(path) \(value) is not a date App Store sends (ms between 2008-01-01 and 2100-01-01)"
        case .amount, .count:
            return "\(path) \(value) is outside \(range.lowerBound)...\(range.upperBound)"
        }
    }

    /// 0001-01-01T00:00:00Z in ms, Swift's `Date.distantPast`: what Xcode's StoreKit testing
    /// writes as an app transaction's `originalPurchaseDate` (Apple's own Xcode test data does).
    public static let xcodeDistantPast: Int64 = -62_135_769_600_000

    /// Throws `verificationFailure` for the first number outside its range. `unsigned` data
    /// (Xcode, LocalTesting) may also give a date as `xcodeDistantPast`, which is no date at all.
    public static func check(_ numbers: [PayloadNumber], unsigned: Bool = false) throws(VerificationError) {
        for number in numbers {
            if unsigned, number.kind == .date, number.value == xcodeDistantPast { continue }
            if let problem = number.problem {
                var error = VerificationError(.verificationFailure, problem)
                error.isImplausibleNumber = true
                throw error
            }
        }
    }
}

/// A payload, or a part of one, that lists the numbers it carries.
public protocol PayloadNumbers {
    /// Every number present, its path relative to this value.
    var numbers: [PayloadNumber] { get }
}

extension PayloadNumbers {
    /// `numbers` with their paths under `prefix` (`data`, `items[2]`).
    func numbers(under prefix: String) -> [PayloadNumber] {
        numbers.map { PayloadNumber("\(prefix).\($0.path)", $0.value, $0.kind) }
    }
}

/// Builds a list of numbers from optional fields, skipping absent ones.
struct PayloadNumberList {
    private(set) var numbers: [PayloadNumber] = []

    mutating func date(_ path: String, _ value: Int64?) { add(path, value, .date) }
    mutating func amount(_ path: String, _ value: Int64?) { add(path, value, .amount) }
    mutating func count(_ path: String, _ value: Int32?, _ range: ClosedRange<Int64>) {
        add(path, value.map(Int64.init), .count(range))
    }
    mutating func count(_ path: String, _ value: Int64?, _ range: ClosedRange<Int64>) { add(path, value, .count(range)) }

    mutating func nested(_ path: String, _ value: (any PayloadNumbers)?) {
        if let value { numbers += value.numbers(under: path) }
    }

    mutating func nested(_ path: String, _ values: [any PayloadNumbers]?) {
        for (index, value) in (values ?? []).enumerated() { numbers += value.numbers(under: "\(path)[\(index)]") }
    }

    private mutating func add(_ path: String, _ value: Int64?, _ kind: PayloadNumber.Kind) {
        if let value { numbers.append(PayloadNumber(path, value, kind)) }
    }
}
