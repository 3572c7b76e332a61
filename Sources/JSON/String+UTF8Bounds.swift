extension String {
    /// The longest prefix of at most `maxBytes` bytes of UTF-8 that ends on a Unicode scalar.
    ///
    /// For text a client chose, bounded where it is stored, logged or answered: counted in bytes,
    /// not characters, since one character may carry any number of combining marks.
    package func utf8Prefix(maxBytes: Int) -> Substring {
        var bytes = 0
        var end = unicodeScalars.startIndex
        for index in unicodeScalars.indices {
            bytes += UTF8.width(unicodeScalars[index])
            if bytes > maxBytes { break }
            end = unicodeScalars.index(after: index)
        }
        return self[..<end]
    }

    /// The text whole when it fits in `maxBytes` bytes of UTF-8, else its `utf8Prefix(maxBytes:)`
    /// and an ellipsis, so a reader sees that it was cut.
    package func utf8Truncated(maxBytes: Int) -> String {
        utf8.count > maxBytes ? String(utf8Prefix(maxBytes: maxBytes)) + "…" : self
    }

    /// The longest suffix of at most `maxBytes` bytes of UTF-8 that starts on a Unicode scalar.
    package func utf8Suffix(maxBytes: Int) -> Substring {
        var bytes = 0
        var start = unicodeScalars.endIndex
        while start > unicodeScalars.startIndex {
            let before = unicodeScalars.index(before: start)
            bytes += UTF8.width(unicodeScalars[before])
            if bytes > maxBytes { break }
            start = before
        }
        return self[start...]
    }
}
