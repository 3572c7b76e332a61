import Foundation

/// Collects the errors of one request while the checks walk its fields.
///
/// A value type passed `inout`, so each request's validation is a plain sequence of calls with no shared state.
struct ValidationReport {
    private(set) var errors: [ValidationError] = []

    mutating func fail(_ error: AdvancedCommerceErrorCode, _ field: String, _ detail: String? = nil) {
        errors.append(ValidationError(error, field: field, detail: detail))
    }
}

/// Joins JSON path components: `path("items", 0, "SKU")` is `items[0].SKU`.
func path(_ parent: String, _ child: String) -> String {
    parent.isEmpty ? child : "\(parent).\(child)"
}

func path(_ list: String, _ index: Int) -> String {
    "\(list)[\(index)]"
}
