extension Unicode.Scalar {
    /// C0 controls, DEL and C1 controls.
    var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

extension String {
    /// The string with control characters (C0, DEL and C1, line breaks included) written as
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
