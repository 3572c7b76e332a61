import Foundation

/// Reads HTTP/1.1 responses from a byte stream (plain or TLS) through one reusable buffer: the head is found by a
/// byte scan and only its lines become strings; bodies are copied straight into `Data`.
///
/// Whatever the peer sends, memory stays bounded and nothing traps: the buffer never grows (a
/// head or a chunk line longer than `bufferSize` is malformed), a body is kept only up to the
/// caller's `maxBodyBytes`, and every number read from the peer goes through `HTTPNumber`, so a
/// status, `Content-Length` or chunk size that is not a count in range is `.malformedResponse`.
final class ResponseReader {
    /// The buffer's fixed size: the longest response head, and the longest chunk-size or trailer
    /// line, that a response may have.
    static let bufferSize = 64 * 1024
    private let stream: any ByteStream
    private var buffer = [UInt8](repeating: 0, count: bufferSize)
    /// Unread bytes are `buffer[start..<end]`.
    private var start = 0
    private var end = 0

    init(stream: any ByteStream) {
        self.stream = stream
    }

    /// Reads one response; `closes` is true when the connection cannot carry another (the server
    /// will close it, or the body was cut at `maxBodyBytes` and its rest is still unread).
    /// `bodyless` is for answers to HEAD, which have headers that describe a body never sent.
    func readResponse(bodyless: Bool, maxBodyBytes: Int = .max) throws(LoopbackClientError) -> (
        response: LoopbackResponse, closes: Bool
    ) {
        var (status, headers) = try readHead()
        while (100..<200).contains(status), status != 101 {
            (status, headers) = try readHead()  // 100 Continue and other interim answers
        }
        var response = LoopbackResponse(status: status, headers: headers)
        var closes = headers["connection"]?.lowercased().contains("close") ?? false
        if bodyless || status == 204 || status == 304 {
            return (response, closes)
        }
        let limit = max(0, maxBodyBytes)
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            response.isTruncated = try readChunked(into: &response.body, limit: limit)
        } else if let field = headers["content-length"] {
            guard let length = HTTPNumber.contentLength(field) else {
                throw malformed("Content-Length \(Self.printable(field.utf8)) is not a byte count.")
            }
            try read(count: min(length, limit), into: &response.body)
            response.isTruncated = length > limit
        } else {
            response.isTruncated = try readToClose(into: &response.body, limit: limit)
            closes = true
        }
        return (response, closes || response.isTruncated)
    }

    // MARK: - Head

    private func readHead() throws(LoopbackClientError) -> (Int, [String: String]) {
        var scanned = 0  // unread bytes already known not to start the CRLFCRLF; `fill` may move them
        while true {
            if let headEnd = findHeadEnd(from: start + scanned) {
                defer { start = headEnd }
                return try parseHead(buffer[start..<headEnd - 4])
            }
            scanned = max(0, end - start - 3)
            guard try fill() else {
                throw LoopbackClientError(
                    code: scanned == 0 && end == start ? .closedBeforeResponse : .closed,
                    message: "The server closed the connection before answering.")
            }
        }
    }

    /// The index just past the first CRLFCRLF in the unread bytes at or after `from`.
    private func findHeadEnd(from: Int) -> Int? {
        guard end - from >= 4 else { return nil }
        return buffer.withUnsafeBufferPointer { bytes -> Int? in
            var index = from
            while index + 3 < end {
                if bytes[index + 3] != 10 {
                    index += bytes[index + 3] == 13 ? 1 : 4
                    continue
                }
                if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13 { return index + 4 }
                index += 1
            }
            return nil
        }
    }

    private func parseHead(_ head: ArraySlice<UInt8>) throws(LoopbackClientError) -> (Int, [String: String]) {
        let lines = head.split(separator: 13, omittingEmptySubsequences: false).map { line in
            line.first == 10 ? line.dropFirst() : line
        }
        let statusLine = Array(lines.first ?? [])
        guard let status = Self.status(statusLine) else {
            throw malformed("Bad status line: \(Self.printable(statusLine))")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: 58) else { continue }
            let name = String(decoding: line[..<colon].map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
            let value = String(decoding: Self.trimmingWhitespace(line[(colon + 1)...]), as: UTF8.self)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return (status, headers)
    }

    /// The code of `HTTP/1.x SP 3DIGIT [SP reason]`, when it is one HTTP defines (100 to 599,
    /// [RFC 9110 §15](https://www.rfc-editor.org/rfc/rfc9110#section-15)).
    static func status(_ line: [UInt8]) -> Int? {
        let space = UInt8(ascii: " ")
        guard line.count >= 12, line.starts(with: Array("HTTP/1.".utf8)), HTTPNumber.decimal(line[7...7]) != nil,
            line[8] == space, line.count == 12 || line[12] == space,
            let status = HTTPNumber.decimal(line[9..<12]), (100...599).contains(status)
        else { return nil }
        return status
    }

    /// `bytes` without the spaces and tabs around it (HTTP's optional whitespace), trimmed on the
    /// bytes: Foundation's `trimmingCharacters` bridges through `NSString` and costs more than the
    /// rest of reading a response.
    static func trimmingWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var trimmed = bytes
        while let first = trimmed.first, isWhitespace(first) { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, isWhitespace(last) { trimmed = trimmed.dropLast() }
        return trimmed
    }

    // MARK: - Body

    /// Reads a chunked body, keeping at most `limit` bytes of it; true when it was longer (its
    /// rest is left unread).
    private func readChunked(into body: inout Data, limit: Int) throws(LoopbackClientError) -> Bool {
        while true {
            let line = try readLine()
            let digits = line.prefix { $0 != UInt8(ascii: ";") }  // chunk extensions follow ';'
            guard let size = HTTPNumber.hexadecimal(Self.trimmingWhitespace(digits)) else {
                throw malformed("Bad chunk size line: \(Self.printable(line))")
            }
            if size == 0 {
                while try !readLine().isEmpty {}  // trailers up to the blank line
                return false
            }
            let room = limit - body.count
            guard size <= room else {
                try read(count: room, into: &body)
                return true
            }
            try read(count: size, into: &body)
            guard try readLine().isEmpty else { throw malformed("Chunk data is not followed by CRLF.") }
        }
    }

    /// Reads a body that ends when the server closes the connection, keeping at most `limit`
    /// bytes of it; true when more came (the rest is left unread).
    private func readToClose(into body: inout Data, limit: Int) throws(LoopbackClientError) -> Bool {
        while true {
            append(min(end - start, limit - body.count), to: &body)
            if start < end { return true }
            guard try fill() else { return false }
        }
    }

    /// The next line without its CRLF.
    private func readLine() throws(LoopbackClientError) -> [UInt8] {
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 10) {
                let line = buffer[start..<newline]
                start = newline + 1
                return Array(line.last == 13 ? line.dropLast() : line)
            }
            guard try fill() else { throw closedEarly() }
        }
    }

    /// Reads exactly `count` body bytes; a count declared by the peer reaches here only after
    /// the caller bounded it.
    private func read(count: Int, into body: inout Data) throws(LoopbackClientError) {
        var remaining = count
        body.reserveCapacity(body.count + min(count, Self.bufferSize))
        while remaining > 0 {
            if start == end {
                guard try fill() else { throw closedEarly() }
            }
            let taken = min(remaining, end - start)
            append(taken, to: &body)
            remaining -= taken
        }
    }

    private func append(_ count: Int, to body: inout Data) {
        buffer.withUnsafeBufferPointer { bytes in
            body.append(bytes.baseAddress! + start, count: count)
        }
        start += count
    }

    // MARK: - Buffer

    /// Reads more bytes after the unread ones; false when the server closed the connection.
    /// Unread bytes filling the whole buffer are a head or line longer than any response may have.
    private func fill() throws(LoopbackClientError) -> Bool {
        if start == end {
            (start, end) = (0, 0)
        } else if end == buffer.count {
            guard start > 0 else {
                throw malformed("A response head or chunk line is longer than \(buffer.count) bytes.")
            }
            buffer.withUnsafeMutableBufferPointer { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start)
            }
            (start, end) = (0, end - start)
        }
        let capacity = buffer.count - end
        let read = try buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(LoopbackClientError) in try stream.receive(into: bytes.baseAddress! + end, count: capacity) }
        }.get()
        end += read
        return read > 0
    }

    /// At most 80 of the peer's bytes for a message, anything but printable ASCII as "?": the
    /// message may reach a log or a terminal.
    private static func printable(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.prefix(80).map { (32..<127).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    private func malformed(_ message: String) -> LoopbackClientError {
        LoopbackClientError(code: .malformedResponse, message: message)
    }

    private func closedEarly() -> LoopbackClientError {
        LoopbackClientError(code: .closed, message: "The server closed the connection in the middle of a response.")
    }
}
