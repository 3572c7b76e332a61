import COpenSSL

/// OpenSSL's error queue made into `LoopbackClientError`s, for `TLSClientContext` and `TLSStream`.
enum TLSFailure {
    /// A `.tlsFailed` error saying `what` failed, with the text of every error OpenSSL queued on
    /// this thread (the queue is emptied).
    static func error(_ what: String, code: LoopbackClientError.Code = .tlsFailed) -> LoopbackClientError {
        let queued = drainedErrorQueue()
        return LoopbackClientError(code: code, message: queued.isEmpty ? what : "\(what): \(queued)")
    }

    /// The text of each error on OpenSSL's queue for this thread, joined; the queue is emptied.
    static func drainedErrorQueue() -> String {
        var texts: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while case let code = ERR_get_error(), code != 0 {
            ERR_error_string_n(code, &buffer, buffer.count)
            texts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return texts.joined(separator: "; ")
    }
}
