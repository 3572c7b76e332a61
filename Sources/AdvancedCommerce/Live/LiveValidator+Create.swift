extension LiveValidator {
    /// A create request that resubscribes (`previousTransactionId`) names a transaction of one of
    /// the customer's subscriptions (else `TransactionIdNotFoundError`), which must have lapsed
    /// (else `SubscriptionAlreadyActiveError`: one still active is modified or reactivated); its
    /// `consistencyToken`, which Apple asks for when resubscribing, is filled from that
    /// subscription's renewal info when left out. An initial create is refused while the customer
    /// has an active subscription (`SubscriptionAlreadyActiveError`): Apple's generic subscription
    /// product sits alone in its group, so a customer holds one at a time and changes it with a
    /// modify request.
    public static func validate(
        _ request: SubscriptionCreateRequest, subscriptions: [LiveSubscription], usedRequestReferenceIds: Set<String>
    ) -> (request: SubscriptionCreateRequest, errors: [ValidationError]) {
        var request = request
        let reference = request.requestInfo?.requestReferenceId
        guard let previous = request.previousTransactionId else {
            var errors = repeatedReference(reference, used: usedRequestReferenceIds)
            if subscriptions.contains(where: \.isActive) {
                errors.append(
                    ValidationError(
                        .subscriptionAlreadyActive, field: "operation",
                        detail: "The customer has an active subscription: modify it instead of creating another."))
            }
            return (request, errors)
        }
        var (live, errors) = locate(
            previous, reference: reference, in: subscriptions, used: usedRequestReferenceIds, field: "previousTransactionId")
        guard let live else { return (request, errors) }
        if live.isActive { errors.append(ValidationError(.subscriptionAlreadyActive, field: "previousTransactionId")) }
        live.fillConsistencyToken(&request.requestInfo)
        return (request, errors)
    }
}
