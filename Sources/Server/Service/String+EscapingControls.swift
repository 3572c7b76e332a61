extension Unicode.Scalar {
    /// C0 controls, DEL and C1 controls.
    var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

extension String {
    /// The string with control characters (C0, DEL and C1, line breaks included) written as
    /// `\u{1B}`, for a terminal: text a sender chose cannot run escape sequences or fake lines.
    package var escapingControls: String {
        guard unicodeScalars.contains(where: \.isControl) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            if scalar.isControl {
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
