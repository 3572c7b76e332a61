import Server

extension NotificationCatalog {
    /// The catalog entries for renewals, billing failures and expiry.
    static let lifecycleEntries: [CatalogEntry] = [
        // MARK: - SUBSCRIBED
        CatalogEntry(
            type: "SUBSCRIBED",
            summary: "A customer started or restarted an auto-renewable subscription.",
            meaning: """
                A customer now has an auto-renewable subscription they did not have a moment ago: a first purchase \
                in the subscription group, or a return after it lapsed. Family members who gain access through \
                Family Sharing produce it too. The transaction's offerType tells you whether a trial or offer applies.
                """,
            cases: [
                CatalogCase(
                    name: "INITIAL_BUY",
                    meaning: """
                        The customer's first subscription in this group, paid, on a free trial, through an offer code, \
                        or received through Family Sharing.
                        """,
                    triggers: [
                        "A first purchase of any product in the subscription group",
                        "A first subscription through an offer code",
                        "A family member gaining the subscription through Family Sharing",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Grant the entitlement until the transaction's expiresDate, noting any trial or offer from offerType.",
                        "Link the transaction to your account (appAccountToken) and send a welcome message.",
                        "Store the notification, then answer 200; a retry with the same notificationUUID must change nothing.",
                    ],
                    example: .init(before: .nothing, newPeriod: true)
                ),
                CatalogCase(
                    name: "RESUBSCRIBE",
                    meaning: """
                        A customer whose subscription had expired subscribed again, to the same product or another one \
                        in the same group, or regained it through Family Sharing.
                        """,
                    triggers: [
                        "A lapsed customer buying any product in the same group again",
                        "A promotional offer, offer code or win-back offer redeemed after expiry",
                        "Family Sharing access returning to a family member",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Grant the entitlement again until the new expiresDate, on the product the transaction names.",
                        "Stop any win-back campaign for this customer and welcome them back.",
                        "Store the notification and answer 200; if the same notificationUUID arrives again, do nothing twice.",
                    ],
                    example: .init(before: .expired, newPeriod: true)
                ),
            ]
        ),

        // MARK: - DID_RENEW
        CatalogEntry(
            type: "DID_RENEW",
            summary: "A subscription renewed and a new billing period started.",
            meaning: """
                The App Store charged the customer for another period of an auto-renewable subscription. Usually this \
                is a routine renewal; with BILLING_RECOVERY it is a renewal that succeeded only after earlier failed \
                attempts.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "An active subscription renewed on schedule; the transaction carries the new period.",
                    triggers: [
                        "The renewal date passing with auto-renew on and a successful charge",
                        "A free trial or introductory offer converting to a paid period",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement and move its end to the new expiresDate.",
                        "Record a trial conversion if the previous period was a trial; no customer message is needed.",
                        "Store it and answer 200; a repeated notificationUUID is a retry and must be a no-op.",
                    ],
                    example: .init(before: .active, newPeriod: true)
                ),
                CatalogCase(
                    name: "BILLING_RECOVERY",
                    meaning: """
                        A subscription that had failed to renew for a billing reason was finally charged, so it is \
                        active again with a new period.
                        """,
                    triggers: [
                        "A billing retry by Apple that succeeds",
                        "The customer fixing their payment method during billing retry",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Restore or keep the entitlement until the new expiresDate and clear the billing-issue flag.",
                        "Stop the payment-update prompts and, if you like, thank the customer.",
                        "Store it and reply 200; handle a second delivery of the same notificationUUID as a no-op.",
                    ],
                    example: .init(before: .inGrace, newPeriod: true)
                ),
            ]
        ),

        // MARK: - DID_FAIL_TO_RENEW
        CatalogEntry(
            type: "DID_FAIL_TO_RENEW",
            summary: "A renewal charge failed; the subscription entered billing retry.",
            meaning: """
                The App Store could not charge the customer at renewal and starts retrying for up to 60 days. The \
                subtype says whether a billing grace period lets the customer keep access while Apple retries.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: """
                        The renewal failed and no grace period applies, so the paid period has ended while Apple keeps \
                        trying to collect. Apple sends it at the renewal date: the transaction's expiresDate has passed.
                        """,
                    triggers: [
                        "A declined or expired payment method at renewal, with grace period turned off for the app"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "End access (or limit it): it ended at the transaction's expiresDate. Mark the subscription as in "
                            + "billing retry, not cancelled.",
                        "Ask the customer to update their payment method in their Apple account settings.",
                        "Store it and answer 200; a retry with the same notificationUUID must not send a second prompt.",
                    ],
                    example: .init(before: .active)
                ),
                CatalogCase(
                    name: "GRACE_PERIOD",
                    meaning: """
                        The renewal failed but a billing grace period is running, so the customer keeps access until \
                        gracePeriodExpiresDate in the renewal info.
                        """,
                    triggers: [
                        "A declined or expired payment method at renewal, with grace period turned on for the app"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement until gracePeriodExpiresDate in the renewal info, although the transaction's "
                            + "expiresDate has passed, and flag a billing issue.",
                        "Prompt the customer to update their payment method before the grace period ends.",
                        "Store it and answer 200; treat a repeat of the same notificationUUID as already handled.",
                    ],
                    example: .init(before: .active)
                ),
            ]
        ),

        // MARK: - GRACE_PERIOD_EXPIRED
        CatalogEntry(
            type: "GRACE_PERIOD_EXPIRED",
            summary: "The billing grace period ran out without a successful renewal.",
            meaning: """
                The grace period ended and the customer still has not been charged, so access should stop. Apple \
                keeps retrying the payment within the 60-day billing retry window; a later success arrives as \
                DID_RENEW with BILLING_RECOVERY.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "Grace is over and billing retry continues; the customer should no longer have access.",
                    triggers: [
                        "The grace period's end date passing while the payment is still failing"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Revoke the entitlement, keeping the subscription marked as in billing retry.",
                        "Keep asking the customer to fix their payment method so the subscription can recover.",
                        "Store it, then answer 200; a retry carrying the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .inGrace)
                )
            ]
        ),

        // MARK: - EXPIRED
        CatalogEntry(
            type: "EXPIRED",
            summary: "A subscription ended and will not renew on its own.",
            meaning: """
                The subscription is over and access should end. The subtype gives the reason: the customer turned \
                off auto-renew, billing retry gave up, the customer did not accept a price increase, or the product \
                was no longer for sale. Without a subtype the reason is something else.
                """,
            cases: [
                CatalogCase(
                    name: "VOLUNTARY",
                    meaning: "The customer had turned off auto-renew, and the last paid period has now run out.",
                    triggers: [
                        "The customer cancelling in their subscription settings, then the period ending",
                        "Auto-renew turned off by the App Store after a refund request, then the period ending",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Revoke the entitlement.",
                        "Send a win-back offer or ask why they left, if your messaging policy allows.",
                        "Store it and answer 200; a retry with the same notificationUUID must not send a second offer.",
                    ],
                    example: .init(before: .autoRenewOff, autoRenewOn: false)
                ),
                CatalogCase(
                    name: "BILLING_RETRY",
                    meaning: "Apple stopped trying to collect payment after the billing retry window closed.",
                    triggers: [
                        "Billing retry reaching its end (up to 60 days) without a successful charge"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Revoke the entitlement if still granted and clear the billing-retry state.",
                        "Invite the customer to subscribe again with a working payment method.",
                        "Store it and answer 200; a duplicate notificationUUID is a retry to ignore.",
                    ],
                    // Apple's DID_FAIL_TO_RENEW began the retry, and reported the billing issue.
                    example: .init(before: .inBillingRetry)
                ),
                CatalogCase(
                    name: "PRICE_INCREASE",
                    meaning: "The subscription lapsed because the customer never agreed to a price increase that needed consent.",
                    triggers: [
                        "The renewal date passing with a consent-required price increase still unanswered or refused"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Revoke the entitlement.",
                        "Explain the new price or suggest a cheaper plan or offer to bring the customer back.",
                        "Store it and answer 200; make a second delivery of the same notificationUUID a no-op.",
                    ],
                    example: .init(before: .active, autoRenewOn: false)
                ),
                CatalogCase(
                    name: "PRODUCT_NOT_FOR_SALE",
                    meaning: "The subscription could not renew because its product was not available for sale at renewal time.",
                    triggers: [
                        "The developer removing the product from sale before the customer's renewal date"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Revoke the entitlement.",
                        "Point the customer to a product that is currently on sale.",
                        "Store it and answer 200; the same notificationUUID arriving again changes nothing.",
                    ],
                    example: .init(before: .active, autoRenewOn: false)
                ),
                CatalogCase(
                    name: nil,
                    meaning: "The subscription expired for a reason not covered by the other subtypes.",
                    triggers: [
                        "Any expiry Apple does not classify as voluntary, billing, price increase or product availability"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Revoke the entitlement and log the renewal info's expirationIntent for follow-up.",
                        "Send a neutral message inviting the customer to subscribe again, if appropriate.",
                        "Store it and answer 200; a retry of the same notificationUUID must be a no-op.",
                    ],
                    example: .init(before: .active)
                ),
            ]
        ),

    ]
}
