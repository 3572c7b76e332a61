extension NotificationCatalog {
    /// Every notificationType of App Store Server Notifications V2, in Apple's documentation order.
    static let entries: [CatalogEntry] = [
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
                        trying to collect.
                        """,
                    triggers: [
                        "A declined or expired payment method at renewal, with grace period turned off for the app"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "End access (or limit it) and mark the subscription as in billing retry, not cancelled.",
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
                        "Keep the entitlement until gracePeriodExpiresDate and flag a billing issue.",
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
                    example: .init(before: .active)
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
                        "The customer declining a price increase",
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

        // MARK: - REFUND
        CatalogEntry(
            type: "REFUND",
            summary: "The App Store refunded an in-app purchase or subscription transaction.",
            meaning: """
                Apple refunded a transaction of any product type. The transaction carries revocationDate and \
                revocationReason; the content bought with it should be taken back.
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
                        "Record revocationReason for reporting; do not message the customer in a way that blames them.",
                        "Store it and answer 200; a retry with the same notificationUUID must not revoke twice.",
                    ],
                    example: .init(before: .active, revoked: true)
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

        // MARK: - RENEWAL_EXTENDED
        CatalogEntry(
            type: "RENEWAL_EXTENDED",
            summary: "A subscription's renewal date was pushed back at the developer's request.",
            meaning: """
                The developer extended one subscription's renewal date through the App Store Server API, either for \
                that subscription alone or as part of a mass extension. The customer gets extra time at no charge.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "The subscription now renews later; the transaction carries the new expiresDate.",
                    triggers: [
                        "A call to Extend a Subscription Renewal Date for this subscription",
                        "A mass renewal-date extension that included this subscriber",
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement and move its end to the new expiresDate.",
                        "Tell the customer about the extra days if the extension compensates for an outage.",
                        "Store it and answer 200; a repeated notificationUUID must not extend twice.",
                    ],
                    example: .init(before: .active)
                )
            ]
        ),

        // MARK: - RENEWAL_EXTENSION
        CatalogEntry(
            type: "RENEWAL_EXTENSION",
            summary: "Progress of a mass renewal-date extension you requested.",
            meaning: """
                Reports on a request to extend renewal dates for all eligible subscribers of a product. SUMMARY comes \
                once when the whole request is done and carries counts instead of a transaction; FAILURE names one \
                subscription that could not be extended.
                """,
            cases: [
                CatalogCase(
                    name: "SUMMARY",
                    meaning: """
                        The mass extension finished; the payload's summary holds the requestIdentifier and how many \
                        extensions succeeded and failed.
                        """,
                    triggers: [
                        "Apple completing a mass extension requested through the App Store Server API"
                    ],
                    whatToDo: [
                        "Verify the signed payload up to Apple's root; check the summary's bundle ID and environment.",
                        "Change no entitlement; each extended subscription has its own RENEWAL_EXTENDED.",
                        "Record succeededCount and failedCount against the requestIdentifier.",
                        "Store it and answer 200; a retry with the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .active, noTransaction: true)
                ),
                CatalogCase(
                    name: "FAILURE",
                    meaning: "The mass extension could not be applied to this one subscription; its renewal date is unchanged.",
                    triggers: [
                        "A subscription in a mass extension that was not eligible or could not be updated"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Leave the entitlement as it is.",
                        "Retry the extension for this subscription alone, or compensate the customer another way.",
                        "Store it and answer 200; a duplicate notificationUUID changes nothing.",
                    ],
                    example: .init(before: .active)
                ),
            ]
        ),

        // MARK: - ONE_TIME_CHARGE
        CatalogEntry(
            type: "ONE_TIME_CHARGE",
            summary: "A customer bought a consumable, non-consumable or non-renewing subscription.",
            meaning: """
                A one-time purchase went through, including one redeemed with an offer code and a non-consumable \
                received through Family Sharing. Older Apple documentation said it was sent only in the sandbox, so \
                do not depend on it alone for one-time purchases.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "A one-time product was purchased; the transaction names the product and its productType.",
                    triggers: [
                        "Buying a consumable, non-consumable or non-renewing subscription",
                        "Redeeming an offer code for one of these products",
                        "Receiving a non-consumable through Family Sharing",
                    ],
                    whatToDo: [
                        "Verify the signed payload and its transaction up to Apple's root; check bundle ID and environment.",
                        "Grant the purchase once per transactionId: credit the consumable or unlock the content.",
                        "Confirm the purchase to the customer if your app does not already do so.",
                        "Store it and answer 200; a retry with the same notificationUUID must not credit it again.",
                    ],
                    example: .init(before: .nothing, productId: "coins.100", productType: "Consumable")
                )
            ]
        ),

        // MARK: - TEST
        CatalogEntry(
            type: "TEST",
            summary: "A test message you asked Apple to send to check your endpoint.",
            meaning: """
                Apple sends this only when you call Request a Test Notification. It carries no transaction and exists \
                to prove that your server receives and verifies notifications.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "A connectivity check with no subscriber behind it.",
                    triggers: [
                        "A call to the Request a Test Notification endpoint"
                    ],
                    whatToDo: [
                        "Verify the signed payload up to Apple's root; check bundle ID and environment.",
                        "Change no entitlement.",
                        "Record that the test arrived so Get Test Notification Status can be checked against it.",
                        "Store it and answer 200; a retry with the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .nothing, noTransaction: true)
                )
            ]
        ),

        // MARK: - EXTERNAL_PURCHASE_TOKEN
        CatalogEntry(
            type: "EXTERNAL_PURCHASE_TOKEN",
            summary: "News about an External Purchase API token your app must report on.",
            meaning: """
                Only apps using the External Purchase API get this. The payload has externalPurchaseToken instead of \
                data and no environment field: a token whose externalPurchaseId starts with SANDBOX is from the \
                sandbox.
                """,
            cases: [
                CatalogCase(
                    name: "UNREPORTED",
                    meaning: "A token was created but no report about it has reached Apple.",
                    triggers: [
                        "An external purchase token left unreported past Apple's reporting window"
                    ],
                    whatToDo: [
                        "Verify the payload up to Apple's root; check bundle ID; a SANDBOX token ID means sandbox.",
                        "Change no entitlement.",
                        "Report the token's transactions, or that there were none, through the External Purchase Server API.",
                        "Store it and answer 200; a retry with the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .nothing, noTransaction: true)
                ),
                CatalogCase(
                    name: "CREATED",
                    meaning: "A new token was created for a customer following a custom external purchase link.",
                    triggers: [
                        "A customer using the app's custom link to an external purchase"
                    ],
                    whatToDo: [
                        "Verify the payload up to Apple's root; check bundle ID; a SANDBOX token ID means sandbox.",
                        "Change no entitlement.",
                        "Record externalPurchaseId and its creation and expiration dates so you can report on it.",
                        "Store it and answer 200; the same notificationUUID seen twice is a no-op.",
                    ],
                    example: .init(before: .nothing, noTransaction: true)
                ),
                CatalogCase(
                    name: "ACTIVE_TOKEN_REMINDER",
                    meaning: "A monthly reminder that a custom-link token is still active.",
                    triggers: [
                        "A custom-link token remaining active for another month"
                    ],
                    whatToDo: [
                        "Verify the payload up to Apple's root; check bundle ID; a SANDBOX token ID means sandbox.",
                        "Change no entitlement.",
                        "Check that your reports for this token are up to date and file any that are missing.",
                        "Store it and answer 200; a retry with the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .nothing, noTransaction: true)
                ),
            ]
        ),

        // MARK: - RESCIND_CONSENT
        CatalogEntry(
            type: "RESCIND_CONSENT",
            summary: "A parent or guardian withdrew consent for a child to use the app.",
            meaning: """
                The child's parent or guardian no longer consents to the child's use of the app. The payload has \
                appData, with a signed app transaction, instead of data, and no purchase transaction.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "Consent for this child's account was withdrawn; the app should stop serving that account.",
                    triggers: [
                        "A parent or guardian revoking consent for the child's use of the app"
                    ],
                    whatToDo: [
                        "Verify the payload and its app transaction JWS up to Apple's root; check bundle ID and environment.",
                        "Suspend the account tied to the app transaction, as your legal obligations require.",
                        "Handle the child's data under the rules that apply, and inform the parent if you must.",
                        "Store it and answer 200; a repeat of the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .nothing, noTransaction: true)
                )
            ]
        ),

        // MARK: - METADATA_UPDATE
        CatalogEntry(
            type: "METADATA_UPDATE",
            summary: "Advanced Commerce API: a subscription's metadata was changed.",
            meaning: """
                Only for subscriptions managed with the Advanced Commerce API. It confirms a Change Subscription \
                Metadata call, which changes names, descriptions or SKUs; the transaction and renewal info carry the result.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "Your change to an Advanced Commerce subscription's names, descriptions or SKUs was recorded.",
                    triggers: [
                        "A call to Change Subscription Metadata"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement and update the stored display name, description or SKUs from the payload.",
                        "Store it and answer 200; a retry with the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .active)
                )
            ]
        ),

        // MARK: - MIGRATION
        CatalogEntry(
            type: "MIGRATION",
            summary: "Advanced Commerce API: a subscription was moved to the Advanced Commerce API.",
            meaning: """
                Only for the Advanced Commerce API. It confirms a Migrate a Subscription to Advanced Commerce API \
                call; from now on the subscription is managed through that API.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "An existing subscription now belongs to the Advanced Commerce API.",
                    triggers: [
                        "A call to Migrate a Subscription to Advanced Commerce API"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement and mark the subscription as managed through Advanced Commerce.",
                        "Store it and answer 200; a retry with the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .active)
                )
            ]
        ),

        // MARK: - PRICE_CHANGE
        CatalogEntry(
            type: "PRICE_CHANGE",
            summary: "Advanced Commerce API: a subscription's price was changed.",
            meaning: """
                Only for the Advanced Commerce API. It confirms a Change Subscription Price call; the renewal info \
                carries the new price, which applies from the next renewal.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning:
                        "Your price change to an Advanced Commerce subscription was accepted and applies at the next renewal.",
                    triggers: [
                        "A call to Change Subscription Price"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement and record the new renewal price.",
                        "Give the customer the required notice of an increase; a decrease needs none.",
                        "Store it and answer 200; a retry with the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .active)
                )
            ]
        ),
    ]
}
