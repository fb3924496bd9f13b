import Foundation
import StepCompassContract
import Testing

@Suite("Correlation ids")
struct CorrelationIDTests {
    private func written(_ id: CorrelationID) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(id), as: UTF8.self)
    }

    @Test(
        "a correlation id reads back as what it is written as (FuzzCommands: a huge fractional number)",
        arguments: ["7777777777777777777.777777777", "7.777777777777778e+18", "42", "-3", "0.5", "1e300", "\"abc\"", "true"])
    func readsBackAsWritten(_ json: String) throws {
        let first = try JSONDecoder().decode(CorrelationID.self, from: Data(json.utf8))
        let text = try written(first)
        let again = try JSONDecoder().decode(CorrelationID.self, from: Data(text.utf8))
        #expect(again == first, "\(json) -> \(text) -> \(again)")
        #expect(try written(again) == text)
    }
}
