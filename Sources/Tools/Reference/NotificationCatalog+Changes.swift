import Server

extension NotificationCatalog {
    /// The catalog entries for plan changes, auto-renew status, offers and price increases.
    static let changesEntries: [CatalogEntry] = [
        // MARK: - DID_CHANGE_RENEWAL_PREF
        CatalogEntry(
            type: "DID_CHANGE_RENEWAL_PREF",
            summary: "A customer switched to another plan in the same subscription group.",
            meaning: """
                The customer picked a different product in the same group. An upgrade (or a cross-grade of the same \
                duration) applies at once and starts a new period, with the old one refunded pro rata; a downgrade \
                (or a cross-grade of a different duration) waits for the next renewal. No subtype means a pending \
                downgrade was cancelled.
                """,
            cases: [
                CatalogCase(
                    name: "UPGRADE",
                    meaning: """
                        The new, higher-level plan applies immediately with a new billing period; the unused part of \
                        the old plan is refunded pro rata.
                        """,
                    triggers: [
                        "Moving to a higher-level product in the group",
                        "A cross-grade to a product with the same duration",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Move the entitlement to the new product now, until the new expiresDate.",
                        "Confirm the plan change to the customer.",
                        "Store it and answer 200; a repeated notificationUUID must not apply the change twice.",
                    ],
                    example: .init(before: .active, productId: "pro.yearly", newPeriod: true)
                ),
                CatalogCase(
                    name: "DOWNGRADE",
                    meaning: """
                        The customer chose a lower-level plan that starts at the next renewal; the current plan stays \
                        until then.
                        """,
                    triggers: [
                        "Moving to a lower-level product in the group",
                        "A cross-grade to a product with a different duration",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the current entitlement and record autoRenewProductId as the pending plan.",
                        "Confirm the change and the date it takes effect.",
                        "Store it and answer 200; treat a retry with the same notificationUUID as a no-op.",
                    ],
                    example: .init(before: .active, autoRenewProductId: "pro.basic")
                ),
                CatalogCase(
                    name: nil,
                    meaning: "The customer went back to their current plan, cancelling a downgrade that had not yet started.",
                    triggers: [
                        "Selecting the current product again while a downgrade is pending"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement as it is and clear the pending plan change.",
                        "Confirm that the current plan will continue to renew.",
                        "Store it and answer 200; the same notificationUUID seen again is a no-op.",
                    ],
                    example: .init(before: .active)
                ),
            ]
        ),

        // MARK: - DID_CHANGE_RENEWAL_STATUS
        CatalogEntry(
            type: "DID_CHANGE_RENEWAL_STATUS",
            summary: "Auto-renew was turned on or off for a subscription.",
            meaning: """
                The subscription's auto-renew setting changed. Access is not affected right away: turning it off \
                means the subscription ends at the close of the current period unless it is turned back on.
                """,
            cases: [
                CatalogCase(
                    name: "AUTO_RENEW_ENABLED",
                    meaning: "Auto-renew is back on, so the subscription will renew at the end of the current period.",
                    triggers: [
                        "The customer turning auto-renew back on in their subscription settings"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement and clear the will-not-renew flag.",
                        "Cancel any retention or win-back messages that were scheduled.",
                        "Store it and answer 200; a retried notificationUUID must be ignored.",
                    ],
                    example: .init(before: .autoRenewOff)
                ),
                CatalogCase(
                    name: "AUTO_RENEW_DISABLED",
                    meaning: """
                        Auto-renew is off, so the subscription will end at its current expiresDate; the customer keeps \
                        access until then.
                        """,
                    triggers: [
                        "The customer cancelling in their subscription settings",
                        "The App Store turning auto-renew off after the customer requests a refund",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement until expiresDate and mark the subscription as not renewing.",
                        "Consider a retention offer or a short survey before the period ends.",
                        "Store it and answer 200; handle a retry with the same notificationUUID as a no-op.",
                    ],
                    example: .init(before: .active, autoRenewOn: false)
                ),
            ]
        ),

        // MARK: - OFFER_REDEEMED
        CatalogEntry(
            type: "OFFER_REDEEMED",
            summary: "A customer with an active subscription redeemed a promotional offer or offer code.",
            meaning: """
                An already-subscribed customer redeemed an offer. It may move them to a higher plan at once, to a \
                lower plan at the next renewal, or apply to the plan they already have (no subtype). Offers redeemed \
                after expiry arrive as SUBSCRIBED instead.
                """,
            cases: [
                CatalogCase(
                    name: "UPGRADE",
                    meaning: "The offer moves the customer to a higher-level plan, effective immediately with a new period.",
                    triggers: [
                        "Redeeming a promotional offer or offer code for a higher-level product in the group"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Move the entitlement to the new product now and record the offer from offerType and offerIdentifier.",
                        "Confirm the new plan and the offer terms to the customer.",
                        "Store it and answer 200; a repeated notificationUUID must not apply the offer twice.",
                    ],
                    example: .init(before: .active, productId: "pro.yearly", newPeriod: true)
                ),
                CatalogCase(
                    name: "DOWNGRADE",
                    meaning: "The offer moves the customer to a lower-level plan, starting at the next renewal.",
                    triggers: [
                        "Redeeming a promotional offer or offer code for a lower-level product in the group"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the current entitlement and record the pending plan and offer from the renewal info.",
                        "Confirm when the new plan and its offer begin.",
                        "Store it and answer 200; treat a retry with the same notificationUUID as a no-op.",
                    ],
                    example: .init(before: .active, autoRenewProductId: "pro.basic")
                ),
                CatalogCase(
                    name: nil,
                    meaning: "The offer applies to the customer's current plan, for example a discounted next period.",
                    triggers: [
                        "Redeeming a promotional offer or offer code for the product already subscribed to"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement and record the redeemed offer for reporting.",
                        "Acknowledge the offer to the customer if you promoted it.",
                        "Store it and answer 200; the same notificationUUID delivered again is a no-op.",
                    ],
                    example: .init(before: .active)
                ),
            ]
        ),

        // MARK: - PRICE_INCREASE
        CatalogEntry(
            type: "PRICE_INCREASE",
            summary: "Apple told a subscriber about a price increase for their subscription.",
            meaning: """
                The system informed the customer that the subscription's price is going up. Some increases need the \
                customer's consent before renewal; the subtype says whether that consent is still outstanding or the \
                new price is accepted.
                """,
            cases: [
                CatalogCase(
                    name: "PENDING",
                    meaning: """
                        The increase needs consent and the customer has not answered yet; without consent the \
                        subscription expires at renewal.
                        """,
                    triggers: [
                        "A consent-required price increase being shown to the customer"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Leave the entitlement unchanged and record priceIncreaseStatus from the renewal info.",
                        "Remind the customer to review the new price so their subscription does not lapse.",
                        "Store it and answer 200; a retry with the same notificationUUID must not send another reminder.",
                    ],
                    example: .init(before: .active)
                ),
                CatalogCase(
                    name: "ACCEPTED",
                    meaning: "The customer agreed to the new price, or the increase did not need their consent.",
                    triggers: [
                        "The customer consenting to a consent-required increase",
                        "A price increase that applies without consent",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Leave the entitlement unchanged and record the new renewal price.",
                        "Stop any price-increase reminders for this customer.",
                        "Store it and answer 200; a duplicate notificationUUID is a no-op.",
                    ],
                    example: .init(before: .active)
                ),
            ]
        ),

    ]
}
