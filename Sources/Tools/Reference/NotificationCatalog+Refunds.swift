import Server

extension NotificationCatalog {
    /// The catalog entries for refunds, consumption requests and Family Sharing revocation.
    static let refundsEntries: [CatalogEntry] = [
        // MARK: - REFUND
        CatalogEntry(
            type: "REFUND",
            summary: "The App Store refunded an in-app purchase or subscription transaction.",
            meaning: """
                Apple refunded a transaction of any product type. The transaction carries revocationDate, \
                revocationReason and revocationType: REFUND_FULL, or REFUND_PRORATED with revocationPercentage (in \
                thousandths of a percent) for a share; the content bought with it should be taken back.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "A transaction was refunded, so the customer is no longer entitled to what it bought.",
                    triggers: [
                        "Apple approving a customer's refund request",
                        "A refund issued by Apple support for another reason",
                    ],
                    whatToDo: [
                        "Verify the signed payload and its transaction up to Apple's root; check bundle ID and environment.",
                        "Revoke what the transaction granted: end subscription access or take back the content.",
                        "Record revocationReason, and for revenue the refunded share (revocationType, revocationPercentage).",
                        "Do not message the customer in a way that blames them.",
                        "Store it and answer 200; a retry with the same notificationUUID must not revoke twice.",
                    ],
                    // Apple turns auto-renew off once a refund is requested.
                    example: .init(before: .active, autoRenewOn: false, revoked: true)
                )
            ]
        ),

        // MARK: - REFUND_DECLINED
        CatalogEntry(
            type: "REFUND_DECLINED",
            summary: "The App Store turned down a customer's refund request.",
            meaning: """
                A refund request was reviewed and refused. The purchase stands, so nothing changes for the customer's \
                access.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "Apple refused the refund; the transaction and its content remain valid.",
                    triggers: [
                        "Apple declining a refund request the customer made"
                    ],
                    whatToDo: [
                        "Verify the signed payload and its transaction up to Apple's root; check bundle ID and environment.",
                        "Change nothing about the entitlement.",
                        "Close any open refund case you track for this transaction.",
                        "Store it and answer 200; a repeat of the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .active)
                )
            ]
        ),

        // MARK: - REFUND_REVERSED
        CatalogEntry(
            type: "REFUND_REVERSED",
            summary: "A refund was reversed after a dispute; the purchase is valid again.",
            meaning: """
                Apple took back a refund it had granted, usually after the customer disputed it. The content should \
                be given back; for a subscription the renewal date stays the same.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "An earlier refund no longer holds, so the customer is entitled to the content again.",
                    triggers: [
                        "A dispute over a refund being resolved in the purchase's favour"
                    ],
                    whatToDo: [
                        "Verify the signed payload and its transaction up to Apple's root; check bundle ID and environment.",
                        "Reinstate the content or subscription access the refund had removed, keeping the existing expiresDate.",
                        "Tell the customer their access is back, if you had told them it was removed.",
                        "Store it and answer 200; handle a retry with the same notificationUUID as a no-op.",
                    ],
                    example: .init(before: .refunded)
                )
            ]
        ),

        // MARK: - CONSUMPTION_REQUEST
        CatalogEntry(
            type: "CONSUMPTION_REQUEST",
            summary: "Apple asks for usage data to decide a refund request.",
            meaning: """
                A customer asked for a refund of a consumable or an auto-renewable subscription, and Apple invites \
                you to send consumption information before it decides. data.consumptionRequestReason gives the \
                customer's stated reason. Each new request has its own notificationUUID.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "A refund request is pending, and Apple would like to know how much of the purchase was used.",
                    triggers: [
                        "A customer requesting a refund for a consumable or an auto-renewable subscription"
                    ],
                    whatToDo: [
                        "Verify the signed payload and its transaction up to Apple's root; check bundle ID and environment.",
                        "Leave the entitlement unchanged; the refund is not decided yet.",
                        "Send consumption information for the transaction promptly, within what the customer agreed to share.",
                        "Store it and answer 200; a retry with the same notificationUUID must not send the data twice.",
                    ],
                    example: .init(before: .active)
                )
            ]
        ),

        // MARK: - REVOKE
        CatalogEntry(
            type: "REVOKE",
            summary: "A family member lost access to a purchase shared through Family Sharing.",
            meaning: """
                Something the customer received through Family Sharing is no longer available to them, because the \
                purchaser stopped sharing, left the family group, or was refunded.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "The shared purchase was withdrawn from this family member, so their access ends.",
                    triggers: [
                        "The purchaser turning off Family Sharing for the product",
                        "The purchaser or the member leaving the family group",
                        "The purchaser receiving a refund",
                    ],
                    whatToDo: [
                        "Verify the signed payload and its transaction up to Apple's root; check bundle ID and environment.",
                        "Revoke the family member's entitlement (inAppOwnershipType FAMILY_SHARED).",
                        "Let them know they can subscribe on their own to keep access.",
                        "Store it and answer 200; treat a retry with the same notificationUUID as already done.",
                    ],
                    example: .init(before: .familyShared, revoked: true)
                )
            ]
        ),

    ]
}
