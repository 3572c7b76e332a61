import AppStore
import Foundation
import JSON
import Server

/// What RevenueDot does with each case's example (`CatalogScenario.run`, never prose), and the
/// list of types; the pages themselves are `ReferencePage`s.
struct CatalogRenderer {
    /// The chain examples are signed with: a test chain valid at the examples' fixed date.
    let chain: TestChain

    init() throws {
        chain = try TestChain(now: Date(timeIntervalSince1970: Double(CatalogScenario.baseMs) / 1000), name: "RevenueDot Docs")
    }

    func outcome(_ entry: CatalogEntry, _ kase: CatalogCase) throws -> CatalogOutcome {
        try NotificationCatalog.scenario(entry, kase).run(chain: chain)
    }

    static func title(_ type: String, _ subtype: String?) -> String { subtype.map { "\(type) / \($0)" } ?? type }

    /// The outcome block as it appears in pages (and is read back by the docs test).
    static func outcomeLines(_ outcome: CatalogOutcome) -> [String] {
        let events = outcome.events.isEmpty ? ["- Events: none."] : outcome.events.map { "- Event: `\($0)`" }
        let timer = outcome.timerEvents.map { "- Then, at the scheduler's next tick: `\($0)`" }
        return events + outcome.state.map { "- \($0)" } + timer
    }

    // MARK: - The list of types

    /// Every type with its summary and subtypes (`null` for the notification without one), in
    /// catalog order: what `explain --json` prints without a type.
    static func listJSON() -> JSONValue {
        .array(
            NotificationCatalog.entries.map { entry in
                .object([
                    "notificationType": .string(entry.type), "summary": .string(entry.summary),
                    "subtypes": .array(entry.cases.map { $0.name.map(JSONValue.string) ?? .null }),
                ])
            })
    }

    static func list() -> String {
        let width = NotificationCatalog.entries.map(\.type.count).max() ?? 0
        return NotificationCatalog.entries.map { entry in
            entry.type.padding(toLength: width + 2, withPad: " ", startingAt: 0) + entry.summary
        }.joined(separator: "\n") + "\n"
    }
}
