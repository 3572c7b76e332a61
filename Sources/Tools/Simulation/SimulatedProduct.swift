import AppStore
import Foundation

/// A product of the simulated App Store, known by its id alone: its name says how long a period
/// lasts (`pro.weekly` a week, `pro.monthly` a month, `pro.yearly` a year; a name that says
/// nothing, a month) and so what a period costs, in USD milliunits (a basic plan half of it).
struct SimulatedProduct: Equatable {
    let id: String

    /// The length of one period of this product.
    var length: PeriodLength { PeriodLength.named(id) }

    /// What one period costs before any price increase.
    var listPriceMilliunits: Int64 {
        let price: Int64 =
            switch length {
            case .days(let days) where days <= 7: 2_990
            case .months(12): 99_990
            case .months(6): 49_990
            case .months(3): 26_990
            case .months(2): 18_990
            default: 9_990
            }
        return id.lowercased().contains("basic") ? (price + 10) / 2 - 10 : price
    }

    /// The price after a price increase the customer accepts: a tenth more, to the nearest 10 milliunits.
    static func increased(_ price: Int64) -> Int64 { (price * 11 / 10 + 5) / 10 * 10 }
}

/// How long a period lasts: calendar months or days (as Apple bills them, in UTC), or a fixed
/// length a story asked for (`--period 30s`).
enum PeriodLength: Codable, Hashable, Sendable {
    case months(Int)
    case days(Int)
    case milliseconds(Int64)

    /// The length a product's name implies.
    static func named(_ productId: String) -> PeriodLength {
        let name = productId.lowercased().filter { $0.isLetter || $0.isNumber }
        if name.contains("week") { return .days(7) }
        if ["6month", "sixmonth", "semiannual", "halfyear"].contains(where: name.contains) { return .months(6) }
        if ["3month", "threemonth", "quarter"].contains(where: name.contains) { return .months(3) }
        if ["2month", "twomonth", "bimonth"].contains(where: name.contains) { return .months(2) }
        if name.contains("year") || name.contains("annual") { return .months(12) }
        return .months(1)
    }

    /// An Advanced Commerce subscription's period (`P1W` … `P1Y`); a month for one not known.
    init(_ period: AdvancedCommercePeriod?) {
        self =
            switch period {
            case .oneWeek?: .days(7)
            case .twoMonths?: .months(2)
            case .threeMonths?: .months(3)
            case .sixMonths?: .months(6)
            case .oneYear?: .months(12)
            default: .months(1)
            }
    }

    /// When a period that starts at `startMs` ends.
    func end(after startMs: Int64) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = Date(timeIntervalSince1970: Double(startMs) / 1000)
        let end: Date?
        switch self {
        case .months(let months): end = calendar.date(byAdding: .month, value: months, to: start)
        case .days(let days): end = calendar.date(byAdding: .day, value: days, to: start)
        case .milliseconds(let length): return startMs + length
        }
        // Whole milliseconds, as the start had: the calendar works in seconds as Double.
        return startMs + Int64(((end ?? start).timeIntervalSince(start) * 1000).rounded())
    }
}
