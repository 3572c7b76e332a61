import AppStore
import Foundation

/// An in-app request of any of the four kinds, told apart by its `operation`.
public enum InAppRequest: Sendable, Equatable {
    case oneTimeCharge(OneTimeChargeCreateRequest)
    case createSubscription(SubscriptionCreateRequest)
    case modifySubscription(SubscriptionModifyInAppRequest)
    case reactivateSubscription(SubscriptionReactivateInAppRequest)

    /// Decodes a request by its `operation`; an unknown or missing one is Apple's
    /// `InvalidOperationError`, text that is not a JSON object its `MalformedPayloadError`.
    /// `MalformedPayloadError` for a member given twice at `path` (`items[0].SKU`).
    public static func repeated(_ path: String) -> ValidationError {
        ValidationError(.malformedPayload, field: path, detail: "\(path) is given twice.")
    }

    public init(json: Data) throws(ValidationError) {
        // JSONDecoder keeps one of two members of the same name without a word; the request is
        // refused instead, so what is signed is what was meant.
        do {
            _ = try JSONValue(parsingWithoutRepeatedNames: json)
        } catch let repeated as JSONValue.RepeatedName {
            throw Self.repeated(repeated.path)
        } catch {
            throw ValidationError(.malformedPayload, field: "", detail: "The request is not JSON: \(error)")
        }
        let operation: InAppOperation?
        do {
            operation = try JSONDecoder().decode(OperationOnly.self, from: json).operation
        } catch {
            throw ValidationError(.malformedPayload, field: "", detail: "The request is not a JSON object.")
        }
        do {
            switch operation {
            case .createOneTimeCharge:
                self = .oneTimeCharge(try JSONDecoder().decode(OneTimeChargeCreateRequest.self, from: json))
            case .createSubscription:
                self = .createSubscription(try JSONDecoder().decode(SubscriptionCreateRequest.self, from: json))
            case .modifySubscription:
                self = .modifySubscription(try JSONDecoder().decode(SubscriptionModifyInAppRequest.self, from: json))
            case .reactivateSubscription:
                self = .reactivateSubscription(try JSONDecoder().decode(SubscriptionReactivateInAppRequest.self, from: json))
            case .unknown, nil:
                throw ValidationError(
                    .invalidOperation, field: "operation", detail: "Expected one of \(InAppOperation.knownValues).")
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError(.malformedPayload, field: "", detail: "\(error)")
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
