import Foundation
import Testing

@testable import Server

/// `serve` under a `Type=notify` unit: it tells systemd's socket (`NOTIFY_SOCKET`) when it is
/// ready, when a reload begins and ends, and when it stops; without the variable it sends nothing.
@Suite struct SystemdNotifyTests {
    /// A datagram socket bound at `path`, standing in for systemd's.
    final class NotifySocket {
        let descriptor: Int32
        let path: String

        /// `path` as `NOTIFY_SOCKET` gives it: a file, or an abstract name after `@`.
        init(path: String) throws {
            self.path = path
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var bytes = Array(path.utf8)
            if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
            withUnsafeMutableBytes(of: &address.sun_path) { path in
                for (index, byte) in bytes.enumerated() { path[index] = byte }
            }
            // An abstract name is exactly its bytes long: the length is part of the name.
            let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(length)) }
            }
            #expect(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        /// The next datagram, or nil after 30 s.
        func next() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
        }
    }

    @Test func serveSaysReadyReloadingAndStopping() throws {
        let fixture = try ServerFixture()
        let systemd = try NotifySocket(path: fixture.directory.path("notify"))
        let child = try ChildServer(configPath: fixture.configPath, environment: ["NOTIFY_SOCKET": systemd.path])
        let ready = try #require(systemd.next())
        #expect(ready.hasPrefix("READY=1\n"), "\(ready)")
        #expect(ready.contains("MAINPID=\(child.process.processIdentifier)"), "\(ready)")
        child.kill(SIGHUP)
        let reloading = try #require(systemd.next())
        #expect(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC="), "\(reloading)")
        #expect(systemd.next() == "READY=1")
        child.kill(SIGTERM)
        #expect(systemd.next() == "STOPPING=1")
        #expect(child.wait() == 0)
    }

    @Test func anAbstractSocketIsAddressedAndNoVariableSendsNothing() throws {
        #expect(!SystemdNotify(environment: [:]).isActive)
        #expect(!SystemdNotify(environment: ["NOTIFY_SOCKET": "relative/path"]).isActive)
        #expect(!SystemdNotify(environment: [:]).send("READY=1"))
        // An abstract address, as systemd may give it ("@..."): addressed by its exact bytes.
        let name = "@revenuedot-test-\(UUID().uuidString)"
        let listening = try NotifySocket(path: name)
        let abstract = SystemdNotify(environment: ["NOTIFY_SOCKET": name])
        #expect(abstract.isActive && abstract.send("READY=1"))
        #expect(listening.next() == "READY=1")
        let elsewhere = SystemdNotify(environment: ["NOTIFY_SOCKET": name + "-nobody"])
        #expect(!elsewhere.send("READY=1"))
    }
}
