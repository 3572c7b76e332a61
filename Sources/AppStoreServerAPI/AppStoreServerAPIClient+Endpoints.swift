import AppStore
import Foundation

/// A page of a customer's transactions, each verified.
public struct TransactionPage: Sendable {
    public var revision: String?
    public var hasMore: Bool
    public var transactions: [VerifiedPayload<JWSTransactionDecodedPayload>]
    /// The same transactions as Apple signed them, in the same order.
    public var signedTransactions: [String]
}

/// One subscription of a Get All Subscription Statuses answer, its signed objects verified.
public struct VerifiedSubscriptionStatus: Sendable {
    public var subscriptionGroupIdentifier: String?
    public var status: SubscriptionStatus?
    public var originalTransactionId: String?
    public var transaction: VerifiedPayload<JWSTransactionDecodedPayload>?
    public var renewalInfo: VerifiedPayload<JWSRenewalInfoDecodedPayload>?
    /// The JWS as Apple signed them, to keep.
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
}

extension AppStoreServerAPIClient {
    // MARK: - Transactions

    /// Get Transaction Info.
    public func transactionInfo(_ transactionId: String) throws(AppStoreServerAPIError)
        -> VerifiedPayload<JWSTransactionDecodedPayload>
    {
        try signedTransactionInfo(transactionId).verified
    }

    /// Get Transaction Info, with the JWS as Apple signed it (to store as a posted one is).
    public func signedTransactionInfo(_ transactionId: String) throws(AppStoreServerAPIError) -> (
        signed: String, verified: VerifiedPayload<JWSTransactionDecodedPayload>
    ) {
        let endpoint = Endpoint.transactionInfo(transactionId: transactionId)
        let answer = try decode(TransactionInfoResponse.self, try send(endpoint), endpoint)
        guard let signed = answer.signedTransactionInfo else {
            throw AppStoreServerAPIError(.invalidAnswer("no signedTransactionInfo"), endpoint: endpoint.name)
        }
        let verified = try verified(endpoint) { () throws(VerificationError) in
            try verifier.verifyTransaction(signed, now: clockNow)
        }
        return (signed, verified)
    }

    /// One page of Get Transaction History (version 2).
    public func transactionHistoryPage(
        _ transactionId: String, filter: TransactionHistoryRequest = TransactionHistoryRequest(), revision: String? = nil
    ) throws(AppStoreServerAPIError) -> TransactionPage {
        let endpoint = Endpoint.transactionHistory(transactionId: transactionId, filter: filter, revision: revision)
        let answer = try decode(HistoryResponse.self, try send(endpoint), endpoint)
        return TransactionPage(
            revision: answer.revision, hasMore: answer.hasMore ?? false,
            transactions: try verifiedTransactions(answer.signedTransactions ?? [], endpoint),
            signedTransactions: answer.signedTransactions ?? [])
    }

    /// Every page of Get Transaction History (version 2), in Apple's order.
    public func transactionHistory(_ transactionId: String, filter: TransactionHistoryRequest = TransactionHistoryRequest())
        throws(AppStoreServerAPIError) -> [VerifiedPayload<JWSTransactionDecodedPayload>]
    {
        try signedTransactionHistory(transactionId, filter: filter).map(\.verified)
    }

    /// Every page of Get Transaction History (version 2), in Apple's order, each transaction with
    /// the JWS as Apple signed it (to store and verify again).
    public func signedTransactionHistory(
        _ transactionId: String, filter: TransactionHistoryRequest = TransactionHistoryRequest()
    ) throws(AppStoreServerAPIError) -> [(signed: String, verified: VerifiedPayload<JWSTransactionDecodedPayload>)] {
        var all: [(signed: String, verified: VerifiedPayload<JWSTransactionDecodedPayload>)] = []
        var revision: String?
        var seen: Set<String> = []
        repeat {
            let page = try transactionHistoryPage(transactionId, filter: filter, revision: revision)
            all += zip(page.signedTransactions, page.transactions).map { ($0, $1) }
            guard page.hasMore, let next = page.revision, seen.insert(next).inserted else { break }
            revision = next
        } while true
        return all
    }

    /// Get All Subscription Statuses, optionally of some statuses only.
    public func subscriptionStatuses(_ transactionId: String, statuses: [SubscriptionStatus] = [])
        throws(AppStoreServerAPIError) -> [VerifiedSubscriptionStatus]
    {
        let endpoint = Endpoint.allSubscriptionStatuses(transactionId: transactionId, statuses: statuses)
        let answer = try decode(StatusResponse.self, try send(endpoint), endpoint)
        var result: [VerifiedSubscriptionStatus] = []
        for group in answer.data ?? [] {
            for item in group.lastTransactions ?? [] {
                var status = VerifiedSubscriptionStatus(
                    subscriptionGroupIdentifier: group.subscriptionGroupIdentifier, status: item.status,
                    originalTransactionId: item.originalTransactionId, signedTransactionInfo: item.signedTransactionInfo,
                    signedRenewalInfo: item.signedRenewalInfo)
                if let signed = item.signedTransactionInfo {
                    status.transaction = try verified(endpoint) { () throws(VerificationError) in
                        try verifier.verifyTransaction(signed, now: clockNow)
                    }
                }
                if let signed = item.signedRenewalInfo {
                    status.renewalInfo = try verified(endpoint) { () throws(VerificationError) in
                        try verifier.verifyRenewalInfo(signed, now: clockNow)
                    }
                }
                result.append(status)
            }
        }
        return result
    }

