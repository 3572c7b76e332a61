/// The in-app requests the `commerce-*` stories have RevenueDot sign unless `--request FILE`
/// gives another: the same as docs/advanced-commerce/*.json (a test compares them). The
/// simulator gives each a fresh `requestReferenceId` and the customer's `appAccountToken`, and a
/// modify request the subscription's current `transactionId`.
enum CommerceRequestExamples {
    /// `commerce-subscribe`: a monthly pass of two items, one at an offer price for three months.
    static let subscribe = """
        {
          "operation": "CREATE_SUBSCRIPTION",
          "version": "1",
          "requestInfo": {
            "requestReferenceId": "7d6a4f5e-0c1b-4e8a-9f2d-3b5c6a7e8f01"
          },
          "currency": "USD",
          "taxCode": "C003-00-1",
          "storefront": "USA",
          "descriptors": {
            "displayName": "Streaming Pass",
            "description": "Live sports and news, every month"
          },
          "period": "P1M",
          "items": [
            {
              "SKU": "LIVE_SPORTS",
              "displayName": "Live Sports",
              "description": "Every match, live",
              "price": 9990
            },
            {
              "SKU": "NEWS_CHANNELS",
              "displayName": "News Channels",
              "description": "News channels from around the world",
              "price": 4990,
              "offer": {
                "price": 2990,
                "period": "P1M",
                "periodCount": 3,
                "reason": "ACQUISITION"
              }
            }
          ]
        }
        """

    /// `commerce-upgrade`: one item to a dearer one, now, starting a new billing cycle.
    static let upgrade = """
        {
          "operation": "MODIFY_SUBSCRIPTION",
          "version": "1",
          "requestInfo": {
            "requestReferenceId": "7d6a4f5e-0c1b-4e8a-9f2d-3b5c6a7e8f02"
          },
          "transactionId": "2000000000000001",
          "currency": "USD",
          "storefront": "USA",
          "retainBillingCycle": false,
          "changeItems": [
            {
              "currentSKU": "LIVE_SPORTS",
              "SKU": "LIVE_SPORTS_4K",
              "displayName": "Live Sports 4K",
              "description": "Every match, live, in 4K",
              "price": 14990,
              "effective": "IMMEDIATELY",
              "reason": "UPGRADE"
            }
          ]
        }
        """

    /// `commerce-downgrade`: the other item to a cheaper one at the next renewal.
    static let downgrade = """
        {
          "operation": "MODIFY_SUBSCRIPTION",
          "version": "1",
          "requestInfo": {
            "requestReferenceId": "7d6a4f5e-0c1b-4e8a-9f2d-3b5c6a7e8f03"
          },
          "transactionId": "2000000000000001",
          "currency": "USD",
          "storefront": "USA",
          "retainBillingCycle": true,
          "changeItems": [
            {
              "currentSKU": "NEWS_CHANNELS",
              "SKU": "NEWS_HEADLINES",
              "displayName": "News Headlines",
              "description": "Headlines from around the world",
              "price": 1990,
              "effective": "NEXT_BILL_CYCLE",
              "reason": "DOWNGRADE"
            }
          ]
        }
        """

    /// The example for a story, by the name of its file under docs/advanced-commerce.
    static let byFile: [String: String] = ["subscribe.json": subscribe, "upgrade.json": upgrade, "downgrade.json": downgrade]
}
