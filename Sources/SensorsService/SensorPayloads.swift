import Bus
import Foundation
import ServiceRuntime
import WalkerSimulation

/// Turns simulation events into the contract's messages: topic, payload, QoS and retain.
enum SensorPayloads {
    /// The contract's QoS and retain flag of a device topic a sensor publisher (or a replay) writes.
    static func delivery(of topic: Topics.DeviceTopic) -> (qos: QoS, retain: Bool) {
        switch topic {
        case .steps, .location: (.atLeastOnce, false)
        case .permissions, .calibration, .position, .bearingLock, .activity, .journal: (.atLeastOnce, true)
        case .heading: (.atMostOnce, true)
        case .imu, .simulationTruth, .nearby: (.atMostOnce, false)
        case .commandBearingLock, .commandCalibrate, .commandSettings, .commandResetPosition, .commandWalk, .commandForget, .journalPhoto:
            (.atLeastOnce, false)
        }
    }

    /// The message for one event of `device`, stamped with the simulated moment `date`.
    ///
    /// Steps, IMU samples and fixes are written by the contract's hand-written writers (an IMU sample is 50 a second
    /// per walker, and `JSONEncoder` costs several microseconds a message); the truth, once a second, and anything a
    /// hand writer refuses (a number that is not finite) go through `JSONEncoder`, which reports what is wrong.
    static func message(for event: SimulationEvent, device: String, date: Date, topics: Topics) throws -> BusMessage {
        let timestamp = Timestamp.format(date)
        switch event {
        case .steps(let count, _):
            let body = StepsMessage(steps: count, timestamp: timestamp)
            return message(text: body.json, on: .steps, device: device, topics: topics)
        case .imu(_, let accel, let mag, let gyro):
            let body = IMUPayload(timestamp: timestamp, accel: vector(accel), mag: vector(mag), gyro: vector(gyro))
            guard let text = body.json else { return try message(body, on: .imu, device: device, topics: topics) }
            return message(text: text, on: .imu, device: device, topics: topics)
        case .location(_, let latitude, let longitude, let altitude, let horizontal, let vertical, let speed, let course):
            let body = LocationMessage(
                latitude: latitude, longitude: longitude, altitude: altitude, horizontalAccuracy: horizontal,
                verticalAccuracy: vertical, speed: speed, course: course, timestamp: timestamp)
            guard let text = body.json, [altitude, horizontal, vertical, speed, course].allSatisfy(\.isFinite) else {
                return try message(body, on: .location, device: device, topics: topics)
            }
            return message(text: text, on: .location, device: device, topics: topics)
        case .truth(_, let latitude, let longitude, let heading, let x, let y, let steps):
            let body = SimulationTruthMessage(
                timestamp: timestamp, latitude: latitude, longitude: longitude, heading: heading, x: x, y: y,
                steps: steps)
            return try message(body, on: .simulationTruth, device: device, topics: topics)
        }
    }

    /// The retained `permissions` message of a simulated phone: both sensors authorized.
    static func permissions(device: String, topics: Topics) throws -> BusMessage {
        try message(PermissionsMessage(motion: "authorized", location: "authorized"), on: .permissions, device: device, topics: topics)
    }

    /// A simulated three-axis reading as the contract's vector.
    private static func vector(_ components: [Double]) -> SIMD3<Double> {
        SIMD3(components[0], components[1], components[2])
    }

    /// One encoder for the messages without a hand writer: keys sorted.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static func message(text: String, on suffix: Topics.DeviceTopic, device: String, topics: Topics) -> BusMessage {
        let delivery = delivery(of: suffix)
        return BusMessage(topic: topics.device(device, suffix), payload: Data(text.utf8), qos: delivery.qos, retain: delivery.retain)
    }

    private static func message(_ body: some Encodable, on suffix: Topics.DeviceTopic, device: String, topics: Topics) throws -> BusMessage {
        let delivery = delivery(of: suffix)
        return BusMessage(
            topic: topics.device(device, suffix), payload: try encoder.encode(body),
            qos: delivery.qos, retain: delivery.retain)
    }
}
