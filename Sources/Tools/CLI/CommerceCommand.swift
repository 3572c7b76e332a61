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
          "operation"). Apple's rules are checked, and a modify request against the customer's
          live subscription; a missing requestReferenceId is generated and a missing
          consistencyToken filled from the latest renewal info.
          validate  prints the request as it would be signed, or Apple's errors (exit 1)
          sign      also signs it with the app's inAppPurchaseKey, records it as pending, and
                    prints {"token", "requestReferenceId", "advancedCommerceData"}
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
        let (config, store) = try CommandStore.open(parsed)
        defer { store.close() }
        let appId = parsed.value("app") ?? ""
        guard let app = config.apps.first(where: { $0.id == appId }) else {
            throw UsageError("no app \"\(appId)\" is configured")
        }
        let path = parsed.positionals[0]
        let json: Data
        if path == "-" {
            json = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let read = FileManager.default.contents(atPath: path) else {
                throw UsageError("cannot read the request file \(path)")
            }
            json = read
        }
        let outcome = try CommerceRequests(app: app, store: store, clock: Date.init)
            .prepare(json, for: parsed.value("customer") ?? "", sign: subcommand == "sign")
        switch outcome {
        case .invalid(let errors):
            StandardStreams.error(errors.map { "\($0)\n" }.joined())
            return 1
        case .valid(let request, let token):
            if let token {
                let body = JSONValue.object([
                    "token": .string(token), "requestReferenceId": .string(request.requestReferenceId ?? ""),
                    "advancedCommerceData": .object(["signatureInfo": .object(["token": .string(token)])]),
                ])
                StandardStreams.out(body.serialized(pretty: true) + "\n")
            } else {
                StandardStreams.out(try JSONValue(parsing: try request.json()).serialized(pretty: true) + "\n")
            }
            return 0
        }
    }
}
