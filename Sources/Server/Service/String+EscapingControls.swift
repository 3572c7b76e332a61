extension Unicode.Scalar {
    /// C0 controls, DEL and C1 controls; and the characters that break a line or reorder text
    /// where a reader shows it (U+2028, U+2029; the bidirectional marks, embeddings, overrides
    /// and isolates), which a sender could use to fake a line or hide what follows.
    var isControl: Bool {
        isC0OrC1Control || value == 0x2028 || value == 0x2029 || value == 0x061C || value == 0x200E
            || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// C0 controls, DEL and C1 controls only.
    var isC0OrC1Control: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

extension String {
    /// The string with control characters (`isControl`, line breaks included) written as
    /// `\u{1B}`, for a terminal: text a sender chose cannot run escape sequences or fake lines.
    package var escapingControls: String {
        escapingControls { "\\u{\(String($0.value, radix: 16, uppercase: true))}" }
    }

    /// The string with each control character written as `escape` spells it.
    func escapingControls(_ escape: (Unicode.Scalar) -> String) -> String {
        guard unicodeScalars.contains(where: \.isControl) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            if scalar.isControl {
                escaped += escape(scalar)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
