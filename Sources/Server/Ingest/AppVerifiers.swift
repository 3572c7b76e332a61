import AppStore

/// The two verifiers of one app: its full policy, and signature-only over the same roots.
///
/// A payload that fails only the app or environment claims is still Apple's: it is verified
/// again signature-only and stored as *held*, so a configuration fix can re-apply it.
package struct AppVerifiers: Sendable {
    package let app: AppConfig
    package let strict: SignedDataVerifier
    package let signatureOnly: SignedDataVerifier
    /// Signature-only and without the plausibility ranges: what ingest keeps, held, when the
    /// strict verifier refused it for an app, an environment or a number out of range.
    package let keeping: SignedDataVerifier

    package init(app: AppConfig) throws {
        self.app = app
        // One cache for both: entries are keyed by the set of roots, which both share.
        let cache = ChainCache()
        strict = try SignedDataVerifier(rootCertificates: app.rootCertificates, policy: app.policy, chainCache: cache)
        signatureOnly = try SignedDataVerifier(rootCertificates: app.rootCertificates, policy: .signatureOnly, chainCache: cache)
        keeping = try SignedDataVerifier(
            rootCertificates: app.rootCertificates, policy: .signatureOnly, chainCache: cache, checksPlausibility: false)
    }

    /// One pair per configured app, by app id.
    package static func forApps(of config: RevenueDotConfig) throws -> [String: AppVerifiers] {
        var verifiers: [String: AppVerifiers] = [:]
        for app in config.apps { verifiers[app.id] = try AppVerifiers(app: app) }
        return verifiers
    }
}
