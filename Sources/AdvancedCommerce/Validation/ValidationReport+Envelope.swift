import Foundation

// MARK: - version, operation, requestInfo

extension ValidationReport {
    /// `version` must be the string "1" and `operation` must name this request type.
    mutating func checkEnvelope(version: String?, operation: InAppOperation?, expected: InAppOperation) {
        switch version {
        case nil: fail(.nullVersion, "version")
        case "1": break
        case let version?: fail(.unexpectedVersion, "version", "Expected \"1\", got \"\(version)\".")
        }
        // Apple defines no NullOperationError: a missing operation is reported as an invalid one.
        if operation != expected {
            fail(.invalidOperation, "operation", "Expected \(expected.rawValue), got \(operation?.rawValue ?? "nothing").")
        }
    }

    /// The fields both create requests (subscription and one-time charge) carry, checked in the
    /// same order: envelope, request info, currency and tax code (both required), storefront.
    /// Returns the currency when it is valid, for the price checks that follow.
    mutating func checkCreateFields(
        version: String?, operation: InAppOperation?, expected: InAppOperation, requestInfo: RequestInfo?,
        currency: String?, taxCode: String?, storefront: String?
    ) -> String? {
        checkEnvelope(version: version, operation: operation, expected: expected)
        checkRequestInfo(requestInfo)
        let checked = checkCurrency(currency, required: true)
        checkTaxCode(taxCode, required: true, forSubscription: expected != .createOneTimeCharge)
        checkStorefront(storefront)
        return checked
    }

    mutating func checkRequestInfo(_ info: RequestInfo?) {
        guard let info else { return fail(.nullRequestInfo, "requestInfo") }
        switch info.requestReferenceId {
        case nil:
            fail(.nullRequestReferenceID, "requestInfo.requestReferenceId")
        case let id? where !Self.isUUID(id):
            fail(.invalidRequestReferenceID, "requestInfo.requestReferenceId", "Must be a UUID (36 characters).")
        default: break
        }
        // Apple: "must contain a valid UUID or an empty string".
        if let token = info.appAccountToken, !token.isEmpty, !Self.isUUID(token) {
            fail(.invalidAppAccountToken, "requestInfo.appAccountToken")
        }
        // The token is opaque, so only an empty one is known to be wrong; omit the field when there is none.
        if let token = info.consistencyToken, token.isEmpty {
            fail(.invalidConsistencyToken, "requestInfo.consistencyToken", "Omit it instead of sending an empty string.")
        }
    }

    /// Apple's transaction identifiers are decimal digit strings (e.g. "2000000123456789").
    mutating func checkTransactionId(
        _ id: String?, field: String, null: AdvancedCommerceErrorCode?, invalid: AdvancedCommerceErrorCode
    ) {
        guard let id else {
            if let null { fail(null, field) }
            return
        }
        if id.isEmpty || !id.allSatisfy({ $0.isASCII && $0.isNumber }) {
            fail(invalid, field, "Expected decimal digits.")
        }
    }

    static func isUUID(_ value: String) -> Bool {
        value.count == 36 && UUID(uuidString: value) != nil
    }
}

// MARK: - currency, storefront, taxCode

extension ValidationReport {
    /// Returns the currency when it is a known code, so prices can be checked against its decimals.
    mutating func checkCurrency(_ currency: String?, required: Bool) -> String? {
        guard let currency else {
            if required { fail(.nullCurrency, "currency") }
            return nil
        }
        guard CurrencyCodes.all.contains(currency) else {
            fail(.invalidCurrency, "currency", "\"\(currency)\" is not an ISO 4217 code.")
            return nil
        }
        return currency
    }

    mutating func checkStorefront(_ storefront: String?) {
        if let storefront, !StorefrontCodes.all.contains(storefront) {
            fail(.invalidStorefront, "storefront", "\"\(storefront)\" is not an ISO 3166-1 alpha-3 code.")
        }
    }

    /// A tax code in the form of Apple's table (`C003-00-1`, `S021-0308-1`: a letter, three
    /// digits, then one to four pairs of digits (an attribute's further pairs), then `1` for a
    /// subscription's code or `2` for a one-time purchase's), with the ending the request's kind
    /// takes. Apple adds codes to the table, so a code of that form is not looked up in it.
    mutating func checkTaxCode(_ taxCode: String?, required: Bool, forSubscription: Bool) {
        guard let taxCode else {
            if required { fail(.nullTaxCode, "taxCode") }
            return
        }
        guard taxCode.wholeMatch(of: /[A-Z][0-9]{3}-(?:[0-9]{2}){1,4}-[12]/) != nil else {
            return fail(.invalidTaxProductCode, "taxCode", "\"\(taxCode)\" is not a code of Apple's table (as C003-00-1).")
        }
        let ending = forSubscription ? "1" : "2"
        if !taxCode.hasSuffix("-" + ending) {
            let kind = forSubscription ? "a subscription" : "a one-time charge"
            fail(.invalidTaxProductCode, "taxCode", "\(kind) takes a code ending in -\(ending), Apple's column for it.")
        }
    }
}
