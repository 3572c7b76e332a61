/// Which RevenueDot this is: a semantic version (`CHANGELOG.md` has a section for each) and the
/// git commit it was built from.
package enum RevenueDotVersion {
    /// The release this build belongs to; a `-dev` suffix until the release is tagged.
    package static let semantic = "0.2.0-dev"

    /// The commit (12 hex digits, `-modified` when built with uncommitted changes), or `unknown`
    /// for a build outside a git checkout.
    package static let commit = buildCommit

    /// "0.2.0-dev (commit 0123456789ab)": what `revenuedot --version` prints.
    package static var description: String { "\(semantic) (commit \(commit))" }
}
