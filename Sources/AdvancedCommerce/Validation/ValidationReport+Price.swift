import AppStore

// MARK: - price, proratedPrice

extension ValidationReport {
    /// A required price: present, not negative, and with no more decimals than `currency` allows.
    ///
    /// Apple defines no error for too many decimals; `InvalidAmountError` ("The amount is invalid.") is the
    /// closest. A modify request may omit its currency: the live check then uses the subscription's.
    mutating func checkPrice(_ price: Int64?, field: String, currency: String?) {
        guard let price else { return fail(.nullPrice, field) }
        if price < 0 {
            fail(.negativePrice, field, "Got \(price).")
        } else if let currency, !CurrencyDecimals.allows(milliunits: price, in: currency) {
            fail(.invalidAmount, field, Self.decimalsDetail(price, currency))
        }
    }

    /// An optional prorated price: not negative, within the currency's decimals, and no more
    /// than the item's full `price` for the period (a part of a period cannot cost more).
    mutating func checkProratedPrice(_ prorated: Int64?, field: String, currency: String?, price: Int64?) {
        guard let prorated else { return }
        if prorated < 0 {
            fail(.negativeProratedPrice, field, "Got \(prorated).")
        } else if let currency, !CurrencyDecimals.allows(milliunits: prorated, in: currency) {
            fail(.invalidProratedPrice, field, Self.decimalsDetail(prorated, currency))
        } else if let price, price >= 0, prorated > price {
            fail(.invalidProratedPrice, field, "Prorated \(prorated) exceeds the price \(price).")
        }
    }

    static func decimalsDetail(_ price: Int64, _ currency: String) -> String {
        let places = CurrencyDecimals.places(for: currency)
        return "\(price) milliunits has more than \(places) decimal places, the most \(currency) allows."
    }
}

// MARK: - offer

/// Apple's bounds for `offer.periodCount`.
enum OfferLimits {
    static let periodCount: ClosedRange<Int32> = 1...12
}

extension ValidationReport {
    /// An item's offer: every field present and known, 1–12 periods, a price no higher than the item's,
    /// and a free trial (price 0) lasting exactly one period.
    mutating func checkOffer(_ offer: Offer?, field: String, itemPrice: Int64?, currency: String?) {
        guard let offer else { return }
        checkOpenEnum(
            offer.period, field: path(field, "period"), null: .nullOfferPeriod, invalid: .invalidOfferPeriod)
        checkOpenEnum(offer.reason, field: path(field, "reason"), null: .nullReason, invalid: .invalidOfferReason)
        let countField = path(field, "periodCount")
        switch offer.periodCount {
        case nil: fail(.nullPeriodCount, countField)
        case let count? where count < OfferLimits.periodCount.lowerBound:
            fail(.periodCountNotPositive, countField, "Got \(count).")
        case let count? where count > OfferLimits.periodCount.upperBound:
            fail(.invalidOfferPeriodCount, countField, "Got \(count), at most 12 allowed.")
        default: break
        }
        let priceField = path(field, "price")
        checkPrice(offer.price, field: priceField, currency: currency)
        if let price = offer.price, let itemPrice, price > itemPrice {
            fail(.invalidOfferPrice, priceField, "Offer \(price) exceeds price \(itemPrice).")
        }
        if offer.price == 0, let count = offer.periodCount, count != 1 {
            fail(.freeTrialOfferMustUsePeriodCountOfOne, countField, "Got \(count).")
        }
    }
}
