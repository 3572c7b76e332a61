/// Checks an in-app request against the rules Apple applies to the request alone.
///
/// Run before signing, so a request Apple would reject is never handed to the app (where it would only
/// surface as a failed payment sheet). Rules that need the live subscription (`ChangeItemNotFoundError`,
/// `RemoveItemNotFoundError`, every current item being changed on a period change, ...) are not checked here.
public enum AdvancedCommerceValidator {
    /// Every problem found, in field order; empty when the request is valid.
    public static func validate<Request: AdvancedCommerceInAppRequest>(_ request: Request) -> [ValidationError] {
        request.validationErrors()
    }

    /// Throws the first problem found.
    public static func check<Request: AdvancedCommerceInAppRequest>(_ request: Request) throws(ValidationError) {
        if let first = request.validationErrors().first { throw first }
    }
}
