import Dispatch
import Foundation
import Glibc
import Testing

@testable import LoopbackClient

/// `ResponseReader` fed raw responses through a socket pair: whatever the peer sends, a response
/// comes back with checked numbers and a bounded body, or an error; nothing traps or grows
/// without bound.
@Suite struct ResponseReaderTests {
    /// Header values lose HTTP's optional whitespace (spaces and tabs) and nothing else.
    @Test(arguments: [
        ("  a b \t", "a b"), ("\t\t", ""), ("", ""), ("x", "x"), ("\u{00A0}x\u{00A0}", "\u{00A0}x\u{00A0}"),
        (" chunked ", "chunked"),
    ])
    func trimsSpacesAndTabsOnly(raw: String, trimmed: String) {
        let bytes = ArraySlice(Array(raw.utf8))
        #expect(String(decoding: ResponseReader.trimmingWhitespace(bytes), as: UTF8.self) == trimmed)
    }

    /// What reading one response gave: its status, body size and truncation, or the error code.
    enum Read: Equatable {
        case response(status: Int, bodyBytes: Int, truncated: Bool)
        case failure(LoopbackClientError.Code)
    }

    /// Writes `raw` into one end of a socket pair from another thread (shutting that end after it
    /// unless `holdOpen`), and reads one response from the other end. The writer closes its end
    /// only once the read is over, so that its descriptor cannot be reused under a running test.
    static func read(
        _ raw: Data, maxBodyBytes: Int = .max, holdOpen: Bool = false, deadline: DispatchTime? = nil
    ) -> Read {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return .failure(.connectFailed) }
        let peer = pair[1]
        let readDone = DispatchSemaphore(value: 0)
        defer { readDone.signal() }
        let writer = Thread {
            raw.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = send(peer, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                    if written <= 0 { break }
                    offset += written
                }
            }
            if !holdOpen { _ = shutdown(peer, Int32(SHUT_WR)) }
            readDone.wait()
            close(peer)
        }
        writer.start()
        let socket = LoopbackSocket(connected: pair[0])
        socket.deadline = deadline
        do {
            let (response, closes) = try ResponseReader(stream: socket).readResponse(
                bodyless: false, maxBodyBytes: maxBodyBytes)
            #expect(!response.isTruncated || closes, "a cut body leaves the connection unusable")
            return .response(status: response.status, bodyBytes: response.body.count, truncated: response.isTruncated)
        } catch {
            return .failure(error.code)
        }
    }

    static func read(_ raw: String, maxBodyBytes: Int = .max) -> Read { read(Data(raw.utf8), maxBodyBytes: maxBodyBytes) }

    // MARK: - Numbers from the peer

    /// Content-Length values at and past every boundary: a count in range frames the body (the
    /// peer then closes early: `.closed`), anything else is malformed. Int.max once trapped in
    /// `reserveCapacity`, with or without a body limit.
    @Test(arguments: [
        ("9223372036854775807", Read.failure(.closed)), ("9223372036854775808", .failure(.malformedResponse)),
        ("18446744073709551616", .failure(.malformedResponse)), ("-1", .failure(.malformedResponse)),
        ("-9223372036854775808", .failure(.malformedResponse)), ("1e19", .failure(.malformedResponse)),
        ("1.5", .failure(.malformedResponse)), ("NaN", .failure(.malformedResponse)), ("+3", .failure(.malformedResponse)),
        ("", .failure(.malformedResponse)), (" 3 ", .response(status: 200, bodyBytes: 3, truncated: false)),
        ("0", .response(status: 200, bodyBytes: 0, truncated: false)),
        ("3\r\nContent-Length: 3", .response(status: 200, bodyBytes: 3, truncated: false)),
        ("3\r\nContent-Length: 4", .failure(.malformedResponse)),
    ])
    func contentLength(field: String, expected: Read) {
        let raw = "HTTP/1.1 200 OK\r\nContent-Length: \(field)\r\n\r\nabc"
        #expect(Self.read(raw) == expected)
        #expect(Self.read(raw, maxBodyBytes: 65536) == expected)
    }

    @Test(arguments: [
        ("7fffffffffffffff", Read.failure(.closed)), ("8000000000000000", .failure(.malformedResponse)),
        ("ffffffffffffffffff", .failure(.malformedResponse)), ("-5", .failure(.malformedResponse)),
        ("0x3", .failure(.malformedResponse)), ("+3", .failure(.malformedResponse)), ("", .failure(.malformedResponse)),
        ("3;ext=1", .response(status: 200, bodyBytes: 3, truncated: false)),
        ("3 ", .response(status: 200, bodyBytes: 3, truncated: false)),
    ])
    func chunkSize(line: String, expected: Read) {
        let raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(line)\r\nabc\r\n0\r\n\r\n"
        #expect(Self.read(raw) == expected)
        #expect(Self.read(raw, maxBodyBytes: 65536) == expected)
    }

    /// Chunks whose sizes add up past Int.max: the body limit ends reading before any sum is made.
    @Test func chunkSizesAddingUpPastIntMax() {
        let raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\nabc"
        #expect(Self.read(raw, maxBodyBytes: 2) == .response(status: 200, bodyBytes: 2, truncated: true))
        #expect(Self.read(raw) == .failure(.closed))
    }

    @Test(arguments: [
        "HTTP/1.1 9223372036854775807 OK", "HTTP/1.1 -9223372036854775808 OK", "HTTP/1.1 -1 OK", "HTTP/1.1 0 OK",
        "HTTP/1.1 1e19 OK", "HTTP/1.1 2.5 OK", "HTTP/1.1 NaN OK", "HTTP/1.1 +200 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 600 OK",
        "HTTP/1.1", "garbage",
    ])
    func statusLine(line: String) {
        #expect(Self.read("\(line)\r\nContent-Length: 0\r\n\r\n") == .failure(.malformedResponse))
    }

    // MARK: - Bounded memory

    /// A head (or a chunk line) longer than the buffer is malformed: the buffer never grows.
    @Test func aHeadOrChunkLineLongerThanTheBufferIsMalformed() {
        let filler = String(repeating: "x", count: ResponseReader.bufferSize)
        #expect(Self.read("HTTP/1.1 200 OK\r\nX-Filler: \(filler)\r\n\r\n") == .failure(.malformedResponse))
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;\(filler)\r\nabc\r\n0\r\n\r\n"
        #expect(Self.read(chunked) == .failure(.malformedResponse))
    }

    /// Each way a body is framed stops at `maxBodyBytes`: exactly that much is kept, the rest is
    /// left unread, and the response says so. A body of exactly the limit is whole.
    @Test func bodiesStopAtTheLimit() {
        let limit = 65536
        let big = String(repeating: "b", count: 3 * limit)
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nContent-Length: \(big.utf8.count)\r\n\r\n\(big)", maxBodyBytes: limit)
                == .response(status: 200, bodyBytes: limit, truncated: true))
        #expect(
            Self.read("HTTP/1.1 200 OK\r\n\r\n\(big)", maxBodyBytes: limit)
                == .response(status: 200, bodyBytes: limit, truncated: true))
        let chunk = String(repeating: "c", count: 40000)
        let chunks = String(repeating: "9c40\r\n\(chunk)\r\n", count: 3) + "0\r\n\r\n"
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(chunks)", maxBodyBytes: limit)
                == .response(status: 200, bodyBytes: limit, truncated: true))
        let exact = String(repeating: "e", count: limit)
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nContent-Length: \(limit)\r\n\r\n\(exact)", maxBodyBytes: limit)
                == .response(status: 200, bodyBytes: limit, truncated: false))
        #expect(
            Self.read("HTTP/1.1 200 OK\r\n\r\n\(exact)", maxBodyBytes: limit)
                == .response(status: 200, bodyBytes: limit, truncated: false))
    }

    // MARK: - Deadline

    /// A peer that sends part of an answer and then nothing ends the read at the deadline.
    @Test func aSilentPeerEndsAtTheDeadline() {
        let started = DispatchTime.now()
        let read = Self.read(
            Data("HTTP/1.1 200 OK\r\nContent-Le".utf8), holdOpen: true, deadline: .now() + .milliseconds(300))
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(read == .failure(.timedOut))
        #expect(elapsed >= 0.29 && elapsed < 2, "\(elapsed) s")
    }
}
