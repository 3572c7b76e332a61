/// The numbers each App Store payload carries, for `PayloadNumber.check`.
///
/// Identifiers that are only compared (`appAppleId`, `versionExternalIdentifier`) are not listed:
/// any value is harmless there. Every date, amount and count is.

extension ResponseBodyV2DecodedPayload: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.date("signedDate", signedDate)
        list.nested("summary", summary)
        list.nested("externalPurchaseToken", externalPurchaseToken)
        return list.numbers
    }
}

extension NotificationSummary: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.count("succeededCount", succeededCount, 0...Int64(Int32.max))
        list.count("failedCount", failedCount, 0...Int64(Int32.max))
        return list.numbers
    }
}

extension ExternalPurchaseToken: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.date("tokenCreationDate", tokenCreationDate)
        list.date("tokenExpirationDate", tokenExpirationDate)
        return list.numbers
    }
}

extension JWSTransactionDecodedPayload: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.date("purchaseDate", purchaseDate)
        list.date("originalPurchaseDate", originalPurchaseDate)
        list.date("expiresDate", expiresDate)
        list.date("signedDate", signedDate)
        list.date("revocationDate", revocationDate)
        list.count("quantity", quantity, 0...1_000_000)
        list.count("revocationPercentage", revocationPercentage, 0...100_000)
        list.amount("price", price)
        list.nested("advancedCommerceInfo", advancedCommerceInfo)
        list.nested("commitmentInfo", commitmentInfo)
        return list.numbers
    }
}

extension TransactionAdvancedCommerceInfo: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.amount("estimatedTax", estimatedTax)
        list.amount("taxExclusivePrice", taxExclusivePrice)
        list.nested("items", items)
        return list.numbers
    }
}

extension TransactionAdvancedCommerceItem: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.amount("price", price)
        list.date("revocationDate", revocationDate)
        list.nested("offer", offer)
        list.nested("refunds", refunds)
        return list.numbers
    }
}

extension AdvancedCommerceRefund: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.amount("refundAmount", refundAmount)
        list.date("refundDate", refundDate)
        return list.numbers
    }
}

extension AdvancedCommerceOffer: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.count("periodCount", periodCount, 0...1_000)
        list.amount("price", price)
        return list.numbers
    }
}

extension TransactionCommitmentInfo: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.count("billingPeriodNumber", billingPeriodNumber, 0...10_000)
        list.date("commitmentExpiresDate", commitmentExpiresDate)
        list.amount("commitmentPrice", commitmentPrice)
        list.count("totalBillingPeriods", totalBillingPeriods, 0...10_000)
        return list.numbers
    }
}

extension JWSRenewalInfoDecodedPayload: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.date("gracePeriodExpiresDate", gracePeriodExpiresDate)
        list.date("signedDate", signedDate)
        list.date("recentSubscriptionStartDate", recentSubscriptionStartDate)
        list.date("renewalDate", renewalDate)
        list.amount("renewalPrice", renewalPrice)
        list.nested("advancedCommerceInfo", advancedCommerceInfo)
        list.nested("commitmentInfo", commitmentInfo)
        return list.numbers
    }
}

extension RenewalAdvancedCommerceInfo: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.nested("items", items)
        return list.numbers
    }
}

extension RenewalAdvancedCommerceItem: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.amount("price", price)
        list.nested("offer", offer)
        list.nested("priceIncreaseInfo", priceIncreaseInfo)
        return list.numbers
    }
}

extension AdvancedCommercePriceIncreaseInfo: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.amount("price", price)
        return list.numbers
    }
}

extension RenewalCommitmentInfo: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.date("commitmentRenewalDate", commitmentRenewalDate)
        list.amount("commitmentRenewalPrice", commitmentRenewalPrice)
        return list.numbers
    }
}

extension AppTransaction: PayloadNumbers {
    public var numbers: [PayloadNumber] {
        var list = PayloadNumberList()
        list.date("receiptCreationDate", receiptCreationDate)
        list.date("originalPurchaseDate", originalPurchaseDate)
        list.date("preorderDate", preorderDate)
        return list.numbers
    }
}
