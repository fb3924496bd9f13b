import Foundation
import Testing

@testable import StepCompassClient

@Suite("The text compass")
struct TextCompassTests {
    /// The label that covers the pointer's column.
    private func labelUnderPointer(_ lines: [String]) -> String {
        let tape = Array(lines[0])
        let centre = Array(lines[1]).firstIndex(of: "▲")!
        var start = centre
        while start > 0, tape[start - 1].isLetter { start -= 1 }
        var end = centre
        while end < tape.count - 1, tape[end + 1].isLetter { end += 1 }
        return tape[centre].isLetter ? String(tape[start...end]) : String(tape[centre])
    }

    @Test(
        "the cardinal of the heading sits under the pointer",
        arguments: [
            (0.0, "N"), (359.6, "N"), (0.4, "N"), (45, "NE"), (90, "E"), (135, "SE"), (180, "S"), (225, "SW"),
            (270, "W"), (315, "NW"), (-90, "W"), (450, "E"),
        ])
    func cardinalUnderPointer(heading: Double, expected: String) {
        let lines = TextCompass.tape(heading: heading)
        #expect(labelUnderPointer(lines) == expected)
    }

    @Test("between cardinals the pointer is on the scale, and the nearer cardinal is on the correct side")
    func betweenCardinals() {
        let lines = TextCompass.tape(heading: 20)
        #expect(labelUnderPointer(lines) == "-")
        let tape = lines[0]
        let north = tape.index(after: tape.range(of: " N ")!.lowerBound)
        let northEast = tape.range(of: "NE")!.lowerBound
        let centre = tape.index(tape.startIndex, offsetBy: lines[1].count / 2)
        #expect(north < centre && centre < northEast)
        // 20° from N is 4 columns at 5° a column.
        #expect(tape.distance(from: north, to: centre) == 4)
    }

    @Test("the tape has the asked width, an odd one so the pointer is centred")
    func width() {
        let lines = TextCompass.tape(heading: 123, width: 31)
        #expect(lines.count == 2)
        #expect(lines[0].count == 31)
        #expect(lines[1].count == 31)
        #expect(Array(lines[1])[15] == "▲")
        #expect(TextCompass.tape(heading: 10, width: 30)[0].count == 31)
    }

    @Test("a locked bearing in view is marked on the pointer line, out of view it is not")
    func lockedBearing() {
        let inView = TextCompass.tape(heading: 0, width: 45, degreesPerColumn: 5, lockedBearing: 45)
        #expect(Array(inView[1]).firstIndex(of: "◆") == 22 + 9)
        let behind = TextCompass.tape(heading: 0, width: 45, degreesPerColumn: 5, lockedBearing: 180)
        #expect(!behind[1].contains("◆"))
    }

    @Test("no heading, no tape")
    func unknownHeading() {
        #expect(TextCompass.tape(heading: nil)[1] == "(no heading)")
        #expect(TextCompass.tape(heading: .nan)[1] == "(no heading)")
    }
}
