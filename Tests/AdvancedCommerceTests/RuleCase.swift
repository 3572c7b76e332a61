import AdvancedCommerce
import Foundation
import Testing

/// One row of a rule table: a request broken in one way, and the Apple error it must produce.
struct RuleCase: Sendable, CustomTestStringConvertible {
    let label: String
    let errors: [ValidationError]
    let name: String
    let code: Int
    let field: String

    init<Request: AdvancedCommerceInAppRequest>(
        _ label: String, _ request: Request, _ name: String, _ code: Int, at field: String
    ) {
        self.label = label
        self.errors = AdvancedCommerceValidator.validate(request)
        self.name = name
        self.code = code
        self.field = field
    }

    var testDescription: String { "\(label) → \(name)" }

    /// Whether the expected error was reported for the expected field.
    var isReported: Bool {
        errors.contains { $0.name == name && $0.code == code && $0.field == field }
    }
}

/// Valid requests to break, one per type.
enum Valid {
    static let oneTime = try! AppleExamples.decode(AppleExamples.oneTimeCharge, as: OneTimeChargeCreateRequest.self)
    static let create = try! AppleExamples.decode(AppleExamples.subscriptionCreate, as: SubscriptionCreateRequest.self)
    static let upgrade = try! AppleExamples.decode(
        AppleExamples.modifyUpgradeWithPeriodChange, as: SubscriptionModifyInAppRequest.self)
    static let addItem = try! AppleExamples.decode(AppleExamples.modifyAddItem, as: SubscriptionModifyInAppRequest.self)
    static let downgrade = try! AppleExamples.decode(AppleExamples.modifyDowngrade, as: SubscriptionModifyInAppRequest.self)
    static let reactivate = try! AppleExamples.decode(
        AppleExamples.subscriptionReactivate, as: SubscriptionReactivateInAppRequest.self)
}

/// A copy of `value` with `change` applied.
func with<Value>(_ value: Value, _ change: (inout Value) -> Void) -> Value {
    var copy = value
    change(&copy)
    return copy
}

/// A string of `count` one-unit Characters (one UTF-16 code unit each, the count the limits use),
/// so one past a limit is refused at exactly that length.
func text(_ count: Int, _ character: Character = "a") -> String {
    String(repeating: character, count: count)
}
