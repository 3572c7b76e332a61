import AppStore
import Foundation
import JSON
import Server
import Storage
import Threads

/// `revenuedot notifications list|show|rejects`: what was received, read from storage.
package struct NotificationsCommand {
    package static let usage = """
        usage: revenuedot notifications list [--held] [--app ID] [--type T] [--limit N] [--offset N] [--json] [--config FILE]
               revenuedot notifications show UUID [--config FILE]
               revenuedot notifications rejects [--json] [--config FILE]

          list     newest first, 100 unless --limit says otherwise (at most 1000), skipping the
                   --offset newest (the next page: --offset 1000); --held shows
                   only held ones and why (validly signed, but for another bundle or environment:
                   each start or reload of revenuedot serve applies those its configuration now
                   accepts); --json prints one object per line
          show     one notification with its payload decoded (nested JWS decoded too); the UUID
                   is matched as Apple sends it, in lower case, whatever case it is given in
          rejects  counts of refused payloads by status, and the last 100 reasons
        """

    let subcommand: String
    let parsed: ParsedArguments

    package init(arguments: [String]) throws {
        guard let first = arguments.first, ["list", "show", "rejects"].contains(first) else {
            throw UsageError("expected list, show or rejects, not " + (arguments.first.map { "\"\($0)\"" } ?? "nothing"))
        }
        subcommand = first
        parsed = try ParsedArguments(
            Array(arguments.dropFirst()), valueOptions: ["config", "app", "type", "limit", "offset"],
            flagOptions: ["held", "json"])
        switch subcommand {
        case "show": guard parsed.positionals.count == 1 else { throw UsageError("show needs one notificationUUID") }
        default: guard parsed.positionals.isEmpty else { throw UsageError("\(subcommand) takes no arguments") }
        }
        let used: Set<String> =
            switch subcommand {
            case "list": ["held", "app", "type", "limit", "offset", "json"]
            case "rejects": ["json"]
            default: []
            }
        try parsed.refuseUnused(except: used, by: subcommand)
    }

    package func run() throws -> Int32 {
        let (config, store) = try CommandStore.openForReading(parsed)
        defer { store.close() }
        switch subcommand {
        case "list":
            // Notifications of an app since removed from the configuration can still be listed,
            // and Apple adds types now and then, stored as sent: a warning, not a refusal, unless
            // nothing stored matches (a typo, most likely).
            var unknown: [String] = []
            if let app = parsed.value("app"), !config.apps.contains(where: { $0.id == app }) {
                unknown.append("no app \"\(app)\" is configured")
            }
            if let type = parsed.value("type")?.uppercased(), !NotificationTypeV2(rawValue: type).isKnown {
                unknown.append("\"\(type)\" is not a notification type Apple documents")
            }
            return try list(store, unknown: unknown.joined(separator: ", and "))
        case "show": return try show(store, config: config, uuid: parsed.positionals[0])
        default: return try rejects(store)
        }
    }

    /// Lists what the options ask for; `unknown` says which of them names nothing configured or
    /// documented: a warning beside what is stored under it, exit 1 when nothing is.
    private func list(_ store: StoreReader, unknown: String) throws -> Int32 {
        var filter = NotificationFilter()
        filter.appId = parsed.value("app")
        // Apple's types are upper case: `--type did_renew` means DID_RENEW.
        filter.notificationType = parsed.value("type")?.uppercased()
        if parsed.flags.contains("held") { filter.state = .held }
        let page = try PageOptions(parsed, maximumLimit: NotificationFilter.maximumLimit)
        if let limit = page.limit { filter.limit = limit }
        if let offset = page.offset { filter.offset = offset }
        let records = try store.notifications(filter)
        if !unknown.isEmpty {
            // Whether any notification is stored under the app and type, whatever else is asked.
            var any = NotificationFilter()
            (any.appId, any.notificationType, any.limit) = (filter.appId, filter.notificationType, 1)
            guard try !store.notifications(any).isEmpty else {
                StandardStreams.error("revenuedot notifications: \(unknown), and no notification stored matches\n")
                return 1
            }
            StandardStreams.error("revenuedot notifications: warning: \(unknown)\n")
        }
        if parsed.flags.contains("json") {
            StandardStreams.out(records.map { Self.summary($0).serialized() + "\n" }.joined())
            return 0
        }
        // Columns as wide as their widest cell: an app id or a type is never cut. Held ones say
        // why they wait, last (a sentence).
        let held = parsed.flags.contains("held")
        let rows =
            [["RECEIVED", "STATE", "APP", "TYPE / SUBTYPE", "ENVIRONMENT", "UUID"] + (held ? ["REASON"] : [])]
            + records.map { record in
                [
                    // Unsigned (Xcode) notifications are anyone's text: every column is escaped.
                    UnixTime.iso8601(record.receivedAt), record.state.rawValue, record.appId.escapingControls,
                    (record.subtype.map { "\(record.notificationType) / \($0)" } ?? record.notificationType).escapingControls,
                    (record.environment ?? "-").escapingControls, record.notificationUUID.escapingControls,
                ] + (held ? [(record.stateReason ?? "-").escapingControls] : [])
            }
        let columns = TextColumns(fitting: rows)
        var lines = rows.map(columns.line)
        if records.isEmpty { lines.append("(no notifications)") }
        StandardStreams.out(lines.joined(separator: "\n") + "\n")
        return 0
    }

    private func show(_ store: StoreReader, config: RevenueDotConfig, uuid: String) throws -> Int32 {
        // Apple's UUIDs are lower case; one typed or pasted in upper case is the same notification.
        // An unsigned one (Xcode, LocalTesting) is stored under its environment's name.
        let lowered = uuid.lowercased()
        var found = try store.notification(uuid: uuid) ?? (lowered == uuid ? nil : store.notification(uuid: lowered))
        for environment in AppStoreEnvironment.knownValues where found == nil && !environment.isSignedByAppStore {
            found = try store.notification(uuid: NotificationRecord.unsignedId(lowered, environment: environment))
        }
        guard let record = found else {
            StandardStreams.error("revenuedot notifications show: no notification \(uuid)\n")
            return 1
        }
        var object = Self.summary(record)
        let roots = try config.app(record.appId)?.rootCertificates ?? [AppleRootCertificates.appleRootCAG3()]
        let verifier = try SignedDataVerifier(rootCertificates: roots, policy: .signatureOnly)
        let signedAt = record.signedDate.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? Date()
        do {
            object["payload"] = try VerifiedSignedData.notification(
                verifier.verifyNotification(record.signedPayload, now: signedAt)
            )
            .decodedJSON()
            object["signatureVerified"] = .bool(true)
        } catch {
            object["signatureVerified"] = .bool(false)
            object["verificationError"] = .string("\(error)")
            // Still what was stored, decoded: the reason to look at a notification is often that it failed.
            object["payload"] = try? UnverifiedPayload.json(of: record.signedPayload)
        }
        if let answer = try store.consumptionAnswer(notificationUUID: record.notificationUUID) {
            object["consumptionAnswer"] = Self.json(answer)
        }
        StandardStreams.out(object.serialized(pretty: true) + "\n")
        return 0
    }

    /// What RevenueDot answered Apple's consumption request.
    static func json(_ answer: ConsumptionAnswer) -> JSONValue {
        var object: [String: JSONValue] = [
            "status": .string(answer.status.rawValue), "attempts": .integer(Int64(answer.attempts)),
            "transactionId": .string(answer.transactionId),
        ]
        object["sentAt"] = answer.answeredAtMs.map { .string(UnixTime.iso8601($0)) }
        if answer.status == .pending { object["nextAttemptAt"] = .string(UnixTime.iso8601(answer.nextAttemptAtMs)) }
        object["lastError"] = answer.lastError.map(JSONValue.string)
        object["request"] = answer.requestJSON.flatMap { try? JSONValue(parsing: Data($0.utf8)) }
        return .object(object)
    }

    private func rejects(_ store: StoreReader) throws -> Int32 {
        let log = try store.rejectLog()
        if parsed.flags.contains("json") {
            let object = JSONValue.object([
                "counts": .object(log.counts.mapValues { .integer(Int64($0)) }),
                "recent": .array(
                    log.recent.map {
                        .object([
                            "appId": .string($0.appId), "status": .string($0.status), "reason": .string($0.reason),
                            "at": .string(UnixTime.iso8601($0.at)),
                        ])
                    }),
            ])
            StandardStreams.out(object.serialized(pretty: true) + "\n")
            return 0
        }
        var lines = ["Rejected payloads by status:"]
        for (status, count) in log.counts.sorted(by: { $0.key < $1.key }) { lines.append("  \(status.padding(32)) \(count)") }
        if log.counts.isEmpty { lines.append("  (none)") }
        lines.append("Most recent (newest first, at most 100):")
        for reject in log.recent {
            // A reason quotes what the sender sent: shown escaped, it cannot move the cursor or start a line.
            lines.append(
                "  \(UnixTime.iso8601(reject.at))  \(reject.appId.escapingControls)  \(reject.status.escapingControls): "
                    + reject.reason.escapingControls)
        }
        StandardStreams.out(lines.joined(separator: "\n") + "\n")
        return 0
    }

    /// The fields `list --json` promises, and a few more.
    static func summary(_ record: NotificationRecord) -> JSONValue {
        var object: [String: JSONValue] = [
            "notificationUUID": .string(record.notificationUUID), "notificationType": .string(record.notificationType),
            "subtype": record.subtype.map(JSONValue.string) ?? .null, "appId": .string(record.appId),
            "environment": record.environment.map(JSONValue.string) ?? .null, "state": .string(record.state.rawValue),
            "receivedAt": .string(UnixTime.iso8601(record.receivedAt)),
        ]
        object["stateReason"] = record.stateReason.map(JSONValue.string)
        object["signedDate"] = record.signedDate.map { .string(UnixTime.iso8601($0)) }
        object["originalTransactionId"] = record.originalTransactionId.map(JSONValue.string)
        object["transactionId"] = record.transactionId.map(JSONValue.string)
        return .object(object)
    }

}

extension String {
    /// The string padded with spaces (or cut) to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? String(prefix(width - 1)) + " " : self + String(repeating: " ", count: width - count)
    }
}
