/// What an applied input was, as `applied_inputs.kind` stores it: replay reads the input again
/// by its `ref` from where this kind keeps it. The raw values are the stored text.
public enum AppliedInputKind: String, Sendable, CaseIterable {
    /// A notification of Apple's; `ref` is its `notification_uuid` (`notifications`).
    case notification
    /// A StoreKit transaction an app posted; `ref` is its row id (`posted_transactions`).
    case postedTransaction = "posted_transaction"
    /// One of Apple's answers about a purchase; `ref` is its row id (`apple_answers`).
    case appleAnswer = "apple_answer"
    /// What the API did to a customer; `ref` is its row id (`customer_actions`).
    case customerAction = "customer_action"
    /// A timer that fired; `ref` is the timer itself, encoded.
    case timer
}
