import Foundation

/// A parsed CSV file: header names and rows, with the delimiter (comma, tab or semicolon) and the
/// decimal separator detected from the file itself, quotes (`""` escapes) honoured.
struct CSVTable: Sendable {
    /// Column names as written (trimmed, quotes removed).
    var header: [String]
    /// Data rows (blank lines skipped); each row's line number (1-based, header is line 1).
    var rows: [(line: Int, fields: [String])]
    /// The field delimiter.
    var delimiter: Character
    /// Whether numbers use a decimal comma (only possible when the delimiter is not a comma).
    var decimalComma: Bool

    private var columnIndex: [String: Int]

    init(text: String) {
        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        let firstLine = body.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" }
        let delimiter: Character
        if CSVTable.countOutsideQuotes("\t", in: firstLine) > 0 {
            delimiter = "\t"
        } else if CSVTable.countOutsideQuotes(";", in: firstLine) > 0 {
            delimiter = ";"
        } else {
            delimiter = ","
        }
        let records = CSVTable.records(body, delimiter: delimiter)
        header = records.first?.fields.map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        rows = Array(records.dropFirst()).filter { !($0.fields.count == 1 && $0.fields[0].trimmingCharacters(in: .whitespaces).isEmpty) }
        self.delimiter = delimiter
        var decimalComma = false
        if delimiter != "," {
            // Decimal comma when some field of the first rows is a number only with `,` read as `.`.
            outer: for row in rows.prefix(5) {
                for field in row.fields where field.contains(",") {
                    if Double(field.replacingOccurrences(of: ",", with: ".")) != nil {
                        decimalComma = true
                        break outer
                    }
                }
            }
        }
        self.decimalComma = decimalComma
        var index: [String: Int] = [:]
        for (position, name) in header.enumerated() where index[name.lowercased()] == nil {
            index[name.lowercased()] = position
        }
        columnIndex = index
    }

    /// The index of a column by name (case-insensitive), if present.
    func column(_ name: String) -> Int? {
        columnIndex[name.lowercased()]
    }

    /// A numeric field look-up for `row` and `column`.
    func field(_ row: [String], _ column: Int?) -> FieldLookup {
        guard let column, column < row.count else { return .missing }
        return FieldLookup(text: row[column], decimalComma: decimalComma)
    }

    /// The raw text of a field.
    func text(_ row: [String], _ column: Int?) -> String? {
        guard let column, column < row.count else { return nil }
        return row[column]
    }

    private static func countOutsideQuotes(_ character: Character, in line: Substring) -> Int {
        var inQuotes = false
        var count = 0
        for current in line {
            if current == "\"" { inQuotes.toggle() } else if current == character, !inQuotes { count += 1 }
        }
        return count
    }

    private static func records(_ text: Substring, delimiter: Character) -> [(line: Int, fields: [String])] {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var line = 1
        var recordLine = 1
        var characters = text.makeIterator()
        var lookahead: Character?
        func next() -> Character? {
            if let value = lookahead {
                lookahead = nil
                return value
            }
            return characters.next()
        }
        while let character = next() {
            if inQuotes {
                if character == "\"" {
                    let following = next()
                    if following == "\"" {
                        field.append("\"")
                    } else {
                        inQuotes = false
                        lookahead = following
                    }
                } else {
                    if character.isNewline { line += 1 }
                    field.append(character)
                }
            } else if character == "\"" {
                inQuotes = true
            } else if character == delimiter {
                fields.append(field)
                field = ""
            } else if character == "\n" || character == "\r\n" || character == "\r" {
                fields.append(field)
                records.append((recordLine, fields))
                fields = []
                field = ""
                line += 1
                recordLine = line
            } else {
                field.append(character)
            }
        }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            records.append((recordLine, fields))
        }
        return records
    }
}
