import CZstd
import Foundation
import Synchronization

/// Debian's libzstd in one thin adapter: frames compressed with or without a dictionary.
///
/// A dictionary here is raw content (bytes the frames may refer back to, as if they came just
/// before), not one made by zstd's trainer: stored payloads repeat whole certificate chains,
/// which a few earlier payloads hold exactly.
///
/// Every function can run on any thread. Contexts are taken from a small pool rather than made per
/// call: a compression context sizes its tables on first use, which costs more than compressing
/// a notification.
enum Zstd {
    /// The level stored payloads are compressed at: zstd's default, cheap for a notification.
    static let level: Int32 = 3

    /// A trained dictionary, ready to compress and decompress with.
    final class Dictionary: @unchecked Sendable {
        /// Its row in `payload_dictionaries`.
        let id: Int64
        /// The dictionary's content, as the table keeps it.
        let bytes: Data
        // Immutable once made; zstd lets any number of threads use one at once.
        private let compression: OpaquePointer
        private let decompression: OpaquePointer

        init(id: Int64, bytes: Data) throws(StoreError) {
            let made = bytes.withUnsafeBytes { raw in
                (ZSTD_createCDict(raw.baseAddress, raw.count, Zstd.level), ZSTD_createDDict(raw.baseAddress, raw.count))
            }
            guard let compression = made.0, let decompression = made.1 else {
                if let pointer = made.0 { ZSTD_freeCDict(pointer) }
                if let pointer = made.1 { ZSTD_freeDDict(pointer) }
                throw StoreError(.corrupt, "payload dictionary \(id) (\(bytes.count) bytes) cannot be loaded")
            }
            self.id = id
            self.bytes = bytes
            self.compression = compression
            self.decompression = decompression
        }

        deinit {
            ZSTD_freeCDict(compression)
            ZSTD_freeDDict(decompression)
        }

        fileprivate func withCompression<T>(_ body: (OpaquePointer) -> T) -> T { body(compression) }
        fileprivate func withDecompression<T>(_ body: (OpaquePointer) -> T) -> T { body(decompression) }
    }

    /// `data` as one zstd frame that records its content size, with `dictionary` when given.
    static func compress(_ data: Data, with dictionary: Dictionary?) -> Data {
        let bound = ZSTD_compressBound(data.count)
        var frame = Data(count: bound)
        let written = compressionContexts.with { context in
            frame.withUnsafeMutableBytes { out in
                data.withUnsafeBytes { input in
                    if let dictionary {
                        dictionary.withCompression {
                            ZSTD_compress_usingCDict(context, out.baseAddress, bound, input.baseAddress, input.count, $0)
                        }
                    } else {
                        ZSTD_compressCCtx(context, out.baseAddress, bound, input.baseAddress, input.count, level)
                    }
                }
            }
        }
        // Only a destination smaller than the bound can fail, or memory: neither can be handled here.
        precondition(ZSTD_isError(written) == 0, "zstd failed to compress: \(errorName(written))")
        frame.count = written
        return frame
    }

    /// The bytes `frame` holds; it must have been made with `dictionary` (or without one, when nil).
    ///
    /// - Throws: `.corrupt` when the frame does not decompress, or not to the size it records.
    static func decompress(_ frame: Data, with dictionary: Dictionary?) throws(StoreError) -> Data {
        guard let size = contentSize(of: frame) else {
            throw StoreError(.corrupt, "a stored payload is not a zstd frame that records its size")
        }
        var content = Data(count: size)
        let read = decompressionContexts.with { context in
            content.withUnsafeMutableBytes { out in
                frame.withUnsafeBytes { input in
                    if let dictionary {
                        dictionary.withDecompression {
                            ZSTD_decompress_usingDDict(context, out.baseAddress, size, input.baseAddress, input.count, $0)
                        }
                    } else {
                        ZSTD_decompressDCtx(context, out.baseAddress, size, input.baseAddress, input.count)
                    }
                }
            }
        }
        guard ZSTD_isError(read) == 0, read == size else {
            let reason = ZSTD_isError(read) != 0 ? errorName(read) : "\(read) bytes of \(size)"
            throw StoreError(.corrupt, "a stored payload does not decompress: \(reason)")
        }
        return content
    }

    /// The size of what `frame` holds, as its header records it; nil when it records none.
    static func contentSize(of frame: Data) -> Int? {
        let size = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        guard CZstd_contentSizeKnown(size) != 0, size <= UInt64(Int.max) else { return nil }
        return Int(size)
    }

    private static func errorName(_ code: Int) -> String { String(cString: ZSTD_getErrorName(code)) }

    private static let compressionContexts = ContextPool(make: { ZSTD_createCCtx() }, free: { ZSTD_freeCCtx($0) })
    private static let decompressionContexts = ContextPool(make: { ZSTD_createDCtx() }, free: { ZSTD_freeDCtx($0) })
}

/// Contexts lent one caller at a time; at most `kept` idle ones are kept.
private final class ContextPool: Sendable {
    private let make: @Sendable () -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void
    private let idle = Mutex<[UnsafeSendable]>([])
    private let kept = 16

    /// An `OpaquePointer` handed between threads: a context is used by one thread at a time.
    private struct UnsafeSendable: @unchecked Sendable { let pointer: OpaquePointer }

    init(make: @escaping @Sendable () -> OpaquePointer?, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.make = make
        self.free = free
    }

    func with<T>(_ body: (OpaquePointer) -> T) -> T {
        let lent = idle.withLock { $0.popLast()?.pointer }
        guard let context = lent ?? make() else { fatalError("zstd could not allocate a context") }
        let result = body(context)
        let returned = idle.withLock { (idle) -> Bool in
            guard idle.count < kept else { return false }
            idle.append(UnsafeSendable(pointer: context))
            return true
        }
        if !returned { free(context) }
        return result
    }
}
