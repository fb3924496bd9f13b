import Bus
import PhoneFormats
import ServiceRuntime

/// The contract's device messages the bridge publishes: the payloads of ``PhoneFormats/ContractPayloads`` on the
/// device's topic with the contract's QoS: `imu` 0, `location` and `steps` 1, `permissions` 1 and retained.
struct ContractMessages: Sendable {
    let topics: Topics

    /// Where a step count came from.
    enum StepSource: String, Sendable {
        /// The phone's own pedometer.
        case pedometer
        /// The bridge's detector, from the raw accelerometer.
        case detector
    }

    func imu(device: String, _ sample: IMUSample) -> BusMessage? {
        ContractPayloads.imu(sample).map { BusMessage(topic: topics.device(device, .imu), text: $0, qos: .atMostOnce) }
    }

    func location(device: String, _ fix: LocationSample) -> BusMessage? {
        ContractPayloads.location(fix).map { BusMessage(topic: topics.device(device, .location), text: $0, qos: .atLeastOnce) }
    }

    func steps(device: String, steps: Int, distance: Double?, source: StepSource, time: Double) -> BusMessage {
        BusMessage(
            topic: topics.device(device, .steps),
            text: ContractPayloads.steps(steps, distance: distance, source: source.rawValue, time: time), qos: .atLeastOnce)
    }

    func permissions(device: String, location: Bool) -> BusMessage {
        BusMessage(
            topic: topics.device(device, .permissions), text: ContractPayloads.permissions(location: location),
            qos: .atLeastOnce, retain: true)
    }
}
