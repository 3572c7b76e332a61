import AppStore

/// Who reports an auto-renew change: a renewal-status notification or an answer of Apple's
/// (reconciliation) that saw it, whichever RevenueDot learned of first, once.
///
/// A change is a run: the facts, in fold order, between one turn of auto-renew and the next,
/// all with the value it turned to. Each fact that turns it reports the change unless another
/// fact of its run already did; facts that only restate the value join the run. A run is the
/// same whatever order its facts arrived in, so each change is reported once in every order,
/// and two changes in one direction within a period (off, on, off) are two reports.
extension SubscriptionState {
    /// The cause of the event an answer of Apple's gives for the change it saw.
    func answerAutoRenewCause(_ fact: PurchaseFact, enabled: Bool) -> String {
        "\(originalTransactionId)/AUTO_RENEW/\(fact.id)/\(enabled ? "ENABLED" : "DISABLED")"
    }

    /// The cause an earlier build gave an answer's auto-renew event: one per period and
    /// direction. Still read, so that a change it reported is not reported again.
    func legacyAnswerAutoRenewCause(period: String?, enabled: Bool) -> String? {
        guard let period else { return nil }
        let subtype: Subtype = enabled ? .autoRenewEnabled : .autoRenewDisabled
        return "\(originalTransactionId)/AUTO_RENEW/\(period)/\(subtype.rawValue)"
    }

    /// Whether a fact of `fact`'s run other than itself already reported the change:
    /// `byNotifications` too, or only answers of Apple's (or, for an answer, whether an earlier
    /// build reported it for this very answer: `isLegacyReporter`).
    func autoRenewChangeReported(around fact: PurchaseFact, byNotifications: Bool) -> Bool {
        // Most subscriptions were never looked up: their notifications need no refold here.
        guard byNotifications || journal.facts.contains(where: { $0.source == .appleAPI }) else { return false }
        let steps = autoRenewSteps()
        guard let index = steps.firstIndex(where: { $0.fact.id == fact.id }) else { return false }
        return steps[Self.runBounds(steps, around: index)].contains { step in
            guard let enabled = step.enabled else { return false }
            if isLegacyReporter(step, in: steps) { return true }
            guard step.fact.id != fact.id else { return false }
            switch step.fact.source {
            case .appleAPI:
                return journal.hasEmitted(EventID.make(cause: answerAutoRenewCause(step.fact, enabled: enabled)))
            case .notification(.didChangeRenewalStatus, _) where byNotifications:
                let name = enabled ? "UNCANCELLATION" : "CANCELLATION"
                return journal.hasEmitted(EventID.make(cause: "notification/\(step.fact.id)/\(name)"))
            default:
                return false
            }
        }
    }

    /// Whether an earlier build's report, one per period and direction
    /// (`legacyAnswerAutoRenewCause`), stands for `step`'s change: it was sent, and `step` is
    /// the first answer of that period saying that direction, so it stands for one change only.
    func isLegacyReporter(_ step: AutoRenewStep, in steps: [AutoRenewStep]) -> Bool {
        guard step.fact.source == .appleAPI, let enabled = step.enabled,
            let legacy = legacyAnswerAutoRenewCause(period: step.period, enabled: enabled),
            journal.hasEmitted(EventID.make(cause: legacy))
        else { return false }
        let first = steps.first { $0.fact.source == .appleAPI && $0.period == step.period && $0.enabled == enabled }
        return first?.fact.id == step.fact.id
    }

    /// The reports a fact arriving inside a change owes: it splits that change's run in two, and
    /// the part whose facts were kept silent by a report that is now in the other part reports
    /// itself, through the fact that turns it (a renewal-status notice or an answer of Apple's).
    /// Without it, a change learned of between two facts of one direction was never reported.
    func autoRenewReportsOfSplitRuns(around fact: PurchaseFact) -> [Event] {
        // The newest fact (delivery in order, the common case) splits nothing; nor does anything
        // where no answer of Apple's ever kept a fact silent.
        guard journal.facts.last?.id != fact.id, journal.facts.contains(where: { $0.source == .appleAPI }) else {
            return []
        }
        let steps = autoRenewSteps()
        guard let index = steps.firstIndex(where: { $0.fact.id == fact.id }) else { return [] }
        let own = Self.runBounds(steps, around: index)
        var turns: [Int] = []
        if own.lowerBound > 0 { turns.append(Self.runBounds(steps, around: own.lowerBound - 1).lowerBound) }
        if own.upperBound + 1 < steps.count { turns.append(own.upperBound + 1) }
        return turns.flatMap { turn -> [Event] in
            let turning = steps[turn].fact
            guard turn > 0, turning.source == .appleAPI || turning.notificationType == .didChangeRenewalStatus else {
                return []
            }
            var before = unfolded()
            for earlier in journal.facts[..<turn] { before.absorb(earlier) }
            var after = before
            after.absorb(turning)
            return ownEvents(for: turning, before: before, after: after).filter { event in
                event.type == .uncancellation || (event.type == .cancellation && event.cancelReason == .unsubscribe)
            }
        }
    }

    /// One fact in fold order with auto-renew and the current period as the fold leaves them.
    struct AutoRenewStep {
        var fact: PurchaseFact
        var enabled: Bool?
        var period: String?
    }

    /// Every fact in fold order, with what the fold leaves after it.
    func autoRenewSteps() -> [AutoRenewStep] {
        var running = unfolded()
        return journal.facts.map { each in
            running.absorb(each)
            return AutoRenewStep(fact: each, enabled: running.autoRenewEnabled, period: running.transactionId)
        }
    }

    /// The indices of the run `index` is in: the steps next to it with the same value.
    static func runBounds(_ steps: [AutoRenewStep], around index: Int) -> ClosedRange<Int> {
        let value = steps[index].enabled
        var start = index
        while start > 0, steps[start - 1].enabled == value { start -= 1 }
        var end = index
        while end + 1 < steps.count, steps[end + 1].enabled == value { end += 1 }
        return start...end
    }
}
