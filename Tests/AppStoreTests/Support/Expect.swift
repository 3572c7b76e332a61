import AppStore
import Testing

/// Runs `body` and expects it to fail verification with `status`; returns the detail.
@discardableResult
func expectRejected(
    _ status: VerificationError.Status, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> String? {
    do {
        try body()
        Issue.record("expected \(status.rawValue), but verification succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as VerificationError {
        #expect(error.status == status, "\(error.detail)", sourceLocation: sourceLocation)
        return error.detail
    } catch {
        Issue.record("expected a VerificationError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
