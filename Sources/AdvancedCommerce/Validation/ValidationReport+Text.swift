// MARK: - SKU, displayName, description

/// Apple's length limits, counted in UTF-16 code units. Apple's libraries disagree on the unit
/// (Swift counts grapheme clusters, Python code points, Java and Node UTF-16 units) and Apple's
/// server does not say which it uses: the strictest count never signs a request it refuses.
enum TextLimits {
    static let sku = 128
    static let displayName = 30
    static let description = 45
}

extension ValidationReport {
    mutating func checkSKU(
        _ sku: String?, field: String,
        null: AdvancedCommerceErrorCode = .nullSKU,
        tooLong: AdvancedCommerceErrorCode = .skuLengthExceeded
    ) {
        checkText(sku, field: field, limit: TextLimits.sku, null: null, empty: .invalidSKU, tooLong: tooLong)
    }

    mutating func checkDisplayName(_ name: String?, field: String, required: Bool = true) {
        checkText(
            name, field: field, limit: TextLimits.displayName, null: required ? .nullDisplayName : nil,
            empty: .invalidDisplayName, tooLong: .displayNameLengthExceeded)
    }

    mutating func checkDescription(_ text: String?, field: String, required: Bool = true) {
        checkText(
            text, field: field, limit: TextLimits.description, null: required ? .nullDescription : nil,
            empty: .invalidDescription, tooLong: .descriptionLengthExceeded)
    }

    private mutating func checkText(
        _ text: String?, field: String, limit: Int,
        null: AdvancedCommerceErrorCode?, empty: AdvancedCommerceErrorCode, tooLong: AdvancedCommerceErrorCode
    ) {
        guard let text else {
            if let null { fail(null, field) }
            return
        }
        if text.isEmpty {
            fail(empty, field, "Must not be empty.")
        } else if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            // Shown on Apple's payment sheet and in receipts and emails: a control character is never meant.
            fail(empty, field, "Must not hold control characters.")
        } else if text.utf16.count > limit {
            let length = text.utf16.count
            fail(tooLong, field, "\(length) UTF-16 code units, at most \(limit) allowed.")
        }
    }
}
