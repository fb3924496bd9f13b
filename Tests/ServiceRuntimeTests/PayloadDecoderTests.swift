import Foundation
import ServiceRuntime
import Testing

@Suite("Payload decoding and validation")
struct PayloadDecoderTests {
    struct Steps: Decodable {
        let steps: Int
        let timestamp: String?
    }

    struct Location: Decodable {
        let latitude: Double
        let longitude: Double
    }

    let decoder = PayloadDecoder(maximumSize: 1024)

    @Test("a valid payload decodes and unknown fields are ignored")
    func valid() throws {
        let steps = try decoder.decode(Steps.self, from: Data(#"{"steps": 12, "extra": [1, 2]}"#.utf8))
        #expect(steps.steps == 12)
    }

    @Test("each kind of bad input gets a message that says what is wrong", arguments: [
        ("", "empty"),
        ("[1, 2]", "not a JSON object"),
        (#"{"steps": 1"#, "not valid JSON"),
        (#"{"timestamp": "x"}"#, "'steps' is missing"),
        (#"{"steps": "12"}"#, "'steps' has the wrong type: expected an integer"),
        (#"{"steps": null}"#, "'steps' is null"),
        (#"{"steps": NaN}"#, "not valid JSON"),
    ])
    func badInput(payload: String, expected: String) {
        #expect {
            _ = try decoder.decode(Steps.self, from: Data(payload.utf8))
        } throws: { error in
            (error as? InputError)?.message.contains(expected) == true
        }
    }

    @Test("oversized and non-UTF-8 payloads are rejected before parsing")
    func sizeAndEncoding() {
        let big = Data(("{\"steps\": 1, \"pad\": \"" + String(repeating: "x", count: 2_000) + "\"}").utf8)
        #expect(throws: InputError.self) { try decoder.decode(Steps.self, from: big) }
        #expect(throws: InputError("the payload is not valid UTF-8")) { try decoder.decode(Steps.self, from: Data([0x7B, 0xFF, 0x7D])) }
    }

    @Test("non-finite and out-of-range numbers are caught with the field's name")
    func finite() throws {
        #expect(throws: InputError("'latitude' must be a finite number")) { try FieldCheck.finite(.nan, "latitude") }
        #expect(throws: InputError.self) { try FieldCheck.finite(91, "latitude", in: -90...90) }
        #expect(try FieldCheck.finite(45, "latitude", in: -90...90) == 45)
    }
}
