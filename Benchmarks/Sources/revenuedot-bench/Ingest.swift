import Foundation

/// `ingest`: every payload POSTed once, as Apple would.
func ingest(_ arguments: [String]) throws {
    // `--port P[,P...]`: several nodes, each connection to the next in turn.
    let ports = (argument("port", arguments) ?? "").split(separator: ",").compactMap { UInt16($0) }
    guard let port = ports.first, let app = argument("app", arguments), let payloadPath = argument("payloads", arguments)
    else { fail("ingest needs --port P[,P...] --app ID --payloads FILE") }
    let connections = Int(argument("connections", arguments) ?? "16") ?? 16
    let payloads = try lines(payloadPath).map { Data(#"{"signedPayload":""#.utf8) + $0 + Data(#""}"#.utf8) }
    try printJSON(
        runLoad(port: port, otherPorts: Array(ports.dropFirst()), count: payloads.count, connections: connections) { index in
            LoadRequest(
                method: "POST", path: "/v1/apple/notifications/\(app)", headers: ["Content-Type": "application/json"],
                body: payloads[index])
        })
}
