/// What a verified payload must claim to be accepted: which app and which environments.
///
/// A nil member is not checked; the CLI's `verify` without `--bundle-id`/`--environment`
/// checks signature and chain only. `Xcode` and `LocalTesting` data carry no App Store
/// signature and are accepted unsigned only when `environments` names them explicitly.
public struct VerificationPolicy: Hashable, Sendable {
    public var bundleId: String?
    /// Checked for Production payloads only, as Apple does.
    public var appAppleId: Int64?
    public var environments: Set<AppStoreEnvironment>?

    public init(bundleId: String? = nil, appAppleId: Int64? = nil, environments: Set<AppStoreEnvironment>? = nil) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environments = environments
    }

    /// Signature and chain only: any app, any signed environment, never unsigned data.
    public static let signatureOnly = VerificationPolicy()

    /// Whether unsigned data claiming `environment` may skip the signature checks.
    func acceptsUnsigned(_ environment: AppStoreEnvironment?) -> Bool {
        guard let environment, !environment.isSignedByAppStore else { return false }
        return environments?.contains(environment) == true
    }

    /// Apple's identifier check: bundle ID always, app Apple ID only for Production payloads.
    func checkApp(bundleId claimed: String?, appAppleId claimedId: Int64?, environment: AppStoreEnvironment?)
        throws(VerificationError)
    {
        if let bundleId, claimed != bundleId {
            throw VerificationError(
                .invalidAppIdentifier, "bundleId \(claimed.map { "\"\($0)\"" } ?? "missing"), expected \"\(bundleId)\"")
        }
        if let appAppleId, environment == .production, environments?.contains(.production) ?? true, claimedId != appAppleId {
            throw VerificationError(
                .invalidAppIdentifier, "appAppleId \(claimedId.map(String.init) ?? "missing"), expected \(appAppleId)")
        }
    }

    /// Apple's environment check.
    func checkEnvironment(_ claimed: AppStoreEnvironment?) throws(VerificationError) {
        guard let environments else { return }
        guard let claimed, environments.contains(claimed) else {
            let accepted = environments.map(\.rawValue).sorted().joined(separator: ", ")
            throw VerificationError(.invalidEnvironment, "environment \(claimed?.rawValue ?? "missing"), accepted: \(accepted)")
        }
    }
}
