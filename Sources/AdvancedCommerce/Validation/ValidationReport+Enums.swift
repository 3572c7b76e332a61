import AppStore

// MARK: - effective, period, reason

extension ValidationReport {
    /// A required enumeration: present, and one of the values Apple documents.
    mutating func checkOpenEnum<Value: OpenEnum>(
        _ value: Value?, field: String, null: AdvancedCommerceErrorCode, invalid: AdvancedCommerceErrorCode
    ) {
        guard let value else { return fail(null, field) }
        if !value.isKnown {
            let allowed = Value.knownValues.map(\.description).joined(separator: ", ")
            fail(invalid, field, "\"\(value.rawValue)\" is not one of \(allowed).")
        }
    }

    /// Apple defines no `InvalidEffectiveError`. An undocumented `effective` can only fail Apple's parsing
    /// of the payload, so it is reported as `MalformedPayloadError`.
    mutating func checkEffective(_ effective: Effective?, field: String) {
        checkOpenEnum(effective, field: field, null: .nullEffective, invalid: .malformedPayload)
    }

    /// A subscription's billing period; Apple calls an unknown one `InvalidRenewalPeriodError`.
    mutating func checkPeriod(_ period: Period?, field: String) {
        checkOpenEnum(period, field: field, null: .nullPeriod, invalid: .invalidRenewalPeriod)
    }
}

// MARK: - item lists

extension ValidationReport {
    /// Reports each SKU listed more than once in one list, at its second and later entries.
    ///
    /// Apple's `ItemCannotBeSpecifiedMultipleTimesError` (Dec 2025) has no published text; it is read here
    /// as "the same SKU twice in one list". The same SKU in two different lists of a modify request is
    /// `MultipleOperationsOnSingleSKUError` instead.
    mutating func checkDuplicateSKUs(_ skus: [String?], list: String, key: String = "SKU") {
        var seen: Set<String> = []
        for (index, sku) in skus.enumerated() {
            guard let sku else { continue }
            if !seen.insert(sku).inserted {
                fail(.itemCannotBeSpecifiedMultipleTimes, path(path(list, index), key), "\"\(sku)\" is listed twice.")
            }
        }
    }
}
