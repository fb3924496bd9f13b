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

    @Test(
        "each kind of bad input gets a message that says what is wrong",
        arguments: [
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

    @Test("a step count must be a whole number, 0 or more, below 9e15")
    func stepCount() throws {
        #expect(try FieldCheck.stepCount(0) == 0)
        #expect(try FieldCheck.stepCount(12_345) == 12_345)
        #expect(throws: InputError("'steps' is 2.5; a count must be a whole number")) { try FieldCheck.stepCount(2.5) }
        #expect(throws: InputError("'steps' is -4; a count cannot be negative")) { try FieldCheck.stepCount(-4) }
        #expect(throws: InputError("'steps' is nan; a count must be a whole number")) { try FieldCheck.stepCount(.nan) }
        #expect(throws: InputError("'steps' is 1e+16, too large for a step count")) { try FieldCheck.stepCount(1e16) }
    }

    @Test("a location's altitude is checked against the contract's range, -1,000 to 850,000 m")
    func altitude() throws {
        #expect(try FieldCheck.finite(-1_000, "altitude", in: FieldCheck.altitudes) == -1_000)
        #expect(try FieldCheck.finite(850_000, "altitude", in: FieldCheck.altitudes) == 850_000)
        #expect(throws: InputError("'altitude' is 900000.0, outside -1000.0...850000.0")) {
            try FieldCheck.finite(900_000, "altitude", in: FieldCheck.altitudes)
        }
    }

    @Test("a sensor permission is one of the contract's five values")
    func permission() throws {
        #expect(try SensorPermission.parse("authorized", field: "location") == .authorized)
        #expect(try SensorPermission.parse("notDetermined", field: "motion") == .notDetermined)
        #expect(SensorPermission.allCases.count == 5)
        #expect(throws: InputError("'location' is 'sometimes'; expected authorized, denied, notDetermined, restricted or unavailable")) {
            try SensorPermission.parse("sometimes", field: "location")
        }
    }
}
