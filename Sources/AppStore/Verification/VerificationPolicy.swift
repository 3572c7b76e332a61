/// What a verified payload must claim to be accepted: which app and which environments.
///
/// A nil member is not checked; the CLI's `verify` without `--bundle-id`/`--environment`
/// checks signature and chain only. `Xcode` and `LocalTesting` data carry no App Store
/// signature and are accepted unsigned only when `environments` names them explicitly.
public struct VerificationPolicy: Hashable, Sendable {
    public var bundleId: String?
    /// Checked only where Apple's Production verifier would judge the payload
    /// (`judgesAsProduction`), as Apple does.
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

    /// Whether Apple's libraries would judge a payload claiming `environment` with a verifier set
    /// to Production, the one that checks the app Apple ID.
    ///
    /// An Apple verifier is set to one environment and checks the app Apple ID when that is
    /// Production, whatever the payload claims; a team accepting several environments runs one
    /// verifier for each. So: a payload of an environment this policy accepts is judged by that
    /// environment's verifier, and any other payload by the Production verifier when Production
    /// is accepted (which checks the app Apple ID before the environment, so a Sandbox payload of
    /// another app is `invalidAppIdentifier`, as Apple's tests expect). With no environments
    /// given, a Production payload is judged as Production.
    func judgesAsProduction(_ environment: AppStoreEnvironment?) -> Bool {
        guard let environments else { return environment == .production }
        guard environments.contains(.production) else { return false }
        guard let environment, environments.contains(environment) else { return true }
        return environment == .production
    }

    /// Apple's identifier check, before the environment's: bundle ID always, then the app Apple
    /// ID where `judgesAsProduction`.
    func checkApp(bundleId claimed: String?, appAppleId claimedId: Int64?, environment: AppStoreEnvironment?)
        throws(VerificationError)
    {
        try checkBundleId(claimed)
        if let appAppleId, judgesAsProduction(environment), claimedId != appAppleId {
            throw VerificationError(
                .invalidAppIdentifier, "appAppleId \(claimedId.map(String.init) ?? "missing"), expected \(appAppleId)")
        }
    }

    /// Apple's identifier check for payloads that carry no app Apple ID (transactions).
    func checkBundleId(_ claimed: String?) throws(VerificationError) {
        if let bundleId, claimed != bundleId {
            throw VerificationError(
                .invalidAppIdentifier, "bundleId \(claimed.map { "\"\($0)\"" } ?? "missing"), expected \"\(bundleId)\"")
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
