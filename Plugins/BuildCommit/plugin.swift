import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` into the target it is applied to: the git commit the build was made
/// from (`git rev-parse --short=12 HEAD`, with `-modified` when tracked files differ from it), or
/// `unknown` outside a git checkout (a source tarball).
///
/// The command runs again whenever HEAD moves (`.git/HEAD` and its reflog are its inputs); in a
/// checkout without them (a worktree, where `.git` is a file) it runs once per build directory.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit.swift")
        let git = context.package.directoryURL.appending(path: ".git")
        let inputs = ["HEAD", "logs/HEAD", "index"].map { git.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        let script = #"""
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
            if [ "$commit" != unknown ] && ! git -C "$1" diff --quiet HEAD -- 2>/dev/null; then commit="$commit-modified"; fi
            printf '/// The commit this binary was built from (the BuildCommit plugin writes this file).\npackage let buildCommit = "%s"\n' "$commit" > "$2"
            """#
        return [
            .buildCommand(
                displayName: "Recording the git commit of this build",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
                inputFiles: inputs, outputFiles: [output])
        ]
    }
}
