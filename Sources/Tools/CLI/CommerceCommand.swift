import AdvancedCommerce
import AppStore
import Foundation
import JSON
import Server
import Storage

/// `revenuedot commerce validate|sign`: an Advanced Commerce in-app request checked (and signed)
/// for a customer, as `POST /v1/advanced-commerce/{appId}/requests` does.
package struct CommerceCommand {
    package static let usage = """
        usage: revenuedot commerce validate --app ID --customer APP_USER_ID FILE|- [--config FILE]
               revenuedot commerce sign --app ID --customer APP_USER_ID FILE|- [--config FILE]

          FILE holds the request JSON (OneTimeChargeCreateRequest, SubscriptionCreateRequest,
          SubscriptionModifyInAppRequest or SubscriptionReactivateInAppRequest, told apart by
          "operation"). Apple's rules are checked; a modify, a reactivate and a resubscribe
          (a create with previousTransactionId) also against the customer's live subscription,
          and a requestReferenceId used before is refused, so the database must exist (serve
          makes it). A missing requestReferenceId is generated and a missing consistencyToken
          filled from the latest renewal info.
          validate  prints the request as it would be signed, or Apple's errors (exit 1)
          sign      also signs it with the app's inAppPurchaseKey, records it as pending, and
                    prints {"token", "requestReferenceId", "advancedCommerceData"}; with serve
                    running on the SQLite database, serve signs and records it (the app's
                    secretApiKey), as the one process that writes the file
        """

    let subcommand: String
    let parsed: ParsedArguments

    package init(arguments: [String]) throws {
        guard let first = arguments.first, ["validate", "sign"].contains(first) else {
            throw UsageError("expected validate or sign, not " + (arguments.first.map { "\"\($0)\"" } ?? "nothing"))
        }
        subcommand = first
        parsed = try ParsedArguments(Array(arguments.dropFirst()), valueOptions: ["config", "app", "customer"], flagOptions: [])
        guard parsed.positionals.count == 1 else { throw UsageError("\(subcommand) needs one request FILE (or -)") }
        guard parsed.value("app") != nil, parsed.value("customer") != nil else {
            throw UsageError("\(subcommand) needs --app ID and --customer APP_USER_ID")
        }
        // The API's rule for app_user_id (the secret key's): an empty id, one past 256 bytes or
        // with a control character could never be matched to the customer it was signed for.
        if let refused = AppUserIdRule.problem(parsed.value("customer") ?? "", access: .secret, name: "--customer") {
            throw UsageError(refused.message)
        }
    }

    package func run() throws -> Int32 {
        let (config, app) = try AppleCommand.configuredApp(parsed)
        let json = try requestJSON()
        let customer = parsed.value("customer") ?? ""
        if subcommand == "sign", let listen = try CommandStore.servingAddress(config, for: "sign") {
            return try signThroughServer(json, for: customer, server: RunningServer(listen: listen, app: app, command: "sign"))
        }
        // Validating only reads, beside running servers or not; signing records the request.
        let outcome: CommerceRequests.Outcome
        if subcommand == "sign" {
            let store = try CommandStore.openApplying(config, to: "sign", command: "commerce")
            defer { store.close() }
            outcome = try CommerceRequests(app: app, reads: store, clock: Date.init)
                .prepare(json, for: customer, signingInto: store)
        } else {
            let reader = try CommandStore.reader(config)
            defer { reader.close() }
            outcome = try CommerceRequests(app: app, reads: reader, clock: Date.init)
                .prepare(json, for: customer, signingInto: nil)
        }
        switch outcome {
        case .invalid(let errors):
            StandardStreams.error(errors.map { "\($0)\n" }.joined())
            return 1
        case .valid(let request, let token):
            if let token {
                StandardStreams.out(CommerceAPI.signedBody(request, token: token).serialized(pretty: true) + "\n")
            } else {
                StandardStreams.out(try JSONValue(parsing: try request.json()).serialized(pretty: true) + "\n")
            }
            return 0
        }
    }

    /// The request file's bytes, or standard input's for `-`.
    private func requestJSON() throws -> Data {
        let path = parsed.positionals[0]
        guard path != "-" else { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let read = FileManager.default.contents(atPath: path) else {
            throw CommandError("cannot read the request file \(path)")
        }
        return read
    }

    /// Signing beside the running server that has the SQLite database: it signs and records the
    /// request, as for the app (`POST /v1/advanced-commerce/{appId}/requests`).
    private func signThroughServer(_ json: Data, for customer: String, server: RunningServer) throws -> Int32 {
        // What is not a request at all is said here, as without a server.
        let request: JSONValue
        do {
            _ = try InAppRequest(json: json)
            request = try JSONValue(parsing: json)
        } catch {
            StandardStreams.error("\(error)\n")
            return 1
        }
        let path = "/v1/advanced-commerce/\(RunningServer.pathComponent(server.appId))/requests"
        let (status, answer, text) = try server.exchange(
            path, .object(["app_user_id": .string(customer), "request": request]), timeoutSeconds: 30)
        switch (status, answer) {
        case (200, let answer?):
            StandardStreams.out(answer.serialized(pretty: true) + "\n")
            return 0
        case (422, let answer?):
            StandardStreams.error(CommerceAPI.errorLines(answer).map { $0 + "\n" }.joined())
            return 1
        default:
            throw CommandError(
                "the running server at \(server.listen) answered \(status): \(RunningServer.message(answer, text: text))")
        }
    }
}
