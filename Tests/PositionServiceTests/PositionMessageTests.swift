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

    /// A small seeded generator, so that every run writes the same messages.
    struct Xorshift: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    @Test("The hand-written payload is byte for byte JSONEncoder's with sorted keys")
    func handWrittenMatchesEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var random = Xorshift(state: 0x9E37_79B9_7F4A_7C15)
        func number() -> Double {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: Double(Int.random(in: -1_000...1_000, using: &random))  // whole: "3", not "3.0"
            case 1: Double.random(in: -1e-6...1e-6, using: &random)  // exponent form
            case 2: Double.random(in: -1e17...1e17, using: &random)
            case 3: -0.0
            default: Double.random(in: -5_000...5_000, using: &random)
            }
        }
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &random) ? value : nil }
        for _ in 0..<2_000 {
            let message = PositionMessage(
                x: number(), y: number(), steps: maybe(Int.random(in: 0...Int.max, using: &random)),
                sessionSteps: maybe(Int.random(in: 0...100_000, using: &random)), distance: maybe(number()),
                heading: maybe(Double.random(in: 0..<360, using: &random)), updates: maybe(Int.random(in: 0...9_999, using: &random)),
                timestamp: maybe("2026-11-24T10:15:30.\(Int.random(in: 100...999, using: &random))Z"),
                pendingDistance: maybe(number()), sessionDistance: maybe(number()))
            let handWritten = try #require(message.jsonPayload())
            let expected = try encoder.encode(message)
            #expect(
                handWritten == expected,
                "\(String(decoding: handWritten, as: UTF8.self)) != \(String(decoding: expected, as: UTF8.self))")
            #expect(try message.encoded() == expected)
        }
    }

    @Test("What JSON cannot carry as it is goes to JSONEncoder, which refuses a non-finite number and escapes text")
    func fallsBackToEncoder() throws {
        var infinite = PositionMessage(x: .infinity, y: 0, timestamp: "t")
        #expect(infinite.jsonPayload() == nil)
        #expect(throws: (any Error).self) { try infinite.encoded() }
        infinite.x = 0
        infinite.heading = .nan
        #expect(infinite.jsonPayload() == nil)
        let quoted = PositionMessage(x: 1, y: 2, timestamp: "a\"b/c")
        #expect(quoted.jsonPayload() == nil)
        let decoded = try PayloadDecoder().decode(PositionMessage.self, from: quoted.encoded())
        #expect(decoded.timestamp == "a\"b/c")
    }
}
