import AppStore
import Foundation
import JSON

/// An in-app request of any of the four kinds, told apart by its `operation`.
public enum InAppRequest: Sendable, Equatable {
    case oneTimeCharge(OneTimeChargeCreateRequest)
    case createSubscription(SubscriptionCreateRequest)
    case modifySubscription(SubscriptionModifyInAppRequest)
    case reactivateSubscription(SubscriptionReactivateInAppRequest)

    /// `MalformedPayloadError` for a member given twice at `path` (`items[0].SKU`).
    public static func repeated(_ path: String) -> ValidationError {
        ValidationError(.malformedPayload, field: path, detail: "\(path) is given twice.")
    }

    /// Decodes a request by its `operation`; an unknown or missing one is Apple's
    /// `InvalidOperationError`, text that is not a JSON object its `MalformedPayloadError`.
    public init(json: Data) throws(ValidationError) {
        // JSONDecoder keeps one of two members of the same name without a word; the request is
        // refused instead, so what is signed is what was meant.
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsingWithoutRepeatedNames: json)
        } catch let repeated as JSONValue.RepeatedName {
            throw Self.repeated(repeated.path)
        } catch {
            throw ValidationError(.malformedPayload, field: "", detail: "The request is not JSON: \(error)")
        }
        guard case .object(let members) = parsed else {
            throw ValidationError(.malformedPayload, field: "", detail: "The request is not a JSON object.")
        }
        if let given = members["operation"], given.stringValue == nil, given != .null {
            throw ValidationError(.invalidOperation, field: "operation", detail: "operation must be a string.")
        }
        let operation: InAppOperation?
        do {
            operation = try JSONValueDecoder().decode(OperationOnly.self, from: parsed).operation
        } catch {
            throw Self.malformed(error)
        }
        // JSONValueDecoder reads the value already parsed, as JSONDecoder would, and its errors
        // name the member they are about.
        let decoder = JSONValueDecoder()
        do {
            switch operation {
            case .createOneTimeCharge:
                self = .oneTimeCharge(try decoder.decode(OneTimeChargeCreateRequest.self, from: parsed))
            case .createSubscription:
                self = .createSubscription(try decoder.decode(SubscriptionCreateRequest.self, from: parsed))
            case .modifySubscription:
                self = .modifySubscription(try decoder.decode(SubscriptionModifyInAppRequest.self, from: parsed))
            case .reactivateSubscription:
                self = .reactivateSubscription(try decoder.decode(SubscriptionReactivateInAppRequest.self, from: parsed))
            case .unknown, nil:
                throw ValidationError(
                    .invalidOperation, field: "operation", detail: "Expected one of \(InAppOperation.knownValues).")
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            throw Self.malformed(error)
        }
        let kept: JSONValue
        do {
            kept = try JSONValueEncoder().encodeValue(payload)
        } catch {
            throw ValidationError(.malformedPayload, field: "", detail: "The request could not be encoded: \(error).")
        }
        if let unknown = Self.firstDropped(sent: parsed, kept: kept, at: "") {
            throw ValidationError(
                .malformedPayload, field: unknown,
                detail: "\(unknown) is not a member of this request (names are case-sensitive).")
        }
    }

    /// The path of the first member of `sent` (in name order) that decoding dropped: not in
    /// `kept`, the decoded request encoded again, though not null. Signing without it would
    /// sign something other than what was sent (a misspelled `previousTransactionID` would start
    /// a subscription instead of resuming one).
    static func firstDropped(sent: JSONValue, kept: JSONValue, at path: String) -> String? {
        switch (sent, kept) {
        case (.object(let sentMembers), .object(let keptMembers)):
            for name in sentMembers.keys.sorted() {
                guard let value = sentMembers[name], value != .null else { continue }
                let memberPath = path.isEmpty ? name : "\(path).\(name)"
                guard let keptValue = keptMembers[name] else { return memberPath }
                if let dropped = firstDropped(sent: value, kept: keptValue, at: memberPath) { return dropped }
            }
            return nil
        case (.array(let sentElements), .array(let keptElements)):
            for (index, (element, keptElement)) in zip(sentElements, keptElements).enumerated() {
                if let dropped = firstDropped(sent: element, kept: keptElement, at: "\(path)[\(index)]") { return dropped }
            }
            return nil
        default:
            return nil
        }
    }

    /// `MalformedPayloadError` at the member a decoding error names (`item.price`), saying what
    /// was wrong with it rather than JSONDecoder's account of itself.
    static func malformed(_ error: any Error) -> ValidationError {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.reduce("") { path, key in
                if let index = key.intValue { return "\(path)[\(index)]" }
                return path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)"
            }
        }
        switch error as? DecodingError {
        case .typeMismatch(let type, let context)?:
            return ValidationError(
                .malformedPayload, field: path(context.codingPath), detail: "Expected \(kind(type)) here.")
        case .dataCorrupted(let context)?:
            return ValidationError(
                .malformedPayload, field: path(context.codingPath), detail: "This value is refused: \(context.debugDescription)")
        case .valueNotFound(_, let context)?, .keyNotFound(_, let context)?:
            return ValidationError(.malformedPayload, field: path(context.codingPath), detail: context.debugDescription)
        default:
            return ValidationError(.malformedPayload, field: "", detail: "\(error)")
        }
    }

    /// A JSON reader's word for what a model expected.
    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is Int64.Type, is Int.Type, is Int32.Type: "a whole number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Double.Type: "a number"
        case is [String: Any].Type: "an object"
        case is [Any].Type: "an array"
        default: "\(type)"
        }
    }

    private struct OperationOnly: Decodable {
        var operation: InAppOperation?
    }

    public var operation: InAppOperation {
        switch self {
        case .oneTimeCharge: .createOneTimeCharge
        case .createSubscription: .createSubscription
        case .modifySubscription: .modifySubscription
        case .reactivateSubscription: .reactivateSubscription
        }
    }

    /// `requestInfo.requestReferenceId`; setting it creates `requestInfo` when absent.
    public var requestReferenceId: String? {
        get { requestInfo?.requestReferenceId }
        set {
            var info = requestInfo ?? RequestInfo()
            info.requestReferenceId = newValue
            requestInfo = info
        }
    }

    var requestInfo: RequestInfo? {
        get {
            switch self {
            case .oneTimeCharge(let request): request.requestInfo
            case .createSubscription(let request): request.requestInfo
            case .modifySubscription(let request): request.requestInfo
            case .reactivateSubscription(let request): request.requestInfo
            }
        }
        set {
            switch self {
            case .oneTimeCharge(var request):
                request.requestInfo = newValue
                self = .oneTimeCharge(request)
            case .createSubscription(var request):
                request.requestInfo = newValue
                self = .createSubscription(request)
            case .modifySubscription(var request):
                request.requestInfo = newValue
                self = .modifySubscription(request)
            case .reactivateSubscription(var request):
                request.requestInfo = newValue
                self = .reactivateSubscription(request)
            }
        }
    }

    /// The request itself, whichever kind it is.
    public var payload: any AdvancedCommerceInAppRequest {
        switch self {
        case .oneTimeCharge(let request): request
        case .createSubscription(let request): request
        case .modifySubscription(let request): request
        case .reactivateSubscription(let request): request
        }
    }

    /// The problems found from the request alone.
    public func validationErrors() -> [ValidationError] { payload.validationErrors() }

    /// The JSON that is signed (Apple's names, absent fields omitted, keys sorted).
    public func json() throws -> Data { try InAppRequestSigner.json(payload) }

    public func sign(with signer: InAppRequestSigner, at now: Date) throws -> String { try signer.sign(payload, at: now) }
}
