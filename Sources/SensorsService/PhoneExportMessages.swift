import Bus
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

    /// The message of one output; `nil` when a number in it is not finite (JSON has no such number), and for
    /// acceleration without a magnetometer, which is not a contract message.
    func message(for output: PhoneOutput) -> BusMessage? {
        switch output {
        case .acceleration:
            nil
        case .imu(let sample):
            ContractPayloads.imu(sample, timeOffset: offset)
                .map { BusMessage(topic: topics.device(device, .imu), text: $0, qos: .atMostOnce) }
        case .location(let fix):
            ContractPayloads.location(fix, timeOffset: offset)
                .map { BusMessage(topic: topics.device(device, .location), text: $0, qos: .atLeastOnce) }
        case .steps(let count):
            BusMessage(
                topic: topics.device(device, .steps),
                text: ContractPayloads.steps(count.steps, source: "pedometer", time: count.timestamp + offset),
                qos: .atLeastOnce)
        }
    }

    /// A count of steps detected from the export's accelerometer (`"source": "detector"`).
    func detectedSteps(_ steps: Int, distance: Double, time: Double) -> BusMessage {
        BusMessage(
            topic: topics.device(device, .steps),
            text: ContractPayloads.steps(steps, distance: distance, source: "detector", time: time + offset),
            qos: .atLeastOnce)
    }

    func permissions(location: Bool) -> BusMessage {
        BusMessage(
            topic: topics.device(device, .permissions), text: ContractPayloads.permissions(location: location),
            qos: .atLeastOnce, retain: true)
    }
}
