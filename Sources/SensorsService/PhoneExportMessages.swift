import Bus
import Foundation
import PhoneFormats
import ServiceRuntime

/// The contract's device messages for what a phone export holds: `imu` (QoS 0), `location` and `steps` (QoS 1,
/// `"source": "pedometer"`), `permissions` (QoS 1, retained), as the bridge publishes them for a live phone.
/// Numbers are written unrounded (Swift's shortest exact representation); `offset` seconds are added to every
/// time (to anchor an export whose times are relative).
struct PhoneExportMessages: Sendable {
    let device: String
    let topics: Topics
    let offset: Double

    /// The message of one output; `nil` when a number in it is not finite (JSON has no such number).
    func message(for output: PhoneOutput) -> BusMessage? {
        switch output {
        case .imu(let sample):
            guard sample.accel.isFinite, sample.mag.isFinite, sample.gyro?.isFinite != false else { return nil }
            var text = #"{"timestamp":""# + timestamp(sample.timestamp) + #"","accel":"# + Self.vector(sample.accel)
            text += #","mag":"# + Self.vector(sample.mag)
            if let gyro = sample.gyro { text += #","gyro":"# + Self.vector(gyro) }
            text += "}"
            return BusMessage(topic: topics.device(device, .imu), text: text, qos: .atMostOnce)
        case .location(let fix):
            guard fix.latitude.isFinite, fix.longitude.isFinite else { return nil }
            var text = #"{"timestamp":""# + timestamp(fix.timestamp) + #"","latitude":\#(fix.latitude),"longitude":\#(fix.longitude)"#
            for (name, value) in [
                ("altitude", fix.altitude), ("horizontalAccuracy", fix.horizontalAccuracy),
                ("verticalAccuracy", fix.verticalAccuracy), ("speed", fix.speed), ("course", fix.course),
            ] {
                if let value, value.isFinite { text += #","\#(name)":\#(value)"# }
            }
            text += "}"
            return BusMessage(topic: topics.device(device, .location), text: text, qos: .atLeastOnce)
        case .steps(let count):
            let text = #"{"timestamp":""# + timestamp(count.timestamp) + #"","steps":\#(count.steps),"source":"pedometer"}"#
            return BusMessage(topic: topics.device(device, .steps), text: text, qos: .atLeastOnce)
        }
    }

    /// The retained permissions: motion authorized; location authorized when the export has fixes.
    func permissions(location: Bool) -> BusMessage {
        let text = #"{"motion":"authorized","location":"\#(location ? "authorized" : "notDetermined")"}"#
        return BusMessage(topic: topics.device(device, .permissions), text: text, qos: .atLeastOnce, retain: true)
    }

    static func vector(_ value: PhoneFormats.Vector3) -> String {
        "[\(value.x),\(value.y),\(value.z)]"
    }

    /// The contract's timestamp of an export time in seconds. Exports count in nanoseconds, and a Double of
    /// seconds holds `…00.010` as `…00.0099999`: half a microsecond keeps the millisecond the phone meant.
    func timestamp(_ seconds: Double) -> String {
        Timestamp.format(Date(timeIntervalSince1970: seconds + offset + 0.000_000_5))
    }
}
