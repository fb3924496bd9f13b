import Bus
public import Foundation
import Logging
public import ServiceLifecycle
public import ServiceRuntime

/// Publishes a recording (see ``SensorRecorder``) or a phone export again on a device's topics, at the recorded
/// pace divided by `speed`, then returns.
///
/// What `file` is comes from its content: a folder or a zip archive (`PK\u{3}\u{4}`) is a phyphox or Sensor Logger
/// CSV export, decoded by `PhoneFormats` and published as the contract's `permissions` (retained, first), `imu`,
/// `location` and `steps` (`"source": "pedometer"`); anything else is read as a recording of JSON lines.
///
/// Each recorded message goes to `stepcompass/{device}/{suffix}` with the contract's QoS and retain flag for that
/// topic (QoS 0 for an unknown suffix). Payloads are published as recorded, timestamps included.
public struct SensorReplayer<C: Clock>: Service where C.Duration == Duration {
    private let device: String
    private let file: URL
    private let speed: Double
    private let context: BusServiceContext
    private let clock: C
    private let progressInterval: Duration

    /// Creates a replayer.
    /// - Parameters:
    ///   - device: The device to publish as.
    ///   - file: The recording: a file of JSON lines, or a phyphox or Sensor Logger export (a zip or a folder).
    ///   - speed: How many times faster than recorded; finite and positive.
    ///   - context: The bus, topics and logger.
    ///   - clock: Paces the replay.
    ///   - progressInterval: How often (wall-clock time) a phone export's replay logs its progress.
    public init(
        device: String, file: URL, speed: Double, context: BusServiceContext, clock: C,
        progressInterval: Duration = .seconds(5)
    ) {
        self.device = device
        self.file = file
        self.speed = speed
        self.context = context
        self.clock = clock
        self.progressInterval = progressInterval
    }

    /// Runs as a lifecycle service: waits for the bus, then replays (see ``replay()``); the group then stops.
    public func run() async throws {
        try await context.serve { _ = try await self.replay() }
    }

    /// Reads the whole recording or export, then publishes it; stops early when the task is cancelled.
    /// - Returns: The number of messages published (for an export, `permissions` included).
    /// - Throws: ``SensorsError`` for a missing or unreadable file, a malformed line, an export that cannot be
    ///   decoded (or holds no known files), a damaged zip, or a bad speed.
    @discardableResult
    public func replay() async throws -> Int {
        guard speed.isFinite, speed > 0 else {
            throw SensorsError(.invalidConfiguration, "the speed must be a finite positive factor, not \(speed)")
        }
        switch try ReplayInput.detect(file) {
        case .recording:
            return try await replayRecording()
        case let input:
            return try await PhoneExportReplay(
                device: device, file: file, input: input, speed: speed, context: context, clock: clock,
                progressInterval: progressInterval
            ).replay()
        }
    }

    private func replayRecording() async throws -> Int {
        let records = try Self.read(file)
        try await context.ready()
        context.logger.info(
            "replaying",
            metadata: [
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
            let message = BusMessage(topic: topic, payload: record.payload, qos: delivery.qos, retain: delivery.retain)
            // What it retains (a device's permissions) is stated again after a reconnect, as the phone would.
            if message.retain {
                try await context.publishRestated(message)
            } else {
                try await context.bus.publish(message)
            }
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
            do {
                records.append(try RecordedMessage(line: Data(line), number: index + 1))
            } catch let error as SensorsError where records.isEmpty {
                // Not even the first line: most likely not a recording at all.
                throw SensorsError(error.code, "'\(file.path)' is not a recording (\(error.message)); --replay takes \(ReplayInput.expected)")
            }
        }
        return records.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }
}
