import Foundation
import ServiceRuntime
import Testing

/// The hand-written steps reader agrees with `JSONDecoder` and leaves every payload it does not fully understand to
/// the decoder; the message is written as the simulator and the bridge always wrote it.
@Suite("The steps message")
struct StepsMessageTests {
    static let accepted = [
        #"{"steps":123,"timestamp":"2026-11-22T10:15:30.250Z"}"#,
        #"{"timestamp":"2026-11-22T10:15:30.250Z","steps":42,"source":"detector","distance":29.8}"#,
        #" { "steps" : 2.5 } "#,
        #"{"steps":-4,"source":"pedometer"}"#,
        #"{"steps":1e3,"distance":0}"#,
    ]

    static let declined = [
        #"{"steps":"12"}"#, #"{"count":3}"#, #"{"steps":1,"steps":2}"#, #"{"steps":1,"extra":true}"#,
        #"{"steps":1,"distance":null}"#, #"{"steps":1,"distance":"far"}"#, #"{"steps":1,"timestamp":"a\"b"}"#,
        #"{"steps":01}"#, #"{"steps":1}x"#, "", "[1]",
        // Found by FuzzFastReaders: the fast path read them as 0, JSONDecoder refuses them.
        #"{"steps":0e2 }"#, #"{"steps":1e-400}"#,
    ]

    @Test("accepted payloads decode to JSONDecoder's values", arguments: accepted)
    func readsAccepted(text: String) throws {
        let payload = Data(text.utf8)
        let fast = try #require(StepsMessage.parseFast(payload, maximumSize: 64 * 1024))
        #expect(fast == (try JSONDecoder().decode(StepsMessage.self, from: payload)))
    }

    @Test("anything else is left to the decoder", arguments: declined)
    func leavesDeclined(text: String) {
        #expect(StepsMessage.parseFast(Data(text.utf8), maximumSize: 64 * 1024) == nil)
    }

    @Test("a negative count below Int64's range is refused with its value (found by FuzzFastReaders: it trapped)")
    func hugeNegativeCount() throws {
        let message = try StepsMessage.decode(Data(#"{"steps":-1E20}"#.utf8), using: PayloadDecoder())
        #expect(throws: InputError("'steps' is -1e+20; a count cannot be negative")) { try message.count() }
    }

    @Test("the decoder reads a distance of the wrong type as absent and reports a count of the wrong type")
    func lenientDistance() throws {
        let decoder = PayloadDecoder()
        let message = try StepsMessage.decode(Data(#"{"steps":3,"distance":"far","source":7}"#.utf8), using: decoder)
        #expect(message.steps == 3 && message.distance == nil && message.source == nil)
        #expect(throws: InputError("'steps' has the wrong type: expected an integer")) {
            try StepsMessage.decode(Data(#"{"steps":"3"}"#.utf8), using: decoder)
        }
    }

    @Test("the simulator's encoding and the bridge's hand-written text are as they always were")
    func writers() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let simulated = StepsMessage(steps: 123, timestamp: "2026-11-22T10:15:30.250Z")
        #expect(String(decoding: try encoder.encode(simulated), as: UTF8.self) == #"{"steps":123,"timestamp":"2026-11-22T10:15:30.250Z"}"#)
        let detected = StepsMessage(steps: 42, timestamp: "2026-11-22T10:15:30.250Z", source: "detector", distance: 29.8)
        #expect(detected.json == #"{"timestamp":"2026-11-22T10:15:30.250Z","steps":42,"source":"detector","distance":29.8}"#)
    }
}