    /// One page of Get Refund History (version 2).
    public func refundHistoryPage(_ transactionId: String, revision: String? = nil) throws(AppStoreServerAPIError)
        -> TransactionPage
    {
        let endpoint = Endpoint.refundHistory(transactionId: transactionId, revision: revision)
        let answer = try decode(RefundHistoryResponse.self, try send(endpoint), endpoint)
        return TransactionPage(
            revision: answer.revision, hasMore: answer.hasMore ?? false,
            transactions: try verifiedTransactions(answer.signedTransactions ?? [], endpoint),
            signedTransactions: answer.signedTransactions ?? [])
    }

    /// Look Up Order ID: whether the order is valid, and its transactions.
    public func lookUpOrderId(_ orderId: String) throws(AppStoreServerAPIError) -> (
        status: OrderLookupStatus?, transactions: [VerifiedPayload<JWSTransactionDecodedPayload>]
    ) {
        let endpoint = Endpoint.lookUpOrderId(orderId: orderId)
        let answer = try decode(OrderLookupResponse.self, try send(endpoint), endpoint)
        return (answer.status, try verifiedTransactions(answer.signedTransactions ?? [], endpoint))
    }

    /// Set App Account Token.
    public func setAppAccountToken(_ token: String, originalTransactionId: String) throws(AppStoreServerAPIError) {
        _ = try send(
            .setAppAccountToken(
                originalTransactionId: originalTransactionId, UpdateAppAccountTokenRequest(appAccountToken: token)))
    }

    // MARK: - Notifications

    /// One page of Get Notification History, its signed payloads as Apple sent them: the caller
    /// verifies each (ingest does, as for a pushed notification).
    public func notificationHistoryPage(_ request: NotificationHistoryRequest, paginationToken: String? = nil)
        throws(AppStoreServerAPIError) -> NotificationHistoryResponse
    {
        let endpoint = Endpoint.notificationHistory(request, paginationToken: paginationToken)
        return try decode(NotificationHistoryResponse.self, try send(endpoint), endpoint)
    }

    /// Request a Test Notification: the token to ask its status with.
    public func requestTestNotification() throws(AppStoreServerAPIError) -> String {
        let endpoint = Endpoint.requestTestNotification
        guard let token = try decode(SendTestNotificationResponse.self, try send(endpoint), endpoint).testNotificationToken
        else { throw AppStoreServerAPIError(.invalidAnswer("no testNotificationToken"), endpoint: endpoint.name) }
        return token
    }

    /// Get Test Notification Status: the test notification, verified, and Apple's attempts.
    public func testNotificationStatus(_ token: String) throws(AppStoreServerAPIError) -> (
        notification: VerifiedNotification?, attempts: [SendAttemptItem]
    ) {
        let endpoint = Endpoint.testNotificationStatus(token: token)
        let answer = try decode(CheckTestNotificationResponse.self, try send(endpoint), endpoint)
        let notification = try answer.signedPayload.map { (signed) throws(AppStoreServerAPIError) in
            try verified(endpoint) { () throws(VerificationError) in try verifier.verifyNotification(signed, now: clockNow) }
        }
        return (notification, answer.sendAttempts ?? [])
    }

    // MARK: - Changes

    /// Send Consumption Information (version 2).
    public func sendConsumptionInformation(_ request: ConsumptionRequest, transactionId: String)
        throws(AppStoreServerAPIError)
    {
        _ = try send(.sendConsumptionInformation(transactionId: transactionId, request))
    }

    /// Send Consumption Information V1, which Apple takes for Advanced Commerce purchases only.
    public func sendConsumptionInformationV1(_ request: ConsumptionRequestV1, transactionId: String)
        throws(AppStoreServerAPIError)
    {
        _ = try send(.sendConsumptionInformationV1(transactionId: transactionId, request))
    }

    /// Extend a Subscription Renewal Date.
    public func extendRenewalDate(_ request: ExtendRenewalDateRequest, originalTransactionId: String)
        throws(AppStoreServerAPIError) -> ExtendRenewalDateResponse
    {
        let endpoint = Endpoint.extendRenewalDate(originalTransactionId: originalTransactionId, request)
        return try decode(ExtendRenewalDateResponse.self, try send(endpoint), endpoint)
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers.
    public func extendRenewalDatesForAllActiveSubscribers(_ request: MassExtendRenewalDateRequest)
        throws(AppStoreServerAPIError) -> MassExtendRenewalDateResponse
    {
        let endpoint = Endpoint.extendRenewalDatesForAllActiveSubscribers(request)
        return try decode(MassExtendRenewalDateResponse.self, try send(endpoint), endpoint)
    }

    /// Get Status of Subscription Renewal Date Extensions.
    public func renewalDateExtensionStatus(productId: String, requestIdentifier: String) throws(AppStoreServerAPIError)
        -> MassExtendRenewalDateStatusResponse
    {
        let endpoint = Endpoint.renewalDateExtensionStatus(productId: productId, requestIdentifier: requestIdentifier)
        return try decode(MassExtendRenewalDateStatusResponse.self, try send(endpoint), endpoint)
    }

    // MARK: - Helpers

    var clockNow: Date { clock() }

    private func verifiedTransactions(_ signed: [String], _ endpoint: Endpoint) throws(AppStoreServerAPIError)
        -> [VerifiedPayload<JWSTransactionDecodedPayload>]
    {
        var result: [VerifiedPayload<JWSTransactionDecodedPayload>] = []
        for jws in signed {
            result.append(
                try verified(endpoint) { () throws(VerificationError) in try verifier.verifyTransaction(jws, now: clockNow) })
        }
        return result
    }
}
