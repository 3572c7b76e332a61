import AppStore
import Foundation
import JSON
import LoopbackClient

/// The server that has the database, as a command beside it reaches it: on its listen address
/// (loopback when it listens on every address), with the app's secret API key.
package struct RunningServer: Sendable {
    package let listen: ListenAddress
    package let appId: String
    package let secretApiKey: String

    /// The server at `listen` (where the one that has the database said it answers) for `app`;
    /// a one-line error when the app has no secret key to call it with.
    package init(listen: ListenAddress, app: AppConfig, command: String) throws {
        guard let key = app.secretApiKey else {
            throw CommandError(
                "serve has the database, and app \"\(app.id)\" has no secretApiKey for \(command) to work through it: "
                    + "configure one, or stop serve")
        }
        self.listen = listen
        appId = app.id
        secretApiKey = key
    }

    /// The host to connect to for `listen`.
    package static func host(of listen: ListenAddress) -> String {
        switch listen.host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::": "::1"
        default: listen.host
        }
    }

    /// POSTs `body` to `path` and returns the answer's JSON; a one-line error for anything but 200.
    package func post(_ path: String, _ body: JSONValue, timeoutSeconds: Double = 300) throws -> JSONValue {
        switch try answer(path, body, timeoutSeconds: timeoutSeconds) {
        case .json(let json): return json
        case .refused(let status, let message): throw CommandError("the server at \(listen) answered \(status): \(message)")
        }
    }

    /// What the server answered a POST: its JSON, or a status other than 200 with its message.
    package enum Answer: Sendable {
        case json(JSONValue)
        case refused(status: Int, message: String)
    }

    /// POSTs `body` to `path`; throws a one-line error only when the server did not answer.
    package func answer(_ path: String, _ body: JSONValue, timeoutSeconds: Double = 300) throws -> Answer {
        let (status, json, text) = try exchange(path, body, timeoutSeconds: timeoutSeconds)
        guard status == 200, let json else { return .refused(status: status, message: Self.message(json, text: text)) }
        return .json(json)
    }

    /// POSTs `body` to `path` with the secret key: the status, the answer's JSON (nil when it is
    /// none) and its text; throws a one-line error only when the server did not answer.
    package func exchange(
        _ path: String, _ body: JSONValue, timeoutSeconds: Double = 300
    ) throws -> (status: Int, json: JSONValue?, text: String) {
        let response: LoopbackResponse
        do {
            response = try LoopbackConnection(host: Self.host(of: listen), port: listen.port, timeoutSeconds: timeoutSeconds)
                .request(
                    "POST", path,
                    headers: ["Content-Type": "application/json", "Authorization": "Bearer \(secretApiKey)"],
                    body: Data(body.serialized().utf8))
        } catch {
            throw CommandError("the server at \(listen) did not answer: \(error)")
        }
        return (response.status, try? JSONValue(parsing: response.body), response.text)
    }

    /// What an error answer says: its `message` (RevenueCat's shape) or `error.message` (ours),
    /// else its text (a proxy's page, libmicrohttpd's own words).
    package static func message(_ answer: JSONValue?, text: String) -> String {
        if let said = answer?["message"]?.stringValue ?? answer?["error"]?["message"]?.stringValue { return said }
        // On one line, and not a whole page.
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return line.isEmpty ? "no body" : line.count > 200 ? line.prefix(200) + "…" : line
    }

    /// `text` as one segment of a URL path (an app id, say).
    package static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? text
    }
}
