/// The store's SQL is written with SQLite's `?` placeholders; PostgreSQL numbers them.
enum PostgresPlaceholders {
    /// `sql` with each `?` outside quotes and comments replaced by `$1`, `$2`, … in order, and
    /// each `?NNN` by `$NNN`.
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var characters = sql.makeIterator()
        var pending: Character?
        func next() -> Character? {
            if let character = pending {
                pending = nil
                return character
            }
            return characters.next()
        }
        while let character = next() {
            switch character {
            case "?":
                // `?NNN` names argument NNN, as in SQLite; a bare `?` is the next one.
                var digits = ""
                while let following = next() {
                    guard following.isASCII, following.isNumber else {
                        pending = following
                        break
                    }
                    digits.append(following)
                }
                if digits.isEmpty {
                    number += 1
                    result += "$\(number)"
                } else {
                    result += "$" + digits
                }
            case "'", "\"":
                // A quoted string or identifier, to its closing quote (a doubled quote stays inside).
                result.append(character)
                while let inner = next() {
                    result.append(inner)
                    if inner == character { break }
                }
            case "-":
                result.append(character)
                guard let following = next() else { break }
                result.append(following)
                if following == "-" {
                    while let inner = next() {
                        result.append(inner)
                        if inner == "\n" { break }
                    }
                }
            default:
                result.append(character)
            }
        }
        return result
    }
}
