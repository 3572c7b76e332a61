import Foundation

/// Reads HTTP/1.1 responses from a socket through one reusable buffer: the head is found by a
/// byte scan and only its lines become strings; bodies are copied straight into `Data`.
final class ResponseReader {
    private let socket: LoopbackSocket
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Unread bytes are `buffer[start..<end]`.
    private var start = 0
    private var end = 0

    init(socket: LoopbackSocket) {
        self.socket = socket
    }

    /// Reads one response; `closes` is true when the server will close the connection after it.
    /// `bodyless` is for answers to HEAD, which have headers that describe a body never sent.
    func readResponse(bodyless: Bool) throws(LoopbackClientError) -> (response: LoopbackResponse, closes: Bool) {
        var (status, headers) = try readHead()
        while (100..<200).contains(status), status != 101 {
            (status, headers) = try readHead()  // 100 Continue and other interim answers
        }
        var response = LoopbackResponse(status: status, headers: headers)
        var closes = headers["connection"]?.lowercased().contains("close") ?? false
        if bodyless || status == 204 || status == 304 {
            return (response, closes)
        }
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            try readChunked(into: &response.body)
        } else if let field = headers["content-length"] {
            guard let length = Int(field), length >= 0 else {
                throw malformed("Content-Length \(field) is not a byte count.")
            }
            try read(count: length, into: &response.body)
        } else {
            while try fill() {}
            append(end - start, to: &response.body)
            closes = true
        }
        return (response, closes)
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
        guard let statusLine = lines.first, statusLine.count >= 12, statusLine.starts(with: Array("HTTP/1.".utf8)),
            let status = Int(String(decoding: statusLine.dropFirst(9).prefix(3), as: UTF8.self))
        else {
            throw malformed("Bad status line: \(String(decoding: lines.first ?? [], as: UTF8.self))")
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

    /// `bytes` without the spaces and tabs around it (HTTP's optional whitespace), trimmed on the
    /// bytes: Foundation's `trimmingCharacters` bridges through `NSString` and cost more than the
    /// rest of reading a response.
    static func trimmingWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var trimmed = bytes
        while let first = trimmed.first, isWhitespace(first) { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, isWhitespace(last) { trimmed = trimmed.dropLast() }
        return trimmed
    }

    // MARK: - Body

    private func readChunked(into body: inout Data) throws(LoopbackClientError) {
        while true {
            let line = try readLine()
            let digits = line.prefix { $0 != 59 }  // chunk extensions follow ';'
            guard let size = Int(String(decoding: Self.trimmingWhitespace(digits), as: UTF8.self), radix: 16)
            else {
                throw malformed("Bad chunk size line.")
            }
            if size == 0 {
                while try !readLine().isEmpty {}  // trailers up to the blank line
                return
            }
            try read(count: size, into: &body)
            guard try readLine().isEmpty else { throw malformed("Chunk data is not followed by CRLF.") }
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

    private func read(count: Int, into body: inout Data) throws(LoopbackClientError) {
        var remaining = count
        body.reserveCapacity(body.count + count)
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
    private func fill() throws(LoopbackClientError) -> Bool {
        if start == end {
            (start, end) = (0, 0)
        } else if end == buffer.count {
            if start > 0 {
                buffer.withUnsafeMutableBufferPointer { bytes in
                    _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start)
                }
                (start, end) = (0, end - start)
            } else {
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
        }
        let capacity = buffer.count - end
        let read = try buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(LoopbackClientError) in try socket.receive(into: bytes.baseAddress! + end, count: capacity) }
        }.get()
        end += read
        return read > 0
    }

    private func malformed(_ message: String) -> LoopbackClientError {
        LoopbackClientError(code: .malformedResponse, message: message)
    }

    private func closedEarly() -> LoopbackClientError {
        LoopbackClientError(code: .closed, message: "The server closed the connection in the middle of a response.")
    }
}
