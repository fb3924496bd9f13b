import CompassKit
import Foundation
import ServiceRuntime
import Testing

@testable import CompassService

/// The hand-written IMU reader and heading writer agree with Foundation's JSON coders, and leave every payload
/// they do not fully understand to them.
@Suite("Fast payload coding")
struct FastPayloadTests {
    static let accepted = [
        #"{"timestamp":"2026-11-22T10:15:30.250Z","accel":[0.1,-0.2,9.81],"mag":[21.5,-3,-44.25],"gyro":[0,0,0.01]}"#,
        #" { "accel" : [ 1e-3 , -2.5E+2 , 0 ] , "mag":[-0.0,123456789.123456789,1e2], "timestamp":"x" } "#,
        #"{"mag":[1,2,3],"accel":[4,5,6]}"#,
        "{\n\t\"accel\":[0.30000000000000004,1.7976931348623157e308,5e-324],\r\n\"mag\":[1,2,3]}",
    ]

    /// Valid JSON the fast reader leaves to JSONDecoder, and invalid JSON it must not accept.
    static let declined = [
        #"{"timestamp":"a\"b","accel":[1,2,3],"mag":[1,2,3]}"#,  // escape
        #"{"accel":[1,2,3],"mag":[1,2,3],"extra":true}"#,  // unknown key
        #"{"accel":[1,2,3],"mag":[1,2,3],"gyro":null}"#,  // null
        #"{"accel":[1,2,3],"accel":[1,2,3],"mag":[1,2,3]}"#,  // duplicate
        #"{"accel":[1,2,3],"mag":[1,2,3,4]}"#,  // four components
        #"{"accel":[1,2],"mag":[1,2,3]}"#,  // two
        #"{"accel":[1,2,3]}"#,  // no mag
        #"{"accel":[01,2,3],"mag":[1,2,3]}"#,  // leading zero
        #"{"accel":[+1,2,3],"mag":[1,2,3]}"#,  // plus sign
        #"{"accel":[1.,2,3],"mag":[1,2,3]}"#,  // bare point
        #"{"accel":[.5,2,3],"mag":[1,2,3]}"#,  // no integer part
        #"{"accel":[1e999,2,3],"mag":[1,2,3]}"#,  // overflows
        // Found by FuzzFastReaders (the fast path read them as 0, JSONDecoder refuses them): too small for a Double,
        // and a zero with a one-digit exponent (swift-foundation's check for a true zero).
        #"{"accel":[1e-400,0,9.8],"mag":[20,0,-40]}"#,
        #"{"accel":[0,0,9.8],"mag":[0e2,0,-40]}"#,
        #"{"accel":[1,2,3],"mag":[1,2,3]} x"#,  // trailing text
        #"{"accel":[1,2,3],"mag":[1,2,3],}"#,  // trailing comma
        #"{"accel":[1,2,3] "mag":[1,2,3]}"#,  // missing comma
        #"{"timestamp":"ü","accel":[1,2,3],"mag":[1,2,3]}"#,  // non-ASCII
        #"["accel"]"#, "", "{",
    ]

    @Test("accepted payloads decode to JSONDecoder's values", arguments: accepted)
    func agreesWithJSONDecoder(_ text: String) throws {
        let payload = Data(text.utf8)
        let fast = try #require(IMUPayload.parseFast(payload, maximumSize: 64 * 1024))
        let slow = try JSONDecoder().decode(IMUPayload.self, from: payload)
        #expect(fast.timestamp == slow.timestamp)
        #expect(fast.accel == slow.accel)
        #expect(fast.mag == slow.mag)
        #expect(fast.gyro == slow.gyro)
    }

    @Test("anything else is left to the decoder", arguments: declined)
    func declines(_ text: String) {
        #expect(IMUPayload.parseFast(Data(text.utf8), maximumSize: 64 * 1024) == nil)
    }

    @Test("an oversized payload is left to the decoder, which refuses it")
    func oversized() {
        let text = #"{"accel":[1,2,3],"mag":[1,2,3]}"#
        #expect(IMUPayload.parseFast(Data(text.utf8), maximumSize: 10) == nil)
    }

    @Test("the hand-written heading reads back as the encoder's does")
    func headingPayload() throws {
        let full = HeadingMessage(
            timestamp: "2026-11-22T10:15:30.250Z", status: .ok, heading: 359.99999999999994, north: .true,
            magneticHeading: 1e-7, trueHeading: 0, declination: -12.345678901234567, cardinal: .n, accuracy: 3.5,
            pitch: -89.9, roll: 180, calibration: .calibrated, interference: true, fieldStrength: 48.123,
            walkingDirection: 123.456)
        let empty = HeadingMessage(
            timestamp: "2026-11-22T10:15:30.250Z", status: .stale, heading: nil, north: .magnetic, magneticHeading: nil,
            trueHeading: nil, declination: nil, cardinal: nil, accuracy: nil, pitch: nil, roll: nil,
            calibration: .uncalibrated, interference: false, fieldStrength: nil)
        for message in [full, empty] {
            let payload = try #require(message.jsonPayload())
            #expect(try JSONDecoder().decode(HeadingMessage.self, from: payload) == message)
            let object = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(object.count == 15, "every field present (the contract's 14 and walkingDirection), unknown ones null")
        }
        var broken = full
        broken.accuracy = .infinity
        #expect(broken.jsonPayload() == nil)
    }
}

@Suite("Fast timestamps")
struct FastTimestampTests {
    @Test("the hand-written format agrees with Foundation's, and parses back")
    func agreesWithFoundation() {
        var dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_341_600.25),
            Date(timeIntervalSince1970: 1_709_208_000.999),  // 2024-02-29T12:00:00.999Z
            Date(timeIntervalSince1970: 1_735_689_599.9996),  // the last millisecond of 2024, just
            Date(timeIntervalSince1970: -1.5),
        ]
        var state: UInt64 = 7
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            dates.append(Date(timeIntervalSince1970: Double(state >> 11) / Double(1 << 53) * 4_000_000_000))
        }
        for date in dates {
            let fast = Timestamp.format(date)
            #expect(fast == Timestamp.formatWithFoundation(date), "\(date.timeIntervalSince1970)")
            #expect(abs((Timestamp.parse(fast)?.timeIntervalSince1970 ?? .nan) - date.timeIntervalSince1970) < 0.001)
        }
    }

    /// Found by FuzzTimestamp: the hand-written codec counted days in the proleptic Gregorian calendar, Foundation in
    /// the Julian one before October 1582, so `0001-01-01T00:00:00Z` and `0001-01-01T00:00:00+00:00` were two days
    /// apart and the year 1 was written as Foundation does not write it.
    @Test("dates before the Gregorian reform are Foundation's, read and written")
    func beforeTheGregorianReform() throws {
        let style = Date.ISO8601FormatStyle(timeZone: .gmt)
        for text in ["0001-01-01T00:00:00Z", "1000-03-01T00:00:00.000Z", "1582-10-14T00:00:00Z", "1582-10-15T00:00:00Z"] {
            let date = try #require(Timestamp.parse(text))
            #expect(date == (try style.parse(text.replacingOccurrences(of: ".000", with: ""))), "\(text)")
            #expect(Timestamp.parse(text.replacingOccurrences(of: "Z", with: "+00:00")) == date, "\(text)")
        }
        let yearOne = Date(timeIntervalSince1970: -62_135_596_800)
        #expect(Timestamp.format(yearOne) == Timestamp.formatWithFoundation(yearOne))
    }
}
