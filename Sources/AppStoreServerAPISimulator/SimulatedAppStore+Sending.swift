import AppStore
import Foundation
import JSON

/// Notifications the store makes itself, for changes a developer asked for through the API.
extension SimulatedAppStore {
    /// Signs a notification of `type` about `app`, sends it where the store delivers (as App
    /// Store sends to the URL in App Store Connect) and keeps it in the notification history,
    /// delivered or not, so a backfill finds one nobody received.
    func send(
        _ type: String, subtype: String? = nil, app: App, data: [String: JSONValue]? = nil,
        summary: [String: JSONValue]? = nil
    ) throws {
        let signed = try sign(Self.notification(type, subtype: subtype, data: data, summary: summary))
        let result = deliver?(app, signed) ?? .noResponse
        try addNotification(signed, bundleId: app.bundleId, delivered: result == .success, result: result)
        record?(.notification(signedPayload: signed, bundleId: app.bundleId, delivered: result == .success))
    }

    /// A notification's members, unsigned: its type and subtype, a new UUID, version 2.0, and
    /// `data` or `summary` (`sign` dates it).
    static func notification(
        _ type: String, subtype: String? = nil, data: [String: JSONValue]? = nil, summary: [String: JSONValue]? = nil
    ) -> [String: JSONValue] {
        var payload: [String: JSONValue] = [
            "notificationType": .string(type), "notificationUUID": .string(UUID().uuidString.lowercased()),
            "version": .string("2.0"),
        ]
        payload["subtype"] = subtype.map(JSONValue.string)
        payload["data"] = data.map(JSONValue.object)
        payload["summary"] = summary.map(JSONValue.object)
        return payload
    }

    /// What every notification's `data` about `app` holds: the app and the environment.
    static func data(about app: App) -> [String: JSONValue] {
        [
            "bundleId": .string(app.bundleId), "appAppleId": app.appAppleId.map(JSONValue.integer) ?? .null,
            "environment": .string(app.environment.rawValue),
        ]
    }

    /// `RENEWAL_EXTENDED` for one subscription: its extended transaction and renewal info, both
    /// recorded first (the extension is made, whether or not its notification is).
    func sendRenewalExtended(app: App, transaction: [String: JSONValue], renewal: [String: JSONValue]?) throws {
        record?(.transaction(transaction, bundleId: app.bundleId))
        if let renewal, let original = transaction["originalTransactionId"]?.stringValue {
            record?(.renewalInfo(renewal, originalTransactionId: original, bundleId: app.bundleId))
        }
        var data = Self.data(about: app)
        data["status"] = .integer(1)
        data["signedTransactionInfo"] = .string(try sign(transaction))
        if let renewal { data["signedRenewalInfo"] = .string(try sign(renewal)) }
        try send("RENEWAL_EXTENDED", app: app, data: data)
    }

    /// Moves the renewal date of a subscription's renewal info to `expiresDate`; the renewal info
    /// after, if the store has one.
    static func extendRenewalInfo(
        _ state: inout State, originalTransactionId: String, to expiresDate: Int64
    ) -> [String: JSONValue]? {
        guard var renewal = state.renewalInfo[originalTransactionId] else { return nil }
        renewal["renewalDate"] = .integer(expiresDate)
        state.renewalInfo[originalTransactionId] = renewal
        return renewal
    }
}
