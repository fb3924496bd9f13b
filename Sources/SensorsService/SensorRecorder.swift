import Bus
public import Foundation
import Logging
public import ServiceLifecycle
public import ServiceRuntime

/// Records a device's topics to a file of JSON lines (see ``RecordedMessage``), for ``SensorReplayer``.
///
/// It subscribes to `stepcompass/{device}/#` and writes every message whose payload is a JSON object, with the
/// clock's time since the subscription, until `duration` seconds have passed or the task is cancelled. A
/// non-JSON payload is reported on the error topic and skipped.
public struct SensorRecorder<C: Clock>: Service where C.Duration == Duration {
    private let device: String
    private let file: URL
    private let duration: Duration?
    private let context: BusServiceContext
    private let clock: C

    /// Creates a recorder.
    /// - Parameters:
    ///   - device: The device whose topics to record.
    ///   - file: Where to write (created or truncated).
    ///   - duration: How long to record; `nil` until shutdown.
    ///   - context: The bus, topics and logger.
    ///   - clock: Measures `t`.
    public init(device: String, file: URL, duration: Duration?, context: BusServiceContext, clock: C) {
        self.device = device
        self.file = file
        self.duration = duration
        self.context = context
        self.clock = clock
    }

    /// Runs as a lifecycle service: waits for the bus, then records (see ``record()``); the group then stops.
    public func run() async throws {
        try await context.serve { _ = try await self.record() }
    }

    /// Records until the duration ends or the task is cancelled.
    /// - Returns: The number of messages written.
    /// - Throws: ``SensorsError/Code/unwritableRecording`` when the file cannot be created.
    @discardableResult
    public func record() async throws -> Int {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw SensorsError(.unwritableRecording, "cannot create the recording '\(file.path)'")
        }
        let prefix = String(context.topics.device(device, .steps).dropLast("steps".count))
        let subscription = try await context.bus.subscribe(to: try TopicFilter(prefix + "#"))
        try await context.ready()
        context.logger.info("recording", metadata: ["device": "\(device)", "file": "\(file.path)"])
        let start = clock.now
        let written = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                let handle = try FileHandle(forWritingTo: file)
                defer { try? handle.close() }
                var written = 0
                for await message in subscription {
                    let started = ContinuousClock.now
                    defer { context.metrics.handled(message, since: started) }
                    let suffix = String(message.topic.dropFirst(prefix.count))
                    let t = start.duration(to: clock.now).inSeconds
                    guard var line = RecordedMessage(t: t, topic: suffix, payload: message.payload).line() else {
                        await context.errors.reject(message, reason: "the payload is not a JSON object; not recorded")
                        continue
                    }
                    line.append(0x0A)
                    try handle.write(contentsOf: line)
                    written += 1
                }
                return written
            }
            group.addTask {
                if let duration {
                    try? await clock.sleep(until: start.advanced(by: duration), tolerance: nil)
                } else {
                    while !Task.isCancelled { try? await clock.sleep(for: .seconds(3600), tolerance: nil) }
                }
                return nil
            }
            var result = try await group.next() ?? nil
            group.cancelAll()
            while let other = try await group.next() {
                if let other { result = other }
            }
            return result ?? 0
        }
        try? await context.bus.unsubscribe(subscription)
        context.logger.info("recording finished", metadata: ["file": "\(file.path)", "sensors.messages": "\(written)"])
        return written
    }
}
