/// Columns of text for a terminal, each as wide as its widest cell and two spaces from the next:
/// a cell is never cut. The last column is not padded.
struct TextColumns {
    private let widths: [Int]

    /// Widths that fit every row of `rows` (the header among them).
    init(fitting rows: [[String]]) {
        var widths: [Int] = []
        for row in rows {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        self.widths = widths
    }

    /// One row, its cells padded to the columns' widths.
    func line(_ cells: [String]) -> String {
        var text = ""
        for (index, cell) in cells.enumerated() {
            text += cell
            if index < cells.count - 1 {
                text += String(repeating: " ", count: (index < widths.count ? widths[index] : cell.count) - cell.count + 2)
            }
        }
        return text
    }
}
