import Bus
public import Foundation
import Logging
public import ServiceRuntime
public import ServiceLifecycle

/// Publishes a recording (see ``SensorRecorder``) again on a device's topics, at the recorded pace divided by
/// `speed`, then returns.
///
/// Each message goes to `stepcompass/{device}/{suffix}` with the contract's QoS and retain flag for that topic
/// (QoS 0 for an unknown suffix). Payloads are published as recorded, timestamps included.
public struct SensorReplayer<C: Clock>: Service where C.Duration == Duration {
    private let device: String
    private let file: URL
    private let speed: Double
    private let context: BusServiceContext
    private let clock: C

    /// Creates a replayer.
    /// - Parameters:
    ///   - device: The device to publish as.
    ///   - file: The recording.
    ///   - speed: How many times faster than recorded; finite and positive.
    ///   - context: The bus, topics and logger.
    ///   - clock: Paces the replay.
    public init(device: String, file: URL, speed: Double, context: BusServiceContext, clock: C) {
        self.device = device
        self.file = file
        self.speed = speed
        self.context = context
        self.clock = clock
    }

    /// Reads the whole recording, then publishes it; stops early when the task is cancelled.
    /// - Returns: The number of messages published.
    /// - Throws: ``SensorsError`` for an unreadable file, a malformed line or a bad speed.
    /// Runs as a lifecycle service: waits for the bus, then replays (see ``replay()``); the group then stops.
    public func run() async throws {
        try await context.serve { _ = try await self.replay() }
    }

    @discardableResult
    public func replay() async throws -> Int {
        guard speed.isFinite, speed > 0 else {
            throw SensorsError(.invalidConfiguration, "the speed must be a finite positive factor, not \(speed)")
        }
        let records = try Self.read(file)
        try await context.ready()
        context.logger.info("replaying", metadata: [
            "device": "\(device)", "file": "\(file.path)", "sensors.messages": "\(records.count)", "sensors.speed": "\(speed)",
        ])
        let start = clock.now
        var published = 0
        for record in records {
            do {
                try await clock.sleep(until: start.advanced(by: .seconds(record.t / speed)), tolerance: nil)
            } catch {
                break
            }
            let topic = "\(context.topics.prefix)/\(device)/\(record.topic)"
            var delivery: (qos: QoS, retain: Bool) = (.atMostOnce, false)
            if let known = Topics.DeviceTopic(rawValue: record.topic) { delivery = SensorPayloads.delivery(of: known) }
            try await context.bus.publish(BusMessage(topic: topic, payload: record.payload, qos: delivery.qos, retain: delivery.retain))
            published += 1
        }
        try await context.bus.flush()
        context.logger.info("replay finished", metadata: ["sensors.messages": "\(published)"])
        return published
    }

    /// The records of a file, sorted by time (stable).
    static func read(_ file: URL) throws -> [RecordedMessage] {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw SensorsError(.unreadableRecording, "cannot read the recording '\(file.path)'")
        }
        var records: [RecordedMessage] = []
        for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
            records.append(try RecordedMessage(line: Data(line), number: index + 1))
        }
        return records.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }
}
