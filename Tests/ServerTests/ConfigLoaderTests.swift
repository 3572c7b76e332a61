import AppStore
import Crypto
import Foundation
import Server
import Testing
import Tools

@Suite("revenuedot.json")
struct ConfigLoaderTests {
    let directory = TestDirectory("revenuedot-config").url

    func parse(_ text: String) throws -> RevenueDotConfig {
        try ConfigLoader.parse(Data(text.utf8), file: directory.appendingPathComponent("revenuedot.json").path)
    }

    /// The problem line for a configuration that must not load.
    func failure(_ text: String) -> String {
        do {
            _ = try parse(text)
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    static let minimalApp = #"{"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234}"#

    /// Unsigned data shares no server with Production, whichever app takes it: anyone can post
    /// it, and it would fill the database Production's notifications are stored in.
    @Test func unsignedDataIsRefusedOnAServerThatTakesProduction() throws {
        let xcode = #"{"id": "lab", "bundleId": "com.example.app", "environments": ["Xcode", "Sandbox"]}"#
        #expect(
            failure(#"{"apps": [\#(Self.minimalApp), \#(xcode)]}"#).hasSuffix(
                "apps[1].environments: Xcode data carries no App Store signature, so anyone can post it; it may not "
                    + "share a server (and its database) with app \"demo\", which takes Production: test StoreKit in "
                    + "Xcode against a server of its own"))
        let sandbox = #"{"id": "demo", "bundleId": "com.example.app", "environments": ["Sandbox"]}"#
        #expect(try parse(#"{"apps": [\#(sandbox), \#(xcode)]}"#).apps.count == 2)
    }

    @Test func designExampleLoadsWithEveryKey() throws {
        let rootPath = directory.appendingPathComponent("root.pem").path
        try writeTrusted(TestChain().root.pem, to: rootPath)
        let keyPath = directory.appendingPathComponent("SubscriptionKey_ABC123.p8").path
        try ECPrivateKey(generating: .p256).pkcs8PEM().write(toFile: keyPath, atomically: true, encoding: .utf8)
        let config = try parse(
            """
            {
              "listen": "127.0.0.1:8080",
              "database": "sqlite:revenuedot.sqlite",
              "apps": [{
                "id": "demo",
                "bundleId": "com.example.app",
                "appAppleId": 1234567890,
                "environments": ["Production", "Sandbox"],
                "rootCertificates": ["root.pem"],
                "trackNewPurchasesFromServerNotifications": false,
                "secretApiKey": "sk_x", "publicApiKey": "pk_x",
                "entitlements": { "pro": ["pro.monthly", "pro.yearly"] },
                "webhook": { "url": "http://127.0.0.1:9000/hooks", "authorization": "Bearer t", "signingSecret": "s" },
                "inAppPurchaseKey": { "keyId": "ABC123", "issuerId": "issuer", "privateKeyPath": "SubscriptionKey_ABC123.p8" }
              }],
              "scheduler": { "intervalMs": 1000 }
            }
            """)
        #expect(config.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(config.database == .sqlite(path: directory.appendingPathComponent("revenuedot.sqlite").path))
        let app = try #require(config.app("demo"))
        #expect(app.environments == [.production, .sandbox])
        #expect(app.rootCertificates.count == 2)  // Apple Root CA - G3 and the extra root
        #expect(app.entitlements["pro"] == ["pro.monthly", "pro.yearly"])
        #expect(app.webhook?.retryDelaysSeconds == WebhookConfig.defaultRetryDelaysSeconds)
        #expect(app.webhook?.concurrency == 8)
        #expect(app.inAppPurchaseKey?.keyId == "ABC123")
        #expect(config.scheduler.intervalMs == 1000)
        #expect(config.http.maxBodyBytes == 1 << 20)
        #expect(config.http.timeoutSeconds == 10)
        #expect(config.http.requestTimeoutSeconds == 30)
        #expect(config.http.headerTimeoutSeconds == 10)
        #expect(config.http.maxBufferedBodyBytes == 64 << 20)
        #expect(config.http.connectionsPerIP == 0)
    }

    @Test(arguments: [
        (#"{"apps": [{"id": "a", "appAppleId": 1}]}"#, "apps[0].bundleId: missing"),
        (#"{"apps": [\#(minimalApp), \#(minimalApp)]}"#, "apps[1].id: \"demo\" is used by two apps"),
        (
            #"{"apps": [{"id": "a", "bundleId": "b"}]}"#,
            "apps[0].appAppleId: missing: required when environments include Production"
        ),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "environments": ["Sandbox"], "rootCertificates": ["nope.pem"]}]}"#,
            "apps[0].rootCertificates[0]: cannot read"
        ),
        // Said why: a directory, or a file that holds no certificate (without OpenSSL's error code).
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "environments": ["Sandbox"], "rootCertificates": ["/tmp"]}]}"#,
            "apps[0].rootCertificates[0]: cannot read /tmp: it is a directory"
        ),
        (#"{"listen": "localhost", "apps": [\#(minimalApp)]}"#, "listen: \"localhost\" is not HOST:PORT"),
        (#"{"listen": "127.0.0.1:99999", "apps": [\#(minimalApp)]}"#, "listen: "),
        (#"{"listen": "example.com:80", "apps": [\#(minimalApp)]}"#, "listen: "),
        (#"{"apps": []}"#, "apps: missing"),
        // A template that renders null must not pick a default database, port or no webhook silently.
        (#"{"database": null, "apps": [\#(minimalApp)]}"#, "database: is null: leave the key out for its default"),
        (#"{"listen": null, "apps": [\#(minimalApp)]}"#, "listen: is null"),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": null}]}"#,
            "apps[0].webhook: is null"
        ),
        (#"{}"#, "apps: missing"),
        (#"{"apps": [\#(minimalApp)], "lisen": "x"}"#, "lisen: unknown key"),
        (#"{"apps": [{"id": "a", "bundleID": "b", "appAppleId": 1}]}"#, "apps[0].bundleID: unknown key"),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "environments": ["Staging"]}]}"#,
            "apps[0].environments[0]: \"Staging\" is not"
        ),
        (#"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": "1"}]}"#, "apps[0].appAppleId: must be an integer"),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "environments": ["Sandbox", "Sandbox"]}]}"#,
            "apps[0].environments[1]: \"Sandbox\" is given twice"
        ),
        (#"{"database": "mysql://x", "apps": [\#(minimalApp)]}"#, "database: "),
        (#"{"apps": [{"id": "a/b", "bundleId": "b", "appAppleId": 1}]}"#, "apps[0].id: "),
        (#"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "ftp://x"}}]}"#, "apps[0].webhook.url: "),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "inAppPurchaseKey": {"keyId": "k", "issuerId": "i", "privateKeyPath": "none.p8"}}]}"#,
            "apps[0].inAppPurchaseKey.privateKeyPath: cannot read"
        ),
        (#"{"apps": [\#(minimalApp)], "scheduler": {"intervalMs": 0}}"#, "scheduler.intervalMs: must be between"),
        (#"{"apps": [\#(minimalApp)], "node": {"id": "web 1"}}"#, "node.id: \"web 1\" is not a node id"),
        (#"{"apps": [\#(minimalApp)], "node": {"name": "web-1"}}"#, "node.name: unknown key"),
        (#"{"apps": [\#(minimalApp)], "node": {"id": 1}}"#, "node.id: must be a string"),
        ("{not json", "not valid JSON"),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "productDisplayNames": {"pro.monthly": ""}}]}"#,
            "apps[0].productDisplayNames.pro.monthly: must not be empty"
        ),
        // Where an editor shows it, not a byte offset.
        ("{\n  \"apps\": [\(minimalApp),\n  ]\n}", "not valid JSON at line 3, column 3: "),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 123456789012345678901234567890}]}"#,
            "apps[0].appAppleId: must be between 1 and 9223372036854775807"
        ),
        (
            #"{"listen": "127.0.0.1:8095", "listen": "127.0.0.1:8096", "apps": [\#(minimalApp)]}"#,
            "listen: given twice (the second at line 1, column 30); give each key once"
        ),
        (
            #"{"apps": [\#(minimalApp), {"id": "b", "bundleId": "x", "bundleId": "y", "appAppleId": 1}]}"#,
            "apps[1].bundleId: given twice"
        ),
        (#"{"apps": [\#(minimalApp)], "http": {"threads": 2, "threads": 4}}"#, "http.threads: given twice"),
        (
            #"{"apps": [\#(minimalApp)], "http": {"requestTimeoutSeconds": 5}}"#,
            "http.requestTimeoutSeconds: must be at least timeoutSeconds (10)"
        ),
        (
            #"{"apps": [\#(minimalApp)], "http": {"headerTimeoutSeconds": 5}}"#,
            "http.headerTimeoutSeconds: must be from timeoutSeconds (10) to requestTimeoutSeconds (30)"
        ),
        (
            #"{"apps": [\#(minimalApp)], "http": {"headerTimeoutSeconds": 31}}"#,
            "http.headerTimeoutSeconds: must be from timeoutSeconds (10) to requestTimeoutSeconds (30)"
        ),
        (
            #"{"apps": [\#(minimalApp)], "http": {"maxBodyBytes": 2048, "maxBufferedBodyBytes": 2047}}"#,
            "http.maxBufferedBodyBytes: must be between 2048 and"
        ),
        (#"{"apps": [\#(minimalApp)], "http": {"connectionsPerIP": -1}}"#, "http.connectionsPerIP: must be between 0 and 4096"),
        // A port past 65535 crashed the start; a retry delay past 30 days crashed the writer at the first retry.
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "http://127.0.0.1:99999/h"}}]}"#,
            "apps[0].webhook.url: \"http://127.0.0.1:99999/h\": the port must be 1-65535"
        ),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "http://h/", "retryDelaysSeconds": [10, 9223372036854775807]}}]}"#,
            "apps[0].webhook.retryDelaysSeconds[1]: must be a whole number of seconds from 0 to 2592000 (30 days)"
        ),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "http://h/", "caFile": "ca.pem"}}]}"#,
            "apps[0].webhook.caFile: applies to https URLs only"
        ),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "https://h/", "caFile": "none.pem"}}]}"#,
            "apps[0].webhook.caFile: cannot read"
        ),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "https://u:p@h/"}}]}"#,
            "apps[0].webhook.url: \"https://u:***@h/\": credentials do not go in the URL; give them as authorization"
        ),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "https://h/", "authorization": "Bearer x\r\nX-Injected: 1"}}]}"#,
            "apps[0].webhook.authorization: holds a control character (a line break?): a header value cannot"
        ),
        // A refusal quotes a URL without its password, whatever else is wrong with it.
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "http://u:pw@h:99999/"}}]}"#,
            "apps[0].webhook.url: \"http://u:***@h:99999/\": the port must be 1-65535"
        ),
        (
            #"{"database": "postgre://u:pw@h/db", "apps": [\#(minimalApp)]}"#,
            "database: \"postgre://u:***@h/db\" is neither sqlite:PATH"
        ),
        (#"{"database": "sqlite:/tmp", "apps": [\#(minimalApp)]}"#, "database: /tmp is a directory: name the database file"),
        (#"{"listen": "127.0.0.1:+80", "apps": [\#(minimalApp)]}"#, "listen: \"127.0.0.1:+80\" is not HOST:PORT"),
        (#"{"apps": [{"id": "..", "bundleId": "b", "appAppleId": 1}]}"#, #"apps[0].id: ".." is a path step"#),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "entitlements": {"": ["p"]}}]}"#,
            "apps[0].entitlements.: an entitlement needs a name"
        ),
        // A line break in a value stays inside the one line.
        (#"{"apps": [{"id": "a\u000a", "bundleId": "b", "appAppleId": 1}]}"#, #"apps[0].id: "a\u{A}" may hold only"#),
        // One app's public key must not pass for another's secret one.
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "publicApiKey": "k", "secretApiKey": "s1"}, {"id": "c", "bundleId": "d", "appAppleId": 2, "secretApiKey": "k"}]}"#,
            "apps[1].secretApiKey: is also a key of apps[0]; give every app keys of its own"
        ),
        (
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "secretApiKey": "k"}, {"id": "c", "bundleId": "d", "appAppleId": 2, "secretApiKey": "k"}]}"#,
            "apps[1].secretApiKey: is also a key of apps[0]"
        ),
    ])
    func wrongConfigGivesOneLineNamingTheKey(text: String, expected: String) {
        let line = failure(text)
        #expect(line.contains(expected), "\(line)")
        #expect(!line.contains("\n"))
        #expect(line.hasPrefix("config "))
    }

    /// A root certificate file that holds no certificate is said so, without OpenSSL's error code.
    @Test func aRootCertificateFileThatIsNoCertificateIsSaidSo() {
        let line = failure(
            #"{"apps": [{"id": "a", "bundleId": "b", "environments": ["Sandbox"], "rootCertificates": ["/etc/passwd"]}]}"#)
        #expect(line.hasSuffix("apps[0].rootCertificates[0]: /etc/passwd is not a PEM or DER certificate"), "\(line)")
    }

    /// A root certificate must be one: an intermediate or a leaf of the chain would load, and
    /// then every notification would be refused.
    @Test(arguments: ["intermediate", "leaf"])
    func onlyARootCAIsARootCertificate(which: String) throws {
        let chain = try TestChain()
        let path = directory.appendingPathComponent("\(which).pem").path
        try writeTrusted((which == "leaf" ? chain.leaf : chain.intermediate).pem, to: path)
        let line = failure(#"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "rootCertificates": ["\#(which).pem"]}]}"#)
        #expect(line.contains("apps[0].rootCertificates[0]: \(path) holds "), "\(line)")
        #expect(line.contains("which is not a root CA certificate (self-signed, CA:TRUE): give the root of the chain"), "\(line)")
        #expect(!line.contains("\n"))
        let rootPath = directory.appendingPathComponent("root.pem").path
        try writeTrusted(chain.root.pem, to: rootPath)
        let rooted = #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "rootCertificates": ["root.pem"]}]}"#
        #expect(failure(rooted) == "loaded")
    }

    /// The request deadline follows a longer idle timeout unless it is given.
    /// `webhook.caFile` is resolved against the configuration's directory and must hold PEM
    /// certificates.
    @Test func webhookCAFileIsResolvedAndChecked() throws {
        try writeTrusted(TestChain().root.pem, to: directory.appendingPathComponent("ca.pem").path)
        try writeTrusted("not a certificate", to: directory.appendingPathComponent("junk.pem").path)
        func app(_ caFile: String) -> String {
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "https://h/", "caFile": "\#(caFile)"}}]}"#
        }
        let config = try parse(app("ca.pem"))
        #expect(config.app("a")?.webhook?.caFile == directory.appendingPathComponent("ca.pem").path)
        #expect(
            failure(app("junk.pem")).contains(
                "apps[0].webhook.caFile: \(directory.appendingPathComponent("junk.pem").path) holds no PEM certificate"))
    }

    /// A root or CA certificate that its group or other users can change is refused, with the
    /// `chmod` that fixes it: whoever can change it can make RevenueDot trust what they sign.
    @Test(arguments: [0o664, 0o646, 0o666])
    func trustAnchorsOthersCanChangeAreRefused(mode: Int) throws {
        let chain = try TestChain()
        let root = directory.appendingPathComponent("shared-root-\(mode).pem").path
        let ca = directory.appendingPathComponent("shared-ca-\(mode).pem").path
        try writeTrusted(chain.root.pem, to: root)
        try writeTrusted(chain.root.pem, to: ca)
        let rooted = #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "rootCertificates": ["\#(root)"]}]}"#
        let hooked =
            #"{"apps": [{"id": "a", "bundleId": "b", "appAppleId": 1, "webhook": {"url": "https://h/", "caFile": "\#(ca)"}}]}"#
        let apple = #"{"apps": [\#(Self.minimalApp)], "appleApi": {"caFile": "\#(ca)"}}"#
        for text in [rooted, hooked, apple] { #expect(failure(text) == "loaded") }
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: root)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: ca)
        let modeText = String(mode, radix: 8)
        #expect(
            failure(rooted).hasSuffix(
                "apps[0].rootCertificates[0]: \(root) can be changed by other users (mode \(modeText)) and decides what "
                    + "is trusted: run chmod go-w \(root)"), "\(failure(rooted))")
        #expect(failure(hooked).contains("apps[0].webhook.caFile: \(ca) can be changed by other users"), "\(failure(hooked))")
        #expect(failure(apple).contains("appleApi.caFile: \(ca) can be changed by other users"), "\(failure(apple))")
    }

    /// `text` at `path`, which only its owner can change (whatever the umask).
    func writeTrusted(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    }

    @Test func requestDeadlineDefaultsToTwiceTheIdleTimeout() throws {
        let longer = try parse(#"{"apps": [\#(Self.minimalApp)], "http": {"timeoutSeconds": 40}}"#)
        #expect(longer.http.requestTimeoutSeconds == 80)
        let given = try parse(#"{"apps": [\#(Self.minimalApp)], "http": {"timeoutSeconds": 40, "requestTimeoutSeconds": 45}}"#)
        #expect(given.http.requestTimeoutSeconds == 45)
        #expect(given.http.headerTimeoutSeconds == 40)
    }

    /// The server's limits against greedy clients are given under `http`.
    @Test func bodyBudgetHeaderDeadlineAndPerIPLimitAreGiven() throws {
        let config = try parse(
            #"{"apps": [\#(Self.minimalApp)], "http": {"maxBufferedBodyBytes": 16777216, "headerTimeoutSeconds": 12, "connectionsPerIP": 64}}"#
        )
        #expect(config.http.maxBufferedBodyBytes == 16 << 20)
        #expect(config.http.headerTimeoutSeconds == 12)
        #expect(config.http.connectionsPerIP == 64)
    }

    @Test func listenAddresses() throws {
        #expect(
            try parse(#"{"listen": "[::1]:9000", "apps": [\#(Self.minimalApp)]}"#).listen
                == ListenAddress(host: "::1", port: 9000))
        #expect(try parse(#"{"listen": "0.0.0.0:0", "apps": [\#(Self.minimalApp)]}"#).listen.port == 0)
        #expect(try parse(#"{"listen": "localhost:80", "apps": [\#(Self.minimalApp)]}"#).listen.host == "127.0.0.1")
    }

    /// A byte order mark, which some editors write, is not a JSON error.
    @Test func aByteOrderMarkIsSkipped() throws {
        let text = "\u{FEFF}" + #"{"apps": [\#(Self.minimalApp)]}"#
        #expect(Array(text.utf8.prefix(3)) == [0xEF, 0xBB, 0xBF])
        #expect(try parse(text).apps.map(\.id) == ["demo"])
    }

    @Test func sandboxOnlyAppNeedsNoAppAppleId() throws {
        let config = try parse(#"{"apps": [{"id": "a", "bundleId": "b", "environments": ["Sandbox", "Xcode"]}]}"#)
        #expect(config.apps[0].appAppleId == nil)
        #expect(config.apps[0].environments == [.sandbox, .xcode])
    }

    /// A file that cannot be read says why: missing (with the way to make one), a directory.
    /// (An unreadable file gives the system's reason, "Permission denied"; tests run as root,
    /// which reads any file.)
    @Test func unreadableConfigSaysWhy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func problem(_ path: String) -> String? {
            do {
                _ = try ConfigLoader.load(path: path)
                return nil
            } catch {
                return error.problem
            }
        }
        #expect(
            problem(directory + "/missing.json")
                == "cannot read the file: no such file (name yours with --config FILE; revenuedot init writes a demo one)")
        #expect(problem(directory) == "cannot read the file: it is a directory")
        // A device is no file, and a file larger than any configuration is not read to its end.
        #expect(problem("/dev/zero") == "cannot read the file: it is a device or a socket, not a file")
        let large = directory + "/large.json"
        #expect(FileManager.default.createFile(atPath: large, contents: Data(count: ConfigFile.maxBytes + 1)))
        #expect(problem(large) == "cannot read the file: it is larger than 4 MiB, which no such file is")
    }
}

/// URLs quoted by configuration errors, without their passwords.
@Suite("URLs in configuration errors")
struct URLTextTests {
    @Test(arguments: [
        ("https://u:secret@h/x", "https://u:***@h/x"),
        ("https://u@h/x", "https://u@h/x"),
        ("https://h/x?a=b:c@d", "https://h/x?a=b:c@d"),
        ("http://u:p@ss:w@rd@h:1/", "http://u:***@h:1/"),
        ("not a url u:p@h", "not a url u:p@h"),
        ("ftp://u:p@h", "ftp://u:***@h"),
        // Passwords hold what URLs do not: every one is hidden, whatever the rest is.
        ("https://u:pa/ss@h/", "https://u:***@h/"),
        ("https://u:p#ss@h/", "https://u:***@h/"),
        ("https://u:p?ss@h/x", "https://u:***@h/x"),
        ("postgres://u:s3cr/t@db/x", "postgres://u:***@db/x"),
        ("https://u:p@ss@h/", "https://u:***@h/"),
        ("http://127.0.0.1:99999/h", "http://127.0.0.1:99999/h"),
    ])
    func passwordsAreLeftOut(text: String, quoted: String) {
        #expect(URLText.withoutPassword(text) == quoted)
    }
}
