import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Server
import Storage
import Threads

/// `revenuedot backfill`: recovers the notifications Apple sent that were never stored.
package struct BackfillCommand {
    package static let usage = """
        usage: revenuedot backfill --app ID [--environment Production|Sandbox] [--since DATE] [--until DATE]
                                   [--only-failures] [--config FILE]

        Pages through Apple's notification history (Get Notification History, with the app's
        inAppPurchaseKey) and hands every notification to the ingest path, exactly as Apple's POST:
        verified, stored once per notificationUUID, applied, its events sent. One already stored
        changes nothing, so a backfill can run any time, as often as wanted.

          --environment E   Production or Sandbox; both that the app accepts when not given
          --since DATE      from DATE (UNIX ms, 2026-11-01 or ISO 8601); by default from where the
                            last completed backfill read through (the database's mark) less
                            appleApi.backfillMarginMinutes; before any, only Apple's failed
                            deliveries, as far back as it keeps them (180 days in Production, 30 in
                            Sandbox): one Apple delivered went to the server it reached (the one
                            before RevenueDot, whose state import brings)
          --until DATE      to DATE (default now)
          --only-failures   only the notifications Apple could not deliver

        With `revenuedot serve` running on the database, notifications go to its notification
        URL, and a completed run from the mark moves it on through serve (with the app's
        secretApiKey); without, into the database directly, and moves the mark on there.
        Progress goes to standard error, a summary to standard output. Exit 0 when every page
        was read and every notification verified; 1 with the reason otherwise (what was stored
        stays stored, and the next run goes on from there).
        """

    let parsed: ParsedArguments
    /// `--since` and `--until` in UNIX ms.
    let since: Int64?
    let until: Int64?

    package init(arguments: [String]) throws {
        parsed = try ParsedArguments(
            arguments, valueOptions: ["config", "app", "environment", "since", "until"], flagOptions: ["only-failures"])
        guard parsed.positionals.isEmpty else { throw UsageError("backfill takes options only") }
        guard parsed.value("app") != nil else { throw UsageError("backfill needs --app ID") }
        since = try CommandDates.option("since", in: parsed)
        until = try CommandDates.option("until", in: parsed)
        if let since, since > UnixTime.nowMs { throw UsageError("--since is in the future") }
        if let since, let until, since >= until { throw UsageError("--since must come before --until") }
        _ = try AppleCommand.environment(parsed.value("environment"))
    }

    package func run() throws -> Int32 {
        let (config, app) = try AppleCommand.configuredApp(parsed)
        // Refused before anything is opened: without a key Apple cannot be asked.
        _ = try AppleAPIClients.key(of: app)
        let appId = app.id
        let environments =
            try AppleCommand.environment(parsed.value("environment")).map { [$0] } ?? Backfill.environments(of: app)
        if let asked = environments.first, !app.environments.contains(asked) {
            throw UsageError("app \"\(appId)\" does not accept \(asked.rawValue)")
        }
        guard !environments.isEmpty else {
            throw UsageError("app \"\(appId)\" accepts neither Production nor Sandbox, the environments Apple keeps history of")
        }
        let target = try Backfill.Target.open(config: config, appId: appId)
        defer { target.close() }
        let asked = Backfill.Asked(since: since, until: until, onlyFailures: parsed.flags.contains("only-failures"))
        var failed = false
        for environment in environments {
            let label = "backfill \(appId) \(environment.rawValue)"
            do {
                let started = ContinuousClock.now
                let counts = try Backfill.pass(
                    environment, of: target,
                    client: try AppleAPIClients.client(for: app, environment: environment, config: config.appleAPI),
                    asked: asked, marginMs: Int64(config.appleAPI.backfillMarginMinutes) * 60_000,
                    planned: { window, _ in
                        StandardStreams.error(
                            "\(label): from \(UnixTime.iso8601(window.start)) to \(UnixTime.iso8601(window.end)), into "
                                + "\(target.name)\n")
                        if window.firstSight {
                            StandardStreams.error(
                                "\(label): only Apple's failed deliveries, as far back as it keeps them (no backfill has "
                                    + "completed yet; what Apple delivered went to the server it reached: --since reads it "
                                    + "all, and sends its events)\n")
                        }
                    },
                    progress: { counts in StandardStreams.error("\(label): page \(counts.pages), \(counts.summary)\n") })
                let seconds = started.duration(to: .now).inSeconds
                StandardStreams.out("\(label): \(counts.summary) in \(String(format: "%.2f", seconds)) s\n")
                if counts.refused > 0 {
                    // Apple signed them: refusing them means the app's configuration is wrong.
                    StandardStreams.error(
                        "\(label): \(counts.refused) of Apple's notifications did not verify; check the app's "
                            + "rootCertificates, bundleId and environments (revenuedot notifications rejects)\n")
                    failed = true
                }
            } catch let stopped as Backfill.Stopped {
                StandardStreams.error("\(label): stopped: \(stopped) (\(stopped.counts.summary) so far)\n")
                failed = true
            } catch {
                StandardStreams.error("\(label): \(error)\n")
                failed = true
            }
        }
        return failed ? 1 : 0
    }
}

extension Backfill.Target {
    /// Where the command's backfill goes: the running server that has the database (the mark
    /// moved on through it), or the database opened here.
    static func open(config: RevenueDotConfig, appId: String) throws -> Backfill.Target {
        if let listen = try CommandStore.servingAddress(config, for: "backfill") {
            let reader = try CommandStore.reader(config)
            // The server moves the mark on, with the app's secret key; without one it stays,
            // and the next run reads again from where it is.
            let server = try? config.app(appId).map { try RunningServer(listen: listen, app: $0, command: "backfill") }
            return Backfill.Target(
                name: "the running server at \(listen)",
                deliver: BackfillDelivery.overHTTP(listen: listen, appId: appId),
                mark: { try reader.backfillMark(appId: appId, environment: $0.rawValue) },
                advanceMark: { environment, through in
                    guard let server else {
                        return StandardStreams.error(
                            "backfill \(appId) \(environment.rawValue): the mark stays where it was: app \"\(appId)\" has "
                                + "no secretApiKey for the running server to move it with\n")
                    }
                    _ = try server.post(
                        "/v1/apple/backfill-mark",
                        .object(["environment": .string(environment.rawValue), "read_through": .integer(through)]),
                        timeoutSeconds: 30)
                }, close: { reader.close() })
        }
        let store = try CommandStore.openApplying(config, to: "backfill", command: "backfill")
        let ingest: Ingest
        do { ingest = Ingest(verifiers: try AppVerifiers.forApps(of: config), store: store, metrics: Metrics()) } catch {
            store.close()
            throw error
        }
        var target = Backfill.Target.inProcess(store: store, ingest: ingest, appId: appId, name: CommandStore.name(config))
        target.close = { store.close() }
        return target
    }
}
