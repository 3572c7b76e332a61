import AppStore
import Foundation
import JSON
import Testing

@testable import Server
@testable import Tools

/// The notification reference (`revenuedot explain`, `revenuedot docs`) against the real code.
@Suite("Notification reference")
struct NotificationReferenceTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let docs = packageRoot.appendingPathComponent("docs/notifications")

    /// Apple's types and the subtypes each is sent with (reference §1.1 and §1.2); nil: no subtype.
    static let apple: [String: [String?]] = [
        "SUBSCRIBED": ["INITIAL_BUY", "RESUBSCRIBE"], "DID_RENEW": [nil, "BILLING_RECOVERY"],
        "DID_FAIL_TO_RENEW": [nil, "GRACE_PERIOD"], "GRACE_PERIOD_EXPIRED": [nil],
        "EXPIRED": ["VOLUNTARY", "BILLING_RETRY", "PRICE_INCREASE", "PRODUCT_NOT_FOR_SALE", nil],
        "DID_CHANGE_RENEWAL_PREF": ["UPGRADE", "DOWNGRADE", nil],
        "DID_CHANGE_RENEWAL_STATUS": ["AUTO_RENEW_ENABLED", "AUTO_RENEW_DISABLED"],
        "OFFER_REDEEMED": ["UPGRADE", "DOWNGRADE", nil],
        "PRICE_INCREASE": ["PENDING", "ACCEPTED"], "REFUND": [nil], "REFUND_DECLINED": [nil], "REFUND_REVERSED": [nil],
        "CONSUMPTION_REQUEST": [nil], "REVOKE": [nil], "RENEWAL_EXTENDED": [nil], "RENEWAL_EXTENSION": ["SUMMARY", "FAILURE"],
        "ONE_TIME_CHARGE": [nil], "TEST": [nil], "EXTERNAL_PURCHASE_TOKEN": ["UNREPORTED", "CREATED", "ACTIVE_TOKEN_REMINDER"],
        "RESCIND_CONSENT": [nil], "METADATA_UPDATE": [nil], "MIGRATION": [nil], "PRICE_CHANGE": [nil],
    ]

    @Test func everyTypeAndSubtypeIsInTheCatalogAndKnownToTheModels() {
        let catalog = Dictionary(uniqueKeysWithValues: NotificationCatalog.entries.map { ($0.type, $0.cases.map(\.name)) })
        #expect(Set(catalog.keys) == Set(Self.apple.keys))
        for (type, subtypes) in Self.apple {
            #expect(Set(catalog[type] ?? []) == Set(subtypes), "\(type)")
            #expect(NotificationTypeV2(rawValue: type).isKnown, "\(type)")
            for subtype in subtypes.compactMap({ $0 }) { #expect(Subtype(rawValue: subtype).isKnown, "\(subtype)") }
        }
        for entry in NotificationCatalog.entries {
            #expect(!entry.summary.isEmpty && !entry.meaning.isEmpty)
            for kase in entry.cases {
                #expect(!kase.meaning.isEmpty && !kase.triggers.isEmpty && kase.whatToDo.count >= 3, "\(entry.type)")
            }
        }
    }

    static let snippets = packageRoot.appendingPathComponent("docs/snippets/swift")

    /// The committed pages and Swift snippets are exactly what `revenuedot docs` writes now.
    @Test func committedDocsMatchTheGenerator() throws {
        let docs = try ReferenceDocs()
        for (directory, files) in [(Self.docs, docs.markdownFiles), (Self.snippets, docs.snippetFiles)] {
            let committed = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".md") || $0.hasSuffix(".swift") }
            #expect(
                Set(committed) == Set(files.keys), "run: revenuedot docs --out docs/notifications --snippets docs/snippets/swift")
            for (name, text) in files {
                let onDisk = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
                #expect(onDisk == text, "\(directory.lastPathComponent)/\(name) is stale: run revenuedot docs")
            }
        }
    }

    /// Each page's example, signed with a fresh chain, verified and applied, does what the page says.
    @Test func everyPagesExampleDoesWhatThePageStates() throws {
        let renderer = try CatalogRenderer()
        let fresh = try TestChain(now: Date(timeIntervalSince1970: Double(CatalogScenario.baseMs) / 1000), name: "Other")
        for entry in NotificationCatalog.entries {
            let page =
                (try? String(
                    contentsOf: Self.docs.appendingPathComponent(ReferencePage.slug(entry.type) + ".md"), encoding: .utf8))
                ?? ""
            for kase in entry.cases {
                let outcome = try NotificationCatalog.scenario(entry, kase).run(chain: fresh)
                #expect(outcome == (try renderer.outcome(entry, kase)))
                let stated = Self.statedOutcome(in: page, section: CatalogRenderer.title(entry.type, kase.name))
                #expect(
                    stated == CatalogRenderer.outcomeLines(outcome), "\(CatalogRenderer.title(entry.type, kase.name))")
            }
        }
    }

    /// The outcome lines under a case's heading in a page's "How RevenueDot handles it".
    static func statedOutcome(in page: String, section: String) -> [String] {
        let lines = page.components(separatedBy: "\n")
        guard let handling = lines.firstIndex(of: "## \(PageMarkdown.handlingHeading)"),
            let heading = lines[handling...].firstIndex(of: "### \(section)"),
            let start = lines[heading...].firstIndex(where: { $0.hasPrefix("- ") })
        else { return [] }
        return Array(lines[start...].prefix { $0.hasPrefix("- ") })
    }

    /// The product rules, as the examples show them.
    @Test(
        arguments: [
            ("SUBSCRIBED", "INITIAL_BUY", "INITIAL_PURCHASE"), ("DID_RENEW", nil, "RENEWAL"),
            (
                "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED",
                "CANCELLATION (product_id pro.monthly, cancel_reason UNSUBSCRIBE)"
            ),
            ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", "UNCANCELLATION"),
            ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", "PRODUCT_CHANGE (product_id pro.monthly, new_product_id pro.basic)"),
            ("DID_FAIL_TO_RENEW", "GRACE_PERIOD", "BILLING_ISSUE"), ("REFUND_REVERSED", nil, "REFUND_REVERSED"),
            ("RENEWAL_EXTENDED", nil, "SUBSCRIPTION_EXTENDED"), ("ONE_TIME_CHARGE", nil, "NON_RENEWING_PURCHASE"),
            ("TEST", nil, "TEST"),
        ] as [(String, String?, String)])
    func examplesFollowTheProductRules(type: String, subtype: String?, event: String) throws {
        let entry = try #require(NotificationCatalog.entry(type))
        let kase = try #require(NotificationCatalog.kase(entry, subtype: subtype))
        let outcome = try CatalogRenderer().outcome(entry, kase)
        #expect(outcome.events.contains { $0 == event || $0.hasPrefix(event + " (") }, "\(outcome.events)")
    }

    @Test func explainListsNamesAndSuggests() throws {
        let list = try runCLI(["explain"])
        #expect(list.status == 0)
        #expect(list.output.components(separatedBy: "\n").filter { !$0.isEmpty }.count == Self.apple.count)
        let typo = try runCLI(["explain", "DID_RENW"])
        #expect(typo.status == 2)
        #expect(typo.output.contains("Did you mean DID_RENEW"))
        let unknown = try runCLI(["explain", "NOTHING_LIKE_IT"])
        #expect(unknown.status == 2)
        #expect(
            unknown.output == "revenuedot explain: unknown notificationType \"NOTHING_LIKE_IT\". revenuedot explain lists them.\n"
        )
        let markdownList = try runCLI(["explain", "--markdown"])
        #expect(markdownList.status == 2)
        #expect(markdownList.output.contains("explain --markdown needs a TYPE"), "\(markdownList.output)")
        let badSubtype = try runCLI(["explain", "EXPIRED", "VOLUNTARILY"])
        #expect(badSubtype.status == 2)
        #expect(badSubtype.output.contains("VOLUNTARY"))
        let json = try runCLI(["explain", "expired", "voluntary", "--json"])
        #expect(json.status == 0, "\(json.output)")
        let value = try JSONValue(parsing: Data(json.output.utf8))
        #expect(value["notificationType"] == .string("EXPIRED"))
        let cases = value["cases"]?.arrayValue ?? []
        #expect(cases.count == 1 && cases.first?["subtype"] == .string("VOLUNTARY"), "\(cases)")
        #expect(cases.first?["revenuedot"]?.arrayValue?.isEmpty == false)
    }

    /// What a case tells a server to do with access is what RevenueDot does with its example:
    /// advice to end or revoke access comes with an example that leaves none, advice to keep or
    /// grant it with one that leaves it.
    @Test func adviceOnAccessAgreesWithTheExample() throws {
        let renderer = try CatalogRenderer()
        for entry in NotificationCatalog.entries {
            for kase in entry.cases {
                let title = CatalogRenderer.title(entry.type, kase.name)
                // One-time purchases have no access to end.
                guard let access = try renderer.outcome(entry, kase).state.first(where: { $0.hasPrefix("Access: ") }) else {
                    continue
                }
                if kase.whatToDo.contains(where: { $0.hasPrefix("End access") || $0.hasPrefix("Revoke") }) {
                    #expect(access == "Access: no.", "\(title): \(access)")
                }
                let keeps = ["Keep the", "Grant the", "Restore or keep", "Move the entitlement"]
                if kase.whatToDo.contains(where: { advice in keeps.contains { advice.hasPrefix($0) } }) {
                    #expect(access.hasPrefix("Access: yes"), "\(title): \(access)")
                }
            }
        }
    }

    /// `explain --json` without a type is JSON too: every type with its subtypes.
    @Test func explainJSONWithoutATypeListsEveryTypeAndItsSubtypes() throws {
        let listed = try runCLI(["explain", "--json"])
        #expect(listed.status == 0, "\(listed.output)")
        let types = try #require(try JSONValue(parsing: Data(listed.output.utf8)).arrayValue)
        var found: [String: [String?]] = [:]
        for type in types {
            let name = try #require(type["notificationType"]?.stringValue)
            #expect(type["summary"]?.stringValue?.isEmpty == false, "\(name)")
            found[name] = type["subtypes"]?.arrayValue?.map(\.stringValue) ?? []
        }
        #expect(types.count == Self.apple.count)
        for (type, subtypes) in Self.apple { #expect(Set(found[type] ?? []) == Set(subtypes), "\(type)") }
    }
}
