import Foundation
import Server

/// The notification reference: Apple's notificationTypes and subtypes in our own words
/// (`NotificationCatalog+Entries.swift`), with what RevenueDot does produced by running each
/// case's example (`CatalogScenario`).
enum NotificationCatalog {
    /// The entry for `type` (any case), or nil.
    static func entry(_ type: String) -> CatalogEntry? {
        entries.first { $0.type.caseInsensitiveCompare(type) == .orderedSame }
    }

    /// The case of `entry` for `subtype` (nil: the notification without a subtype), or nil.
    static func kase(_ entry: CatalogEntry, subtype: String?) -> CatalogCase? {
        entry.cases.first { candidate in
            switch (candidate.name, subtype) {
            case (nil, nil): true
            case (let name?, let wanted?): name.caseInsensitiveCompare(wanted) == .orderedSame
            default: false
            }
        }
    }

    /// The scenario of one case.
    static func scenario(_ entry: CatalogEntry, _ kase: CatalogCase) -> CatalogScenario {
        CatalogScenario(type: entry.type, subtype: kase.name, example: kase.example)
    }

    /// The known names closest to `name` (edit distance), best first, for "did you mean".
    static func closest(to name: String, among names: [String], limit: Int = 3) -> [String] {
        let wanted = Array(name.uppercased())
        let scored = names.map { candidate -> (String, Int) in (candidate, distance(wanted, Array(candidate.uppercased()))) }
        let threshold = max(3, wanted.count / 2)
        // A name nearly all of which must change (either's length) is no near miss: "foo" is not "ca".
        return scored.filter { $0.1 <= threshold && $0.1 < min(wanted.count, $0.0.count) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
            .prefix(limit).map(\.0)
    }

    /// Levenshtein distance.
    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, right) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
