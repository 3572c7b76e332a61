import HTTP

/// The access log: a line per request answered (or ended before its answer was sent:
/// `unsent=connection_lost|timed_out|shutdown`) (`log.access`), at level info; `/health` and
/// `/metrics` only with `log.accessProbes`. The path is logged without its query string, and
/// no header but `X-Forwarded-For` (the client behind a proxy): API keys stay out.
enum AccessLines {
    /// What the HTTP server calls per request; nil when the configuration logs no access lines.
    static func sink(_ log: Log) -> (@Sendable (AccessEntry) -> Void)? {
        guard log.config.access, log.enabled(.info) else { return nil }
        let probes = log.config.accessProbes
        return { entry in
            if !probes, entry.path == "/health" || entry.path == "/metrics" { return }
            var fields: [(String, LogValue)] = [
                ("method", .text(entry.method)), ("path", .text(entry.path)), ("status", .integer(Int64(entry.status))),
                ("ms", .number(entry.seconds * 1000)), ("bytes", .integer(Int64(entry.bytes))),
                ("remote", .text(entry.remoteAddress)),
            ]
            if let forwarded = entry.forwardedFor { fields.append(("forwarded_for", .text(forwarded))) }
            if let why = entry.unsent { fields.append(("unsent", .text(why))) }
            log.info("access", "", fields)
        }
    }
}
