import Foundation
import HTTP

/// The access log: a line per request answered (or ended before its answer was sent:
/// `unsent=connection_lost|timed_out|shutdown`) (`log.access`), at level info; `/health` and
/// `/metrics` only with `log.accessProbes`. The path is logged without its query string, and
/// no header but `X-Forwarded-For` (the client behind a proxy): API keys stay out.
///
/// Lines of requests answered 400 or more, or not answered, are written `refusedPerSecond` a
/// second at most (the next one written says how many were left out, `left_out`, or a line of
/// its own does, `access.left_out`): a stranger can send a refused request a millisecond, and a
/// journal that drops a service's lines past its rate limit would drop the lines that matter
/// (`storage.failing`) with them.
final class AccessLines: Sendable {
    /// What the HTTP server calls per request; nil when the configuration logs no access lines.
    let sink: (@Sendable (AccessEntry) -> Void)?
    private let refused: AllowedLines

    static let refusedPerSecond = 50

    init(_ log: Log, clock: @escaping @Sendable () -> Date = Date.init) {
        let refused = AllowedLines(perSecond: Self.refusedPerSecond, clock: clock) { leftOut in
            log.info(
                "access.left_out",
                "more than \(Self.refusedPerSecond) requests a second refused or unanswered: their lines left out",
                [("left_out", .integer(Int64(leftOut)))])
        }
        self.refused = refused
        guard log.config.access, log.enabled(.info) else {
            sink = nil
            return
        }
        let probes = log.config.accessProbes
        sink = { entry in
            if !probes, entry.path == "/health" || entry.path == "/metrics" { return }
            var fields: [(String, LogValue)] = [
                ("method", .text(entry.method)), ("path", .text(entry.path)), ("status", .integer(Int64(entry.status))),
                ("ms", .number(entry.seconds * 1000)), ("bytes", .integer(Int64(entry.bytes))),
                ("remote", .text(entry.remoteAddress)),
            ]
            if let forwarded = entry.forwardedFor { fields.append(("forwarded_for", .text(forwarded))) }
            if let why = entry.unsent { fields.append(("unsent", .text(why))) }
            if entry.status >= 400 || entry.unsent != nil {
                guard let leftOut = refused.admit() else { return }
                if leftOut > 0 { fields.append(("left_out", .integer(Int64(leftOut)))) }
            }
            log.info("access", "", fields)
        }
    }

    /// Writes the count of lines left out and not said yet, once no more come (the HTTP server
    /// stopped).
    func flush() { refused.flush() }
}
