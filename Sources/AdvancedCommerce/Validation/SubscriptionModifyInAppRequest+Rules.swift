// MARK: - Rules across fields

/// The request-only rules of a modify request, inferred from Apple's error names and messages
/// (Apple documents no prose for them; see reference §2.4).
///
/// Deliberately not enforced: `RemoveItemsWithoutAddOrChangeItemsError` (4000144). Its message says
/// removeItems needs addItems or changeItems, but Apple's own published example "remove an item at the
/// next renewal" sends removeItems alone. The published example is followed, so remove-only is valid.
extension SubscriptionModifyInAppRequest {
    func checkModifyRules(_ report: inout ValidationReport) {
        if descriptors == nil, periodChange == nil, addItems == nil, changeItems == nil, removeItems == nil {
            report.fail(.oneItemNeededInModify, "")
        }
        checkOneOperationPerSKU(&report)
        checkPeriodChange(&report)
        checkEffectives(&report)
    }

    /// A SKU may appear in only one of addItems, changeItems (as `currentSKU` or `SKU`) and removeItems.
    private func checkOneOperationPerSKU(_ report: inout ValidationReport) {
        var firstList: [String: String] = [:]
        func visit(_ sku: String?, list: String, field: String) {
            guard let sku else { return }
            if let first = firstList[sku] {
                if first != list {
                    report.fail(.multipleOperationsOnSingleSKU, field, "\"\(sku)\" is also in \(first).")
                }
            } else {
                firstList[sku] = list
            }
        }
        for (index, item) in (addItems ?? []).enumerated() {
            visit(item.sku, list: "addItems", field: path(path("addItems", index), "SKU"))
        }
        for (index, item) in (changeItems ?? []).enumerated() {
            visit(item.currentSKU, list: "changeItems", field: path(path("changeItems", index), "currentSKU"))
            visit(item.sku, list: "changeItems", field: path(path("changeItems", index), "SKU"))
        }
        for (index, item) in (removeItems ?? []).enumerated() {
            visit(item.sku, list: "removeItems", field: path(path("removeItems", index), "SKU"))
        }
    }

    private func checkPeriodChange(_ report: inout ValidationReport) {
        guard let periodChange else { return }
        // A new period starting now starts a new billing cycle, so it cannot keep the current one.
        // One at the next bill cycle keeps the current cycle to its end (and then with
        // retainBillingCycle false, nothing could wait for it: BillingCycleResetWithEffectiveLater).
        if retainBillingCycle == true, periodChange.effective != .nextBillCycle {
            report.fail(.periodResetWithRetainBillingCycle, "retainBillingCycle")
        }
        // Every current item must be in changeItems. Which items exist needs the live subscription, but a
        // subscription always has at least one item, so a period change without changeItems never passes.
        if changeItems == nil {
            report.fail(.missingUpdatedItemsWithPeriodChange, "changeItems", "A period change must change every item.")
        }
    }

    /// The `effective` values of descriptors, periodChange and changeItems must agree with each other
    /// and with `retainBillingCycle`.
    private func checkEffectives(_ report: inout ValidationReport) {
        var effectives: [(field: String, value: Effective?)] = [("descriptors.effective", descriptors?.effective)]
        effectives.append(("periodChange.effective", periodChange?.effective))
        for (index, item) in (changeItems ?? []).enumerated() {
            effectives.append((path(path("changeItems", index), "effective"), item.effective))
        }
        // retainBillingCycle false resets the cycle now; nothing in the request can then wait for the next one.
        if retainBillingCycle == false {
            for entry in effectives where entry.value == .nextBillCycle {
                report.fail(.billingCycleResetWithEffectiveLater, entry.field)
            }
        }
        switch periodChange?.effective {
        case .immediately?:
            for entry in effectives where entry.value == .nextBillCycle {
                report.fail(.periodChangeImmediateWithEffectiveAtNextBillingCycle, entry.field)
            }
        case .nextBillCycle?:
            // Added items always start now, as do immediate changes: both conflict with a later period change.
            for index in (addItems ?? []).indices {
                report.fail(.periodChangeEffectiveConflict, path("addItems", index))
            }
            for entry in effectives where entry.value == .immediately && entry.field.hasPrefix("changeItems") {
                report.fail(.periodChangeEffectiveConflict, entry.field)
            }
        default: break
        }
    }
}
