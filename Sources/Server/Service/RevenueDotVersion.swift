/// Which RevenueDot this is: a semantic version (`CHANGELOG.md` has a section for each) and the
/// git commit it was built from.
public enum RevenueDotVersion {
    /// The release this build belongs to; a `-dev` suffix until the release is tagged.
    public static let semantic = "0.2.0-dev"

    /// The commit (12 hex digits, `-modified` when built with uncommitted changes), or `unknown`
    /// for a build outside a git checkout.
    public static let commit = buildCommit

    /// "0.2.0-dev (commit 0123456789ab)": what `revenuedot --version` prints.
    public static var description: String { "\(semantic) (commit \(commit))" }
}
