import AdvancedCommerce
import Testing

/// version, operation and requestInfo rules, which every request type shares.
@Suite struct EnvelopeRuleTests {
    static func cases<Request: AdvancedCommerceInAppRequest & EnvelopeFields>(_ valid: Request) -> [RuleCase] {
        let type = "\(Request.self)"
        let wrongOperation: InAppOperation =
            Request.expectedOperation == .modifySubscription ? .createSubscription : .modifySubscription
        return [
            RuleCase("\(type) version missing", with(valid) { $0.version = nil }, "NullVersionError", 4000083, at: "version"),
            RuleCase("\(type) version 2", with(valid) { $0.version = "2" }, "UnexpectedVersionError", 4000084, at: "version"),
            RuleCase(
                "\(type) operation missing", with(valid) { $0.operation = nil }, "InvalidOperationError", 4000172, at: "operation"
            ),
            RuleCase(
                "\(type) operation of another request", with(valid) { $0.operation = wrongOperation }, "InvalidOperationError",
                4000172, at: "operation"),
            RuleCase(
                "\(type) operation unknown", with(valid) { $0.operation = .unknown("CANCEL") }, "InvalidOperationError",
                4000172, at: "operation"),
            RuleCase(
                "\(type) requestInfo missing", with(valid) { $0.requestInfo = nil }, "NullRequestInfoError", 4000079,
                at: "requestInfo"),
            RuleCase(
                "\(type) requestReferenceId missing", with(valid) { $0.requestInfo?.requestReferenceId = nil },
                "NullRequestReferenceIDError", 4000080, at: "requestInfo.requestReferenceId"),
            RuleCase(
                "\(type) requestReferenceId not a UUID", with(valid) { $0.requestInfo?.requestReferenceId = "order-1" },
                "InvalidRequestReferenceIDError", 4000081, at: "requestInfo.requestReferenceId"),
            RuleCase(
                "\(type) appAccountToken not a UUID", with(valid) { $0.requestInfo?.appAccountToken = "user-42" },
                "InvalidAppAccountTokenError", 4000033, at: "requestInfo.appAccountToken"),
            RuleCase(
                "\(type) consistencyToken empty", with(valid) { $0.requestInfo?.consistencyToken = "" },
                "InvalidConsistencyTokenError", 4000082, at: "requestInfo.consistencyToken"),
        ]
    }

    static let allCases =
        cases(Valid.oneTime) + cases(Valid.create) + cases(Valid.addItem) + cases(Valid.reactivate)

    @Test(arguments: allCases)
    func reportsAppleError(_ rule: RuleCase) {
        #expect(rule.isReported, "got \(rule.errors)")
    }

    @Test func emptyAppAccountTokenAndAnyConsistencyTokenAreAccepted() {
        let request = with(Valid.create) {
            $0.requestInfo?.appAccountToken = ""
            $0.requestInfo?.consistencyToken = "1.12345.932c6903-0ab8-4469-9f21-015f6fab013c"
            $0.previousTransactionId = "2000000123456789"
        }
        #expect(AdvancedCommerceValidator.validate(request) == [])
    }
}

/// The fields every in-app request has, so the envelope table can be written once for all four types.
protocol EnvelopeFields {
    var operation: InAppOperation? { get set }
    var version: String? { get set }
    var requestInfo: RequestInfo? { get set }
}

extension OneTimeChargeCreateRequest: EnvelopeFields {}
extension SubscriptionCreateRequest: EnvelopeFields {}
extension SubscriptionModifyInAppRequest: EnvelopeFields {}
extension SubscriptionReactivateInAppRequest: EnvelopeFields {}
