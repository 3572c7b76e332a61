extension LiveValidator {
    /// A create request that resubscribes (`previousTransactionId`) names a transaction of one of
    /// the customer's subscriptions (else `TransactionIdNotFoundError`), which must have lapsed
    /// (else `SubscriptionAlreadyActiveError`: one still active is modified or reactivated); its
    /// `consistencyToken`, which Apple asks for when resubscribing, is filled from that
    /// subscription's renewal info when left out. An initial create is not held against the
    /// customer's other subscriptions: it names neither the generic product (an app may have
    /// two, each alone in its group: one for the Mini Apps Partner Program) nor the environment
    /// it will be bought in, so only Apple can tell whether it would be a second subscription in
    /// one group.
    public static func validate(
        _ request: SubscriptionCreateRequest, subscriptions: [LiveSubscription], usedRequestReferenceIds: Set<String>
    ) -> (request: SubscriptionCreateRequest, errors: [ValidationError]) {
        var request = request
        let reference = request.requestInfo?.requestReferenceId
        guard let previous = request.previousTransactionId else {
            return (request, repeatedReference(reference, used: usedRequestReferenceIds))
        }
        var (live, errors) = locate(
            previous, reference: reference, in: subscriptions, used: usedRequestReferenceIds, field: "previousTransactionId")
        guard let live else { return (request, errors) }
        if live.isActive { errors.append(ValidationError(.subscriptionAlreadyActive, field: "previousTransactionId")) }
        live.fillConsistencyToken(&request.requestInfo)
        return (request, errors)
    }
}
