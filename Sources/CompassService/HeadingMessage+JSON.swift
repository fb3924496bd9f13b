import CompassKit
import Foundation
import ServiceRuntime

extension HeadingMessage {
    /// The message as JSON, written by hand in the contract's field order.
    ///
    /// Headings go out at up to `--max-rate` per device (10,000 a second for 1,000 devices), and `JSONEncoder`
    /// costs about 10 µs a message. Every string here is ASCII without characters to escape (an ISO timestamp and
    /// enumeration raw values), and numbers use Swift's shortest round-trip form, so the payload reads back to the
    /// same values as the encoder's. Returns nil when a number is not finite, which JSON cannot carry; the caller
    /// then falls back to `JSONEncoder`, which reports it.
    func jsonPayload() -> Data? {
        let numbers = [
            heading, magneticHeading, trueHeading, declination, accuracy, pitch, roll, fieldStrength, walkingDirection,
        ]
        guard numbers.allSatisfy({ $0?.isFinite ?? true }),
            timestamp.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        func number(_ value: Double?) -> String { value.map { "\($0)" } ?? "null" }
        func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "null" }
        var json = "{\"timestamp\":\"\(timestamp)\",\"status\":\"\(status.rawValue)\",\"heading\":\(number(heading))"
        json += ",\"north\":\"\(north.rawValue)\",\"magneticHeading\":\(number(magneticHeading))"
        json += ",\"trueHeading\":\(number(trueHeading)),\"declination\":\(number(declination))"
        json += ",\"cardinal\":\(text(cardinal?.rawValue)),\"accuracy\":\(number(accuracy))"
        json += ",\"pitch\":\(number(pitch)),\"roll\":\(number(roll)),\"calibration\":\"\(calibration.rawValue)\""
        json += ",\"interference\":\(interference),\"fieldStrength\":\(number(fieldStrength))"
        json += ",\"walkingDirection\":\(number(walkingDirection))}"
        return Data(json.utf8)
    }
}
