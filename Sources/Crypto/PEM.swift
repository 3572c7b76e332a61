import Foundation

/// PEM text (RFC 7468): base64 between `-----BEGIN X-----` and `-----END X-----` lines.
public enum PEM {
    /// The decoded contents of every block with this label, in order; blocks that are not
    /// valid base64 are skipped, so callers see them as missing.
    public static func blocks(in text: String, label: String) -> [Data] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        var result: [Data] = []
        var remainder = text[...]
        while let start = remainder.range(of: begin),
            let stop = remainder.range(of: end, range: start.upperBound..<remainder.endIndex)
        {
            let body = remainder[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            if let der = Base64.decode(body, alphabet: .standard) { result.append(der) }
            remainder = remainder[stop.upperBound...]
        }
        return result
    }

    /// Encodes DER bytes as one PEM block with 64-character lines.
    public static func encode(_ der: Data, label: String) -> String {
        let body = Base64.encode(der, alphabet: .standard)
        var lines = ["-----BEGIN \(label)-----"]
        var index = body.startIndex
        while index < body.endIndex {
            let next = body.index(index, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex
            lines.append(String(body[index..<next]))
            index = next
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}
