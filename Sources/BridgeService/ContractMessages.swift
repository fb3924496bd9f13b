import Bus
import Foundation
import PhoneFormats
import ServiceRuntime

/// The contract's device messages, made from what phones send: `imu` (QoS 0), `location` and `steps` (QoS 1),
/// `permissions` (QoS 1, retained). Numbers are written unrounded (Swift's shortest exact representation).
struct ContractMessages: Sendable {
    let topics: Topics

    /// Where a step count came from.
    enum StepSource: String, Sendable {
        /// The phone's own pedometer.
        case pedometer
        /// The bridge's detector, from the raw accelerometer.
        case detector
    }

    func imu(device: String, _ sample: IMUSample) -> BusMessage {
        var text = #"{"timestamp":""# + Self.timestamp(sample.timestamp) + #"","accel":"# + Self.vector(sample.accel)
        text += #","mag":"# + Self.vector(sample.mag)
        if let gyro = sample.gyro { text += #","gyro":"# + Self.vector(gyro) }
        text += "}"
        return BusMessage(topic: topics.device(device, .imu), text: text, qos: .atMostOnce)
    }

    func location(device: String, _ fix: LocationSample) -> BusMessage {
        var text = #"{"timestamp":""# + Self.timestamp(fix.timestamp) + #"","latitude":\#(fix.latitude),"longitude":\#(fix.longitude)"#
        for (name, value) in [
            ("altitude", fix.altitude), ("horizontalAccuracy", fix.horizontalAccuracy),
            ("verticalAccuracy", fix.verticalAccuracy), ("speed", fix.speed), ("course", fix.course),
        ] {
            if let value, value.isFinite { text += #","\#(name)":\#(value)"# }
        }
        text += "}"
        return BusMessage(topic: topics.device(device, .location), text: text, qos: .atLeastOnce)
    }

    func steps(device: String, steps: Int, distance: Double?, source: StepSource, time: Double) -> BusMessage {
        var text = #"{"timestamp":""# + Self.timestamp(time) + #"","steps":\#(steps),"source":"\#(source.rawValue)""#
        if let distance, distance.isFinite { text += #","distance":\#(distance)"# }
        text += "}"
        return BusMessage(topic: topics.device(device, .steps), text: text, qos: .atLeastOnce)
    }

    func permissions(device: String, location: Bool) -> BusMessage {
        let text = #"{"motion":"authorized","location":"\#(location ? "authorized" : "notDetermined")"}"#
        return BusMessage(topic: topics.device(device, .permissions), text: text, qos: .atLeastOnce, retain: true)
    }

    static func vector(_ value: PhoneFormats.Vector3) -> String {
        "[\(value.x),\(value.y),\(value.z)]"
    }

    static func timestamp(_ seconds: Double) -> String {
        Timestamp.format(secondsSince1970: seconds)
    }
}
