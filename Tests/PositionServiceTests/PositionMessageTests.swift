import Foundation
import PositionKit
import PositionService
import ServiceRuntime
import Testing

@Suite("The position message")
struct PositionMessageTests {
    @Test("The position payload round-trips through JSON with an explicit null heading")
    func coding() throws {
        let decoder = PayloadDecoder()
        let initial = PositionState.initial
        let data = try PositionMessage(timestamp: "2026-11-22T10:15:30.250Z", state: initial).encoded()
        let json = try #require(String(data: data, encoding: .utf8))
        #expect(json.contains("\"heading\":null"))
        #expect(try PositionState(decoder.decode(PositionMessage.self, from: data)) == initial)
        let full = PositionState(x: 1.5, y: -2.25, steps: 27, sessionSteps: 27, distance: 20.25, heading: 359.5, updates: 2)
        let encoded = try PositionMessage(timestamp: "2026-11-22T10:15:30.250Z", state: full).encoded()
        #expect(try PositionState(decoder.decode(PositionMessage.self, from: encoded)) == full)
        let missing = Data(#"{"x":0,"y":0,"steps":3,"sessionSteps":3,"distance":2.25,"updates":0,"timestamp":"x"}"#.utf8)
        #expect(try PositionState(decoder.decode(PositionMessage.self, from: missing)).heading == nil)
    }

    @Test("A retained position without a field the calculator needs is refused, naming the field")
    func missingField() {
        let payload = Data(#"{"x":0,"y":0,"steps":3,"distance":2.25,"updates":0}"#.utf8)
        #expect(throws: InputError("the field 'sessionSteps' is missing")) {
            try PositionState(PayloadDecoder().decode(PositionMessage.self, from: payload))
        }
    }
}
