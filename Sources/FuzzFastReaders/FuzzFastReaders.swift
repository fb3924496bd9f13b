import Foundation
import FuzzSupport
import StepCompassContract

/// libFuzzer target: the hand-written fast readers of the hot payloads (`imu`, `steps`) against `PayloadDecoder`
/// (`JSONDecoder`), which reads everything else.
///
/// Properties: whatever a fast reader accepts, the decoder accepts with the same values (the fast path is only a
/// shortcut); the public entry points never trap, nor do the checks the services run on what they read (the step
/// count, the timestamp); and the bridge's own writers (`IMUPayload.json`, `StepsMessage.json`) give text that the
/// fast reader takes back unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count) { bytes in
        let payload = Data(bytes)
        FastReaderProperties.imu(payload)
        FastReaderProperties.steps(payload)
    }
}

enum FastReaderProperties {
    static let decoder = PayloadDecoder()

    static func imu(_ payload: Data) {
        let fast = IMUPayload.parseFast(payload, maximumSize: decoder.maximumSize)
        let slow = try? decoder.decode(IMUPayload.self, from: payload)
        if let fast {
            Fuzz.require(slow == fast, "IMU: the fast path read \(Fuzz.show(payload)) as \(fast), JSONDecoder as \(String(describing: slow))")
        }
        guard let decoded = try? IMUPayload.decode(payload, using: decoder) else { return }
        Fuzz.require(fast == nil || decoded == fast, "IMU: decode(_:using:) did not return the fast path's \(String(describing: fast))")
        _ = try? decoded.validate()
        _ = try? Timestamp.date(decoded.timestamp)
        // The writer's output reads back exactly, through the fast path (a timestamp the writer cannot write as it
        // is, with quotes, escapes or non-ASCII, never comes from the bridge and is left out).
        guard decoded.timestamp.map(Fuzz.isPlain) != false, let json = decoded.json else { return }
        let again = IMUPayload.parseFast(Data(json.utf8), maximumSize: .max)
        Fuzz.require(again == decoded, "IMU: \(decoded) was written as \(json), read back as \(String(describing: again))")
    }

    static func steps(_ payload: Data) {
        let fast = StepsMessage.parseFast(payload, maximumSize: decoder.maximumSize)
        let slow = try? decoder.decode(StepsMessage.self, from: payload)
        if let fast {
            Fuzz.require(slow == fast, "steps: the fast path read \(Fuzz.show(payload)) as \(fast), JSONDecoder as \(String(describing: slow))")
        }
        guard let decoded = try? StepsMessage.decode(payload, using: decoder) else { return }
        Fuzz.require(fast == nil || decoded == fast, "steps: decode(_:using:) did not return the fast path's \(String(describing: fast))")
        // What the position, activity, journal and bridge services do with a count.
        if let count = try? decoded.count() {
            Fuzz.require(count >= 0 && Double(count) == decoded.steps, "steps: count() gave \(count) for \(decoded.steps)")
        }
        _ = decoded.wholeSteps
        _ = decoded.reportedDistance
        _ = try? Timestamp.date(decoded.timestamp)
        guard decoded.timestamp.map(Fuzz.isPlain) != false, decoded.source.map(Fuzz.isPlain) != false else { return }
        let json = decoded.json
        let again = StepsMessage.parseFast(Data(json.utf8), maximumSize: .max)
        Fuzz.require(again == decoded, "steps: \(decoded) was written as \(json), read back as \(String(describing: again))")
    }
}
