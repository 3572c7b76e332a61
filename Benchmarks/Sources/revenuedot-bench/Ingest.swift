import Foundation

/// `ingest`: every payload POSTed once, as Apple would.
func ingest(_ arguments: [String]) throws {
    guard let portText = argument("port", arguments), let port = UInt16(portText), let app = argument("app", arguments),
        let payloadPath = argument("payloads", arguments)
    else { fail("ingest needs --port P --app ID --payloads FILE") }
    let connections = Int(argument("connections", arguments) ?? "16") ?? 16
    let payloads = try lines(payloadPath).map { Data(#"{"signedPayload":""#.utf8) + $0 + Data(#""}"#.utf8) }
    try printJSON(
        runLoad(port: port, count: payloads.count, connections: connections) { index in
            LoadRequest(
                method: "POST", path: "/v1/apple/notifications/\(app)", headers: ["Content-Type": "application/json"],
                body: payloads[index])
        })
}
