import Server

extension NotificationCatalog {
    /// The catalog entries for extensions, one-time charges, tests, external purchases, consent and Advanced Commerce.
    static let otherEntries: [CatalogEntry] = [
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
                    example: .init(before: .nothing, noTransaction: true)
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
                received through Family Sharing. Apple has sent it in Production since May 2025 (before, in the \
                sandbox only): purchases made earlier never had one, so the app's posted transactions stay the way to \
                learn of those.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning: "A one-time product was purchased; the transaction names the product (productId) and its type.",
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
                data and no environment field: the environment to check is the token's (an externalPurchaseId \
                starting with SANDBOX is from the sandbox).
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
                Only for the Advanced Commerce API. It follows a Change Subscription Price call (made at least 24 \
                hours before the renewal); the renewal info's advancedCommerceInfo carries each item's new price, \
                and for an increase its priceIncreaseInfo status: SCHEDULED, PENDING (the customer's consent is \
                awaited) or ACCEPTED. The App Store shows the customer the increase and asks for consent where it \
                is required.
                """,
            cases: [
                CatalogCase(
                    name: nil,
                    meaning:
                        "Your price change to an Advanced Commerce subscription is on record for the next renewal.",
                    triggers: [
                        "A call to Change Subscription Price"
                    ],
                    whatToDo: [
                        "Verify the payload, transaction and renewal info up to Apple's root; check bundle ID and environment.",
                        "Keep the entitlement and record the new renewal price per item.",
                        "For an increase, read priceIncreaseInfo's status: the App Store notifies the customer and asks "
                            + "for consent where it is required (Apple's Handling subscription price changes).",
                        "Store it and answer 200; a retry with the same notificationUUID is a no-op.",
                    ],
                    example: .init(before: .active)
                )
            ]
        ),
    ]
}
