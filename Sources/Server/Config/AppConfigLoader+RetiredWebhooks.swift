import Foundation
import JSON
import Storage

/// `previousNames` (a webhook's) and `removedWebhooks` (an app's): the webhook names whose
/// deliveries the app's configuration gives up, to the webhook renamed from them or to nothing.
extension AppConfigLoader {
    /// A list of webhook names at `name` of `reader`; `""` is the unnamed webhook's (`webhook`,
    /// or a single unnamed entry of `webhooks`), whose deliveries are kept under "".
    static func webhookNames(_ reader: ConfigReader, _ name: String) throws(ConfigError) -> [String] {
        guard let values = try reader.array(name) else { return [] }
        var names: [String] = []
        for (index, value) in values.enumerated() {
            guard case .string(let text) = value else {
                throw reader.fail("\(name)[\(index)]", "must be a webhook name (a string; \"\" for the unnamed webhook)")
            }
            names.append(text)
        }
        return names
    }

    /// Checks that each retired name (`previousNames` of `webhooks`, then `removed`) is given once
    /// in the app and is not the name of one of its webhooks: deliveries kept under it would
    /// otherwise belong to two webhooks, or be taken from one that sends them.
    static func checkRetiredNames(
        _ app: ConfigReader, webhooks: [WebhookConfig], removed: [String]
    ) throws(ConfigError) {
        var seen: Set<String> = []
        let single = (try? app.object("webhook")) != nil
        let retired =
            webhooks.enumerated().flatMap { index, hook in
                let path = single ? app.key("webhook") : "\(app.key("webhooks"))[\(index)]"
                return hook.previousNames.enumerated().map { ("\(path).previousNames[\($0)]", $1) }
            } + removed.enumerated().map { ("\(app.key("removedWebhooks"))[\($0)]", $1) }
        for (key, name) in retired {
            if webhooks.contains(where: { $0.id == name }) {
                throw ConfigError(
                    file: app.file, key: key,
                    problem: "\"\(name)\" is the name of one of this app's webhooks: a retired name must be one it no longer has")
            }
            guard seen.insert(name).inserted else {
                throw ConfigError(file: app.file, key: key, problem: "\"\(name)\" is retired twice: give it once")
            }
        }
    }
}

extension AppConfig {
    /// The webhook names this app gave up (`previousNames`, `removedWebhooks`), each with the
    /// webhook that took its place, or none.
    package var retiredWebhooks: [RetiredWebhook] {
        webhooks.flatMap { hook in
            hook.previousNames.map { RetiredWebhook(appId: id, name: $0, successor: hook.route) }
        } + removedWebhooks.map { RetiredWebhook(appId: id, name: $0, successor: nil) }
    }
}
