import Foundation

/// Apple's published request examples, verbatim, from the Advanced Commerce API documentation:
/// what tests validate and sign, and a starting point for `revenuedot commerce validate`.
public enum AppleExamples {
    /// SubscriptionModifyInAppRequest: upgrade monthly to annual, immediately, billing cycle resets.
    public static let modifyUpgradeWithPeriodChange = """
        {
            "operation": "MODIFY_SUBSCRIPTION",
            "version": "1",
            "transactionId": "12345",
            "requestInfo": {
                "requestReferenceId": "e2a88501-25ba-403a-9c46-d7b8eecc56ba"
            },
            "currency": "USD",
            "storefront": "USA",
            "descriptors": {
                "effective": "IMMEDIATELY",
                "displayName": "Anne's Game Stream",
                "description": "Streaming Service for Anne's Game"
            },
            "periodChange": {
                "effective": "IMMEDIATELY",
                "period": "P1Y"
            },
            "retainBillingCycle": false,
            "changeItems": [
                {
                    "effective": "IMMEDIATELY",
                    "currentSKU": "ANNES_GOLD_TIER_1M",
                    "SKU": "ANNES_PLATINUM_TIER_1Y",
                    "price": 99990,
                    "displayName": "Platinum Tier",
                    "description": "Access to Anne's Game Stream & chat",
                    "reason": "UPGRADE"
                }
            ]
        }
        """

    /// SubscriptionModifyInAppRequest: add an item, retaining the billing cycle.
    public static let modifyAddItem = """
        {
            "operation": "MODIFY_SUBSCRIPTION",
            "version": "1",
            "transactionId": "12345",
            "requestInfo": {
                "requestReferenceId": "e2a88501-25ba-403a-9c46-d7b8eecc56ba"
            },
            "currency": "USD",
            "storefront": "USA",
            "descriptors": {
                "effective": "IMMEDIATELY",
                "displayName": "Streaming Pass",
                "description": "Streaming pass with multiple items"
            },
            "retainBillingCycle": true,
            "addItems": [
                {
                    "SKU": "NEWS_CHANNELS",
                    "displayName": "News Channel",
                    "description": "Access to news channels",
                    "price": 4990
                }
            ]
        }
        """

    /// SubscriptionModifyInAppRequest: remove an item at the next renewal (removeItems alone).
    public static let modifyRemoveItem = """
        {
            "operation": "MODIFY_SUBSCRIPTION",
            "version": "1",
            "transactionId": "12345",
            "requestInfo": {
                "requestReferenceId": "e2a88501-25ba-403a-9c46-d7b8eecc56ba"
            },
            "currency": "USD",
            "storefront": "USA",
            "retainBillingCycle": true,
            "removeItems": [
                {
                    "SKU": "LIVE_SPORTS"
                }
            ]
        }
        """

    /// SubscriptionModifyInAppRequest: downgrade at the next renewal.
    public static let modifyDowngrade = """
        {
            "operation": "MODIFY_SUBSCRIPTION",
            "version": "1",
            "transactionId": "12345",
            "requestInfo": {
                "requestReferenceId": "e2a88501-25ba-403a-9c46-d7b8eecc56ba"
            },
            "currency": "USD",
            "storefront": "USA",
            "descriptors": {
                "effective": "NEXT_BILL_CYCLE",
                "displayName": "Anne's Game Stream",
                "description": "Streaming Service for Anne’s Game"
            },
            "retainBillingCycle": true,
            "changeItems": [
                {
                    "effective": "NEXT_BILL_CYCLE",
                    "currentSKU": "ANNES_PLATINUM_TIER_1M",
                    "SKU": "ANNES_GOLD_TIER_1M",
                    "price": 7990,
                    "displayName": "Gold Tier",
                    "description": "Access to Anne's Game Stream",
                    "reason": "DOWNGRADE"
                }
            ]
        }
        """

    /// OneTimeChargeCreateRequest example.
    public static let oneTimeCharge = """
        {"operation":"CREATE_ONE_TIME_CHARGE","version":"1",
         "requestInfo":{"requestReferenceId":"f55df048-4cd8-4261-b404-b6f813ff70e5"},
         "currency":"USD","taxCode":"C003-00-2","storefront":"USA",
         "item":{"SKU":"BOOK_SHERLOCK_HOLMES","displayName":"Sherlock Holmes",
                 "description":"The Sherlock Holmes, 5th Edition","price":4990}}
        """

    /// SubscriptionCreateRequest example with two items and an offer.
    public static let subscriptionCreate = """
        {"operation":"CREATE_SUBSCRIPTION","version":"1",
         "requestInfo":{"requestReferenceId":"74ad2401-488d-4e1a-9c9d-80cdf0efed67"},
         "currency":"USD","taxCode":"C003-00-1",
         "descriptors":{"displayName":"Streaming Pass","description":"Streaming pass with multiple items"},
         "period":"P1M","storefront":"USA",
         "items":[{"SKU":"LIVE_SPORTS","displayName":"Live Sports","description":"Streaming for sports events","price":40000},
                  {"SKU":"SATURDAY_MORNING_CARTOONS","displayName":"Saturday Morning Cartoons",
                   "description":"Streaming for animated series","price":11000,
                   "offer":{"price":2990,"period":"P1M","periodCount":3,"reason":"ACQUISITION"}}]}
        """

    /// SubscriptionReactivateInAppRequest; Apple publishes no example, so this one follows the field table.
    public static let subscriptionReactivate = """
        {"operation":"REACTIVATE_SUBSCRIPTION","version":"1",
         "requestInfo":{"requestReferenceId":"0b6a4d0e-3c5f-4a52-9a43-0d3a7c9bd1f2",
                        "appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138"},
         "transactionId":"2000000123456789","storefront":"USA",
         "items":[{"SKU":"LIVE_SPORTS"}]}
        """

    public static func decode<Request: Decodable>(_ json: String, as type: Request.Type = Request.self) throws -> Request {
        try JSONDecoder().decode(Request.self, from: Data(json.utf8))
    }
}
