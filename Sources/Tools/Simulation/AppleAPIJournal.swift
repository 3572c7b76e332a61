import AppStore
import AppStoreServerAPISimulator
import Foundation
import JSON
import Server
import Synchronization

/// What the simulated App Store sent and sold, one JSON object a line
/// (`.revenuedot/simulator/apple-api.jsonl`): every notification a story signed, and whether
/// RevenueDot took it, every transaction, and the renewal-date extensions the store made. `revenuedot simulate apple-api` serves it as
/// Apple's App Store Server API, so a backfill after a rehearsed outage finds what was missed.
struct AppleAPIJournal {
    let file: URL

    init(base: URL) {
        file = base.appendingPathComponent(".revenuedot/simulator/apple-api.jsonl")
    }

    /// Appends a notification a story sent (`delivered`: RevenueDot answered 200).
    func recordNotification(_ signedPayload: String, bundleId: String, delivered: Bool) {
        append([
            "kind": .string("notification"), "bundleId": .string(bundleId), "signedPayload": .string(signedPayload),
            "delivered": .bool(delivered),
        ])
    }

    /// Appends the transaction a story's step made, or the App Store changed (the latest with
    /// its id replaces it; `account` nil keeps the account of the one it replaces).
    func recordTransaction(_ payload: JSONValue, bundleId: String, account: String?) {
        var line: [String: JSONValue] = ["kind": .string("transaction"), "bundleId": .string(bundleId), "payload": payload]
        line["account"] = account.map(JSONValue.string)
        append(line)
    }

    /// Appends what the simulated App Store changed itself (`SimulatedAppStore.Change`): an
    /// extension's transaction and renewal info and its notifications, so that the store serves
    /// them after a restart, and a story's next step starts from the extended period.
    func record(_ change: SimulatedAppStore.Change) {
        switch change {
        case .transaction(let payload, let bundleId):
            recordTransaction(.object(payload), bundleId: bundleId, account: nil)
        case .renewalInfo(let payload, let original, let bundleId):
            recordRenewalInfo(.object(payload), bundleId: bundleId, originalTransactionId: original)
        case .notification(let signed, let bundleId, let delivered):
            recordNotification(signed, bundleId: bundleId, delivered: delivered)
        case .extensionMade(let original, let identifier, let atMs, let answer, let bundleId, let environment):
            append([
                "kind": .string("extension"), "bundleId": .string(bundleId), "environment": .string(environment.rawValue),
                "originalTransactionId": .string(original),
                "requestIdentifier": .string(identifier), "at": .integer(atMs), "answer": .object(answer),
            ])
        case .massExtensionMade(let identifier, let product, let count, let atMs, let bundleId, let environment):
            append([
                "kind": .string("massExtension"), "bundleId": .string(bundleId), "environment": .string(environment.rawValue),
                "requestIdentifier": .string(identifier),
                "productId": .string(product), "count": .integer(count), "at": .integer(atMs),
            ])
        }
    }

    /// The latest payload recorded of transaction `transactionId`, by a story or by the App Store.
    func latestTransaction(_ transactionId: String, bundleId: String) -> JSONValue? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        let needle = Data("\"\(transactionId)\"".utf8)
        var latest: JSONValue?
        for line in data.split(separator: UInt8(ascii: "\n")) where line.range(of: needle) != nil {
            guard let json = try? JSONValue(parsing: Data(line)), json["kind"] == .string("transaction"),
                json["bundleId"] == .string(bundleId), json["payload"]?["transactionId"] == .string(transactionId)
            else { continue }
            latest = json["payload"]
        }
        return latest
    }

    /// Appends a subscription's renewal info as of a story's step (the latest replaces it).
    func recordRenewalInfo(_ payload: JSONValue, bundleId: String, originalTransactionId: String) {
        append([
            "kind": .string("renewalInfo"), "bundleId": .string(bundleId), "payload": payload,
            "originalTransactionId": .string(originalTransactionId),
        ])
    }

    /// Appends one whole line, under the journal's lock: lines of stories played at once never
    /// overwrite or cut each other.
    private func append(_ line: [String: JSONValue]) {
        // The journal is a rehearsal aid: a story goes on without it.
        try? PrivateFile.createDirectory(file.deletingLastPathComponent().path)
        let text = JSONValue.object(line).serialized() + "\n"
        try? LockedFile(path: file.path).append(Data(text.utf8))
    }

    /// What feeds `store` the lines written since it last ran, the first time all of them: run
    /// before each answer, so a story played just before a request is in its answer.
    func follower(into store: SimulatedAppStore, environment: AppStoreEnvironment? = nil) -> @Sendable () -> Void {
        let offset = Mutex(load(into: store, from: 0, environment: environment))
        return { offset.withLock { $0 = load(into: store, from: $0, environment: environment) } }
    }

    /// Feeds the lines from byte `offset` on into `store`; returns the offset after the last
    /// whole line. With `environment`, only what the stories sent and sold in it: Apple's
    /// Production API knows nothing of a Sandbox purchase.
    func load(into store: SimulatedAppStore, from offset: UInt64, environment: AppStoreEnvironment? = nil) -> UInt64 {
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return offset }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else {
            return offset
        }
        var consumed: UInt64 = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            consumed += UInt64(line.count) + 1
            guard let json = try? JSONValue(parsing: Data(line)), let bundleId = json["bundleId"]?.stringValue else { continue }
            if let environment, let of = Self.environment(of: json), of != environment.rawValue { continue }
            switch json["kind"]?.stringValue {
            case "notification":
                guard let signed = json["signedPayload"]?.stringValue else { continue }
                try? store.addNotification(signed, bundleId: bundleId, delivered: json["delivered"] == .bool(true))
            case "renewalInfo":
                guard let payload = json["payload"]?.objectValue, let original = json["originalTransactionId"]?.stringValue
                else { continue }
                store.setRenewalInfo(payload, originalTransactionId: original)
            case "transaction":
                guard let payload = json["payload"]?.objectValue else { continue }
                store.addTransaction(payload, bundleId: bundleId, account: json["account"]?.stringValue)
            case "extension":
                guard let original = json["originalTransactionId"]?.stringValue,
                    let identifier = json["requestIdentifier"]?.stringValue, case .integer(let at)? = json["at"],
                    let answer = json["answer"]?.objectValue
                else { continue }
                store.addExtension(originalTransactionId: original, requestIdentifier: identifier, atMs: at, answer: answer)
            case "massExtension":
                guard let identifier = json["requestIdentifier"]?.stringValue, let product = json["productId"]?.stringValue,
                    case .integer(let count)? = json["count"], case .integer(let at)? = json["at"]
                else { continue }
                store.addMassExtension(requestIdentifier: identifier, productId: product, count: count, atMs: at)
            default:
                continue
            }
        }
        return offset + consumed
    }

    /// The environment a journal line is of: its payload's, or its signed notification's.
    static func environment(of line: JSONValue) -> String? {
        if let environment = line["environment"]?.stringValue { return environment }
        if let payload = line["payload"], let environment = payload["environment"]?.stringValue { return environment }
        guard let signed = line["signedPayload"]?.stringValue, let payload = try? UnverifiedPayload.json(of: signed) else {
            return nil
        }
        return payload["data"]?["environment"]?.stringValue ?? payload["summary"]?["environment"]?.stringValue
    }
}
