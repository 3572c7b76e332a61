import Testing

@testable import Server
@testable import Tools

/// The CSV `revenuedot import` reads: what a careful export holds is read; anything else is
/// refused before Apple is asked, one line naming the file's line.
@Suite("Import's CSV")
struct ImportCSVTests {
    @Test func csvFieldsAndBadFilesAreOneClearLine() throws {
        // The API's rule for app_user_id holds with serve running or not.
        #expect(throws: UsageError.self) { _ = try Import.rows(csv: "original_transaction_id,app_user_id\n12,a\u{7}b\n") }
        #expect(throws: UsageError.self) {
            _ = try Import.rows(csv: "original_transaction_id,app_user_id\n12,\(String(repeating: "x", count: 257))\n")
        }
        #expect(try Import.fields(#""1,2",x,"say ""hi""""#) == ["1,2", "x", #"say "hi""#])
        #expect(
            try Import.rows(csv: "app_user_id,original_transaction_id\nbob,12\n,13\n") == [
                Import.Row(originalTransactionId: "12", appUserId: "bob"),
                Import.Row(originalTransactionId: "13", appUserId: nil),
            ])
        // A spreadsheet's export starts with a byte order mark.
        #expect(
            try Import.rows(csv: "\u{FEFF}original_transaction_id,app_user_id\r\n14,eve\r\n") == [
                Import.Row(originalTransactionId: "14", appUserId: "eve")
            ])
        #expect(throws: UsageError.self) { _ = try Import.rows(csv: "id\n12\n") }
        #expect(throws: UsageError.self) { _ = try Import.rows(csv: "original_transaction_id\nabc\n") }
        #expect(throws: UsageError.self) { _ = try Import.rows(csv: "") }
        // The same row twice is read once.
        #expect(
            try Import.rows(csv: "original_transaction_id,app_user_id\n12,bob\n13,\n12,bob\n13,\n") == [
                Import.Row(originalTransactionId: "12", appUserId: "bob"),
                Import.Row(originalTransactionId: "13", appUserId: nil),
            ])
    }

    /// What `Import.csvLine` writes (the lists of rows not found or failed, a reason column
    /// after the row's) reads back as it was.
    @Test func writtenRowsReadBack() throws {
        let rows = [
            Import.Row(originalTransactionId: "12", appUserId: #"a "quoted", name"#),
            Import.Row(originalTransactionId: "13", appUserId: nil), Import.Row(originalTransactionId: "14", appUserId: "b"),
        ]
        let csv =
            Import.csvLine(["original_transaction_id", "app_user_id", "reason"])
            + rows.map { Import.csvLine([$0.originalTransactionId, $0.appUserId ?? "", "why, \"said\"\non two lines"]) }.joined()
        #expect(try Import.rows(csv: csv) == rows)
    }

    @Test(
        arguments: [
            // the file, the line it must be refused with
            ("original_transaction_id,app_user_id\n12,\"alice\n", "CSV line 2: a quoted field is not closed"),
            ("original_transaction_id,app_user_id\n12,alice,extra\n", "CSV line 2: 3 fields, where the header names 2"),
            ("original_transaction_id,original_transaction_id\n12,13\n", "the CSV's header names original_transaction_id twice"),
            ("original_transaction_id\n012\n", "CSV line 2: 012 is no transaction id Apple gives"),
            ("original_transaction_id\n123456789012345678901\n", "is no transaction id Apple gives"),
            // Blank lines skipped still count: the line named is the file's.
            (
                "original_transaction_id,app_user_id\n\n12,bob\n\n12,eve\n",
                "CSV line 5: original_transaction_id 12 is on line 3 already, for another app_user_id"
            ),
            ("original_transaction_id\n12\n\n\nxyz\n", "CSV line 5: no decimal original_transaction_id"),
        ])
    func whatNoCarefulExportHoldsIsRefused(file: String, line: String) {
        do {
            let rows = try Import.rows(csv: file)
            Issue.record("read \(rows)")
        } catch {
            #expect(error.description.contains(line), "\(error)")
        }
    }

    /// What the file holds, or a file that cannot be read, is what the command found wrong:
    /// one line, exit 1, no pointer to its usage.
    @Test func theCommandSaysWhatTheFileHoldsWrongInOneLine() throws {
        let world = try AppleAPIWorld()
        let bad = try world.directory.write("bad.csv", "original_transaction_id\nxyz\n")
        let refused = try runCLI(["import", "--config", world.configPath, "--app", "demo", bad])
        #expect(refused.status == 1)
        #expect(refused.output == "revenuedot import: CSV line 2: no decimal original_transaction_id\n", "\(refused.output)")
        let none = world.directory.path("none.csv")
        let missing = try runCLI(["import", "--config", world.configPath, "--app", "demo", none])
        #expect(missing.status == 1)
        #expect(missing.output == "revenuedot import: cannot read \(none)\n", "\(missing.output)")
        let verify = try runCLI(["verify", none])
        #expect(verify.status == 1)
        #expect(verify.output == "revenuedot verify: cannot read \(none)\n", "\(verify.output)")
    }
}
