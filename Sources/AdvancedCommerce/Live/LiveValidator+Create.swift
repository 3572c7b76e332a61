extension LiveValidator {
    /// A create request that resubscribes (`previousTransactionId`) names a transaction of one of
    /// the customer's subscriptions (else `TransactionIdNotFoundError`), which must have lapsed
    /// (else `SubscriptionAlreadyActiveError`: one still active is modified or reactivated); its
    /// `consistencyToken`, which Apple asks for when resubscribing, is filled from that
    /// subscription's renewal info when left out. An initial create is checked only for a
    /// repeated `requestReferenceId`.
    public static func validate(
        _ request: SubscriptionCreateRequest, subscriptions: [LiveSubscription], usedRequestReferenceIds: Set<String>
    ) -> (request: SubscriptionCreateRequest, errors: [ValidationError]) {
        var request = request
        var errors: [ValidationError] = []
        if let reference = request.requestInfo?.requestReferenceId, usedRequestReferenceIds.contains(reference) {
            errors.append(ValidationError(.repeatedRequestReferenceId, field: "requestInfo.requestReferenceId"))
        }
        guard let previous = request.previousTransactionId else { return (request, errors) }
        guard let live = subscriptions.first(where: { $0.transactionIds.contains(previous) }) else {
            errors.append(
                ValidationError(
                    .transactionIdNotFound, field: "previousTransactionId",
                    detail: "It is not a transaction of this customer's subscriptions."))
            return (request, errors)
        }
        if live.isActive { errors.append(ValidationError(.subscriptionAlreadyActive, field: "previousTransactionId")) }
        if request.requestInfo != nil, request.requestInfo?.consistencyToken == nil {
            request.requestInfo?.consistencyToken = live.consistencyToken
        }
        return (request, errors)
    }
}
