import JSON

/// One notificationType's reference page, in the shape of our docs pages: the question and its
/// answer, quick facts, what triggers it, what a server should do, run-checked example code,
/// what RevenueDot does (from running each case's example through the verifier and reducer),
/// and the sources. Rendered as Markdown (`docs/notifications`), HTML (`/docs`), text and JSON
/// (`revenuedot explain`).
struct ReferencePage: Sendable {
    /// One subtype (or its absence).
    struct Case: Sendable {
        var subtype: String?
        var meaning: String
        var triggers: [String]
        /// What to do beyond verifying and answering: the entitlement change first.
        var actions: [String]
        /// What RevenueDot did with the example (`CatalogRenderer.outcomeLines`).
        var handling: [String]
        /// The example notification, decoded (nested JWS shown decoded).
        var example: JSONValue

        /// "`VOLUNTARY`", or "no subtype".
        var label: String { subtype.map { "`\($0)`" } ?? "no subtype" }
        var plainLabel: String { subtype ?? "no subtype" }
    }

    let type: String
    /// `expired`: the page's file and path name.
    let slug: String
    let answer: String
    let meaning: String
    let facts: CatalogFacts
    var cases: [Case]
    /// Every subtype's label, kept when the page is narrowed to one.
    let subtypeLabels: [String]
    let snippets: ReferenceSnippets

    var question: String { "What does the App Store notification \(type) mean?" }

    /// The quick facts, label and value (Markdown inline code in backticks).
    var quickFacts: [(String, String)] {
        [
            ("notificationType", "`\(type)`"),
            ("Subtypes", subtypeLabels == ["no subtype"] ? "none" : subtypeLabels.joined(separator: ", ")),
            ("Comes from", "App Store Server Notifications v2, `responseBodyV2DecodedPayload`"),
            ("Sent by", "The App Store server, to your notification URL (an HTTPS POST with a `signedPayload`)"),
            ("Apple says", facts.appleSays),
            ("For access", facts.access.title),
        ]
    }

    /// The steps every notification shares, around the actions per subtype.
    static let verifyStep =
        "Verify the signed payload first, with Apple's App Store Server Library or RevenueDot: the certificate "
        + "chain up to Apple's root, the signature, then the bundle ID, the app Apple ID (Production only: "
        + "Sandbox notifications may carry none) and the environment. Decide "
        + "nothing from a payload that fails."
    static let answerStep =
        "Store it, then answer 200 (any status from 200 to 206 counts as received). Any other answer, or none, and "
        + "Apple sends it again 1, 12, 24, 48 and 72 hours after the previous attempt; in Production only, as "
        + "Sandbox sends each notification once."
    static let idempotencyStep =
        "Because of those retries, be idempotent on `notificationUUID`: a retry carries the same one and must "
        + "change nothing the first delivery already changed."

    /// How the "How RevenueDot handles it" outcomes were made, and the setting they assume.
    static let handlingIntro =
        "Produced by signing each example below, verifying it as ingest does, and applying it with the reducer, "
        + "with `trackNewPurchasesFromServerNotifications` on (as `revenuedot init` writes it); a test re-runs it "
        + "and fails when this page and the code disagree. With that setting off (the default when the key is "
        + "absent), a purchase the app has not posted is still applied, but its events wait until the app posts "
        + "it or its `appAccountToken` names an existing customer."

    /// A case's actions: its advice without the verify and store steps every case shares.
    static func actions(of kase: CatalogCase) -> [String] {
        kase.whatToDo.filter { !$0.hasPrefix("Verify ") && !$0.hasPrefix("Store it") }
    }

    static func slug(_ type: String) -> String { type.lowercased().replacingOccurrences(of: "_", with: "-") }

    init(entry: CatalogEntry, renderer: CatalogRenderer) throws {
        type = entry.type
        slug = Self.slug(entry.type)
        answer = entry.summary
        meaning = entry.meaning
        facts = NotificationCatalog.facts(entry.type)
        snippets = ReferenceSnippets(entry: entry)
        cases = try entry.cases.map { kase in
            Case(
                subtype: kase.name, meaning: kase.meaning, triggers: kase.triggers, actions: Self.actions(of: kase),
                handling: CatalogRenderer.outcomeLines(try renderer.outcome(entry, kase)),
                example: NotificationCatalog.scenario(entry, kase).decodedNotification())
        }
        subtypeLabels = cases.map(\.label)
    }

    /// The page for one subtype (nil: the notification without one): its trigger, action and
    /// handling only.
    func narrowed(to subtype: String?) -> ReferencePage {
        var page = self
        page.cases = cases.filter { $0.subtype?.uppercased() == subtype?.uppercased() }
        return page
    }

    /// "Edit this page": where the type's words are written.
    var editURL: String { "https://github.com/revenuedot/revenuedot/edit/main/\(facts.definedIn)" }

    /// The page as one JSON object: `explain --json`.
    var json: JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        return .object([
            "notificationType": .string(type), "question": .string(question), "answer": .string(answer),
            "meaning": .string(meaning),
            "quickFacts": .object(Dictionary(uniqueKeysWithValues: quickFacts.map { ($0.0, JSONValue.string($0.1)) })),
            "access": .string(facts.access.rawValue),
            "cases": .array(
                cases.map { kase in
                    .object([
                        "subtype": kase.subtype.map(JSONValue.string) ?? .null, "meaning": .string(kase.meaning),
                        "triggers": strings(kase.triggers), "whatToDo": strings(kase.actions),
                        "revenuedot": strings(kase.handling), "example": kase.example,
                    ])
                }),
            "whatYourServerShouldDo": strings([Self.verifyStep, Self.answerStep, Self.idempotencyStep]),
            "seeAlso": strings(facts.seeAlso), "notes": strings(facts.notes),
            "example": .object([
                "javascript": .string(snippets.javaScript), "swift": .string(snippets.swift),
                "expectedOutput": .string(snippets.expected), "checked": .string(NotificationCatalog.checkedOn),
            ]),
            "source": .object([
                "apple": strings([
                    NotificationCatalog.appleTypesPage, NotificationCatalog.appleSubtypesPage,
                    NotificationCatalog.appleRespondingPage,
                ]),
                "checked": .string(NotificationCatalog.checkedOn), "edit": .string(editURL),
            ]),
        ])
    }
}
