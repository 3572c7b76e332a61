import AppStore
import Crypto
import Dispatch
import Foundation
import JSON
import Server
import Synchronization

/// `revenuedot verify`: checks App Store signed data and prints its decoded payload.
package struct VerifyCommand: Sendable {
    package static let usage = """
        usage: revenuedot verify [--root-cert FILE]... [--config FILE] [--bundle-id ID] [--app-apple-id N]
                                 [--environment Production|Sandbox|Xcode|LocalTesting]...
                                 [--type notification|transaction|renewal-info|app-transaction] [--lines] [FILE|-]

        Verifies an App Store signed payload (notification, transaction, renewal info or app
        transaction; or Apple's request body {"signedPayload": "..."}) against Apple Root CA - G3
        and each --root-cert, and prints the decoded payload as JSON with nested signed objects
        decoded (data.transactionInfo, data.renewalInfo).

          --root-cert FILE    also trust the root certificate(s) in this PEM or DER file (repeatable)
          --config FILE       also trust the root certificates of every app in this configuration
          --bundle-id ID      require this bundle ID
          --app-apple-id N    require this app Apple ID where Apple's Production verifier
                              would judge the payload: a Production payload, or, with
                              --environment Production, any payload of an environment not named
          --environment E     require this environment (repeatable); Xcode and LocalTesting
                              data, which Apple does not sign, is accepted only when named here
          --type T            verify the payload as this type, with Apple's checks for it
                              (transaction: bundle ID, then environment; renewal info:
                              environment only; notification and app transaction: bundle ID and
                              app Apple ID, then environment); without it the type is told from
                              the payload's members
          --lines             the input holds one payload per line; print one JSON object per line
          FILE                read from FILE; "-" or nothing reads standard input

        Without --bundle-id and --environment only the signature and the chain are checked.
        Exit 0 when everything verified; 1 with "verification failed: <status>: <detail>" on
        standard error otherwise; 2 for a usage error.
        """

    let verifier: SignedDataVerifier
    /// `--type`; nil infers each payload's type.
    let kind: SignedDataVerifier.PayloadKind?
    let lines: Bool
    let input: String?

    /// Parses the command's arguments and builds its verifier.
    package init(arguments: [String]) throws {
        let parsed = try ParsedArguments(
            arguments, valueOptions: ["root-cert", "bundle-id", "app-apple-id", "environment", "config", "type"],
            flagOptions: ["lines", "help"], repeatable: ["root-cert", "environment"])
        guard parsed.positionals.count <= 1 else { throw UsageError("give at most one input file") }
        input = parsed.positionals.first
        lines = parsed.flags.contains("lines")
        if let name = parsed.value("type") {
            guard let kind = SignedDataVerifier.PayloadKind.allCases.first(where: { $0.commandName == name }) else {
                let names = SignedDataVerifier.PayloadKind.allCases.map(\.commandName).joined(separator: ", ")
                throw UsageError("--type must be one of \(names), not \"\(name)\"")
            }
            self.kind = kind
        } else {
            kind = nil
        }

        var roots = [try AppleRootCertificates.appleRootCAG3()]
        for path in parsed.values("root-cert") {
            let data: Data
            switch ConfigFile.read(path) {
            case .success(let contents): data = contents
            case .failure(let problem): throw FileProblem(description: "--root-cert cannot read \(path): \(problem.reason)")
            }
            if let problem = SecretFileModes.trustProblem(path) { throw FileProblem(description: "--root-cert \(problem)") }
            // OpenSSL's reason (a d2i_X509 error code) would not help: the file is not a certificate.
            guard let parsed = try? Certificate.parse(pemOrDER: data), !parsed.isEmpty else {
                throw FileProblem(description: "--root-cert \(path): not a PEM or DER certificate")
            }
            roots += parsed
        }
        if let path = parsed.value("config") {
            for app in try ConfigLoader.load(path: path, readingExchangeRates: false).apps {
                roots += app.rootCertificates.filter { !roots.contains($0) }
            }
        }
        var appAppleId: Int64?
        if let text = parsed.value("app-apple-id") {
            guard let number = Int64(text), number > 0 else {
                throw UsageError("--app-apple-id must be a positive number, not \"\(text)\"")
            }
            appAppleId = number
        }
        var environments: Set<AppStoreEnvironment>?
        let names = parsed.values("environment")
        if !names.isEmpty {
            environments = Set(
                try names.map { (name) throws(UsageError) -> AppStoreEnvironment in
                    let environment = AppStoreEnvironment(rawValue: name)
                    guard environment.isKnown else {
                        throw UsageError("--environment must be Production, Sandbox, Xcode or LocalTesting, not \"\(name)\"")
                    }
                    return environment
                })
        }
        let policy = VerificationPolicy(bundleId: parsed.value("bundle-id"), appAppleId: appAppleId, environments: environments)
        // Said with this command's option names, not the verifier's member names.
        if policy.bundleId != nil, appAppleId == nil, environments?.contains(.production) == true {
            throw UsageError(
                "--app-apple-id N is required with --bundle-id and --environment Production: Apple's Production "
                    + "verifier checks the app Apple ID")
        }
        do {
            verifier = try SignedDataVerifier(rootCertificates: roots, policy: policy)
        } catch let error as ConfigurationError {
            throw UsageError(error.description)
        }
    }

    /// A file's bytes, read to its end: a pipe or a FIFO too (`verify <(...)`), which
    /// `FileManager.contents(atPath:)` cannot read. Nil when it cannot be opened or read.
    static func contents(of path: String) throws(FileProblem) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return try bounded(handle, name: path)
    }

    /// The most `verify` reads: far more than any batch of payloads, and not all of `/dev/zero`.
    static let maxInputBytes = 256 * 1_048_576

    /// `handle`'s bytes up to `maxInputBytes`; more is a problem of the file named `name`.
    static func bounded(_ handle: FileHandle, name: String) throws(FileProblem) -> Data? {
        guard let data = try? handle.read(upToCount: maxInputBytes + 1) ?? Data() else { return nil }
        guard data.count <= maxInputBytes else {
            throw FileProblem(description: "\(name) holds more than \(maxInputBytes / 1_048_576) MiB: split it")
        }
        return data
    }

    /// What a run printed and its exit status.
    package struct Result: Sendable {
        package var standardOutput = ""
        package var standardError = ""
        package var status: Int32 = 0
    }

    /// Runs the command on its input file or standard input, printing the result.
    package func run() throws -> Int32 {
        let data: Data
        if let input, input != "-" {
            guard let contents = try Self.contents(of: input) else {
                StandardStreams.error("revenuedot verify: cannot read \(input)\n")
                return 1
            }
            data = contents
        } else {
            data = try Self.bounded(FileHandle.standardInput, name: "standard input") ?? Data()
        }
        let result = execute(input: data)
        StandardStreams.out(result.standardOutput)
        StandardStreams.error(result.standardError)
        return result.status
    }

    /// Verifies `input` (one payload, or one per line with `--lines`) without touching the
    /// process's streams.
    package func execute(input: Data) -> Result {
        lines ? executeLines(input) : executeOne(String(decoding: input, as: UTF8.self))
    }

    private func executeOne(_ text: String) -> Result {
        var result = Result()
        do {
            result.standardOutput = try Self.render(try verifier.verifyAny(text, as: kind), pretty: true) + "\n"
        } catch let error as VerificationError {
            result.standardError = "verification failed: \(error)\n"
            result.status = 1
        } catch {
            result.standardError = "verification failed: verificationFailure: \(error)\n"
            result.status = 1
        }
        return result
    }

    /// Verifies every non-empty line, on every core, and prints the results in input order.
    private func executeLines(_ data: Data) -> Result {
        let inputs = Self.lines(of: data)
        // Nothing verified is no success: the wrong file, or an empty pipe, would pass for one.
        guard inputs.contains(where: Self.holdsPayload) else {
            return Result(standardError: "verification failed: the input holds no payload\n", status: 1)
        }
        let outputs = Mutex([String?](repeating: nil, count: inputs.count))
        let failures = Atomic<Int>(0)
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let chunk = max(1, (inputs.count + workers - 1) / workers)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let range = (worker * chunk)..<min(inputs.count, (worker + 1) * chunk)
            guard !range.isEmpty else { return }
            var results: [String?] = []
            for index in range {
                let line = inputs[index]
                guard Self.holdsPayload(line) else {
                    results.append(nil)
                    continue
                }
                do {
                    results.append(try Self.render(try verifier.verifyAny(line, as: kind), pretty: false))
                } catch {
                    failures.add(1, ordering: .relaxed)
                    results.append(Self.renderFailure(error, line: index + 1))
                }
            }
            outputs.withLock { $0.replaceSubrange(range, with: results) }
        }
        let rendered = outputs.withLock { $0 }.compactMap { $0 }
        var result = Result()
        result.standardOutput = rendered.map { $0 + "\n" }.joined()
        let failed = failures.load(ordering: .relaxed)
        if failed > 0 {
            result.standardError = "verification failed: \(failed) of \(rendered.count) payload(s)\n"
            result.status = 1
        }
        return result
    }

    /// Whether a line of `--lines` input holds anything but white space.
    static func holdsPayload(_ line: String) -> Bool { line.utf8.contains { $0 > 0x20 } }

    /// The lines of `data`, split at every line feed.
    static func lines(of data: Data) -> [String] {
        data.withUnsafeBytes { buffer -> [String] in
            guard let base = buffer.baseAddress else { return [] }
            var lines: [String] = []
            var start = 0
            while start <= buffer.count {
                let end =
                    memchr(base + start, Int32(UInt8(ascii: "\n")), buffer.count - start).map { UnsafeRawPointer($0) - base }
                    ?? buffer.count
                lines.append(String(decoding: UnsafeRawBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self))
                start = end + 1
            }
            return lines
        }
    }

    static func render(_ verified: VerifiedSignedData, pretty: Bool) throws -> String {
        try verified.decodedJSON().serialized(pretty: pretty)
    }

    static func renderFailure(_ error: any Error, line: Int) -> String {
        let failure = error as? VerificationError ?? VerificationError(.verificationFailure, "\(error)")
        let object = JSONValue.object([
            "error": .string(failure.status.rawValue), "detail": .string(failure.detail), "line": .integer(Int64(line)),
        ])
        return object.serialized()
    }
}

/// A file the command line names that cannot be used: exit 1, as for any file (the command line
/// itself was right).
struct FileProblem: Error, CustomStringConvertible {
    let description: String
}
