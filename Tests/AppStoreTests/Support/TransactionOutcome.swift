import AppStore
import Foundation

extension SignedDataVerifier {
    /// What verifying `signed` as a transaction at `now` comes to: nil when accepted, else the
    /// status and detail of the refusal.
    func transactionOutcome(_ signed: String, now: Date) -> String? {
        do {
            _ = try verifyTransaction(signed, now: now)
            return nil
        } catch {
            return "\(error.status): \(error.detail)"
        }
    }
}
