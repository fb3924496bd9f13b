import Bus
import Foundation
import Logging
import PhoneFormats
import ServiceRuntime
import StepDetection

/// Publishes a phyphox or Sensor Logger export (a folder or a zip) as a device: the retained `permissions`
/// first, then `imu`, `location` and `steps` in time order, paced by sample time divided by `speed`.
///
/// The export is read into memory once (its CSV text, then its decoded samples, the text released before
/// publishing); the samples are assembled into contract messages a chunk at a time as they are published.
/// Times are the export's own when it has absolute ones (Sensor Logger's `time`, phyphox's `meta/time.csv`),
/// else the moment the replay starts plus the export's relative time.
///
/// The contract's `imu` needs a magnetometer reading. The export's first reading also serves the acceleration
/// samples recorded up to a second before it (``PhoneFormats/PhoneRecording/initialMagnetometer(within:)``). An export with no magnetometer at all (phyphox's "Acceleration with g",
/// a Sensor Logger export with only the accelerometer on) publishes no `imu`, so no detector on the bus could
/// count its steps: the replay counts them itself with the bridge's detector (``StepDetection/StepDetector``) and
/// publishes `steps` with `"source": "detector"` and a `distance`, unless the export has its own pedometer counts.
struct PhoneExportReplay<C: Clock>: Sendable where C.Duration == Duration {
    let device: String
    let file: URL
    let input: ReplayInput
    let speed: Double
    let context: BusServiceContext
    let clock: C
    let progressInterval: Duration

    /// Samples assembled per step: big enough to be cheap, small enough not to hold a copy of the export.
    private static var chunk: Int { 4096 }

    /// How many decoded samples each stream of the export had.
    struct StreamCounts: Sendable, Hashable, CustomStringConvertible {
        var acceleration = 0, userAcceleration = 0, gravity = 0, magneticField = 0, rotationRate = 0, location = 0, steps = 0

        init(_ samples: [PhoneSample]) {
            for sample in samples {
                switch sample.reading {
                case .acceleration: acceleration += 1
                case .userAcceleration: userAcceleration += 1
                case .gravity: gravity += 1
                case .magneticField: magneticField += 1
                case .rotationRate: rotationRate += 1
                case .location: location += 1
                case .steps: steps += 1
                }
            }
        }

        var description: String {
            [
                ("acceleration", acceleration), ("userAcceleration", userAcceleration), ("gravity", gravity),
                ("magneticField", magneticField), ("rotationRate", rotationRate), ("location", location), ("steps", steps),
            ]
            .filter { $0.1 > 0 }.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        }
    }

    /// Reads and decodes the export.
    /// - Throws: ``SensorsError/Code/unreadableRecording`` naming the file and what was wrong or expected.
    static func decode(_ file: URL, as input: ReplayInput) throws -> PhoneRecording {
        let files = input == .zip ? try PhoneExportFiles.read(zip: file) : try PhoneExportFiles.read(folder: file)
        do {
            return try PhoneRecording.decode(files: files)
        } catch {
            var message = "cannot replay '\(file.path)': \(error.reason)"
            if !PhyphoxExport.recognises(files) && !SensorLoggerExport.recognises(files) {
                let names = files.keys.sorted()
                message +=
                    "; found \(names.prefix(8).joined(separator: ", "))\(names.count > 8 ? ", …" : ""), but a phyphox "
                    + "export has meta/time.csv or \"Time (s)\" columns and a Sensor Logger export has Accelerometer.csv, "
                    + "Gravity.csv, Magnetometer.csv, Gyroscope.csv, Location.csv, Pedometer.csv or Metadata.csv"
            }
            throw SensorsError(.unreadableRecording, message)
        }
    }

    /// Publishes the export; stops early when the task is cancelled.
    /// - Returns: The number of messages published, `permissions` included.
    func replay() async throws -> Int {
        context.logger.info("reading a phone export", metadata: ["file": "\(file.path)", "sensors.source": "\(input == .zip ? "zip" : "folder")"])
        let recording = try Self.decode(file, as: input)
        let samples = recording.samples
        let streams = StreamCounts(samples)
        let first = samples.first?.time ?? 0
        let seconds = (samples.last?.time ?? first) - first
        try await context.ready()
        let messages = PhoneExportMessages(
            device: device, topics: context.topics, offset: recording.timesAreRelative ? Date().timeIntervalSince1970 : 0)
        context.logger.info(
            "replaying a phone export",
            metadata: [
                "device": "\(device)", "file": "\(file.path)", "sensors.format": "\(recording.format.rawValue)",
                "sensors.source": "\(input == .zip ? "zip" : "folder")",
                "sensors.phone": "\(recording.deviceName ?? "unknown")", "sensors.platform": "\(recording.platform ?? "unknown")",
                "sensors.samples": "\(samples.count)", "sensors.seconds": "\(Self.rounded(seconds))", "sensors.speed": "\(speed)",
                "sensors.times": "\(recording.timesAreRelative ? "relative, anchored now" : "absolute")",
            ])

        if streams.userAcceleration > 0 && streams.gravity == 0 && streams.acceleration == 0 {
            context.logger.warning(
                "the export has acceleration without gravity (phyphox's Linear Acceleration, Sensor Logger's Accelerometer without Gravity): the acceleration including gravity cannot be rebuilt from it, so it gives no imu and no steps; export with gravity (phyphox's Acceleration with g, Sensor Logger's Gravity or TotalAcceleration on)",
                metadata: ["device": "\(device)", "sensors.decoded": "\(streams)"])
        }
        var detector: StepDetector?
        let hasAccelerationWithGravity = streams.acceleration > 0 || (streams.userAcceleration > 0 && streams.gravity > 0)
        if streams.magneticField == 0 && streams.steps == 0 && hasAccelerationWithGravity {
            detector = StepDetector()
            context.logger.notice(
                "the export has no magnetometer: no imu can be published (the contract's imu needs mag), so the compass gets nothing; steps are counted here from the accelerometer and published with source detector",
                metadata: ["device": "\(device)"])
        }
        try await context.publishRestated(messages.permissions(location: streams.location > 0))
        var published = (total: 1, imu: 0, location: 0, steps: 0, notFinite: 0)
        var assembler = IMUAssembler(initialMagnetometer: recording.initialMagnetometer())
        let start = clock.now
        let wall = ContinuousClock()
        var nextProgress = wall.now.advanced(by: progressInterval)
        var index = 0
        var flushed = false
        var cancelled = false
        publishing: while !flushed {
            let outputs: [PhoneOutput]
            if index < samples.count {
                let end = min(index + Self.chunk, samples.count)
                outputs = assembler.add(recording.assemblyInput(index..<end, hasTotalAcceleration: streams.acceleration > 0))
                index = end
            } else {
                outputs = assembler.flush()
                flushed = true
            }
            for output in outputs {
                if wall.now >= nextProgress {
                    nextProgress = wall.now.advanced(by: progressInterval)
                    context.logger.info(
                        "replay progress",
                        metadata: [
                            "sensors.messages": "\(published.total)",
                            "sensors.seconds": "\(Self.rounded(output.timestamp - first)) of \(Self.rounded(seconds))",
                        ])
                }
                let message: BusMessage
                if case .acceleration(let sample) = output {
                    // Only a sample that completes a step publishes anything: the others are neither paced nor kept.
                    guard let found = detector?.add(time: sample.timestamp, acceleration: sample.accel.simd),
                        let last = found.last, let counter = detector
                    else { continue }
                    message = messages.detectedSteps(counter.steps, distance: counter.distance, time: last.time)
                } else {
                    guard let built = messages.message(for: output) else {
                        published.notFinite += 1
                        continue
                    }
                    message = built
                }
                let deadline = start.advanced(by: .seconds((output.timestamp - first) / speed))
                if deadline > clock.now {
                    do {
                        try await clock.sleep(until: deadline, tolerance: nil)
                    } catch {
                        cancelled = true
                        break publishing
                    }
                } else if Task.isCancelled {
                    cancelled = true
                    break publishing
                }
                try await context.bus.publish(message)
                published.total += 1
                switch output {
                case .imu: published.imu += 1
                case .location: published.location += 1
                case .steps, .acceleration: published.steps += 1
                }
            }
        }
        // The export ends: the step the detector holds for confirmation is judged, as when a walk ends.
        if !cancelled, let found = detector?.finish(), let last = found.last, let counter = detector {
            try await context.bus.publish(messages.detectedSteps(counter.steps, distance: counter.distance, time: last.time))
            published.total += 1
            published.steps += 1
        }
        try await context.bus.flush()
        let dropped = assembler.statistics
        context.logger.info(
            cancelled ? "replay stopped" : "replay finished",
            metadata: [
                "sensors.messages": "\(published.total)", "sensors.imu": "\(published.imu)",
                "sensors.location": "\(published.location)", "sensors.steps": "\(published.steps)",
                "sensors.decoded": "\(streams)", "sensors.skippedRows": "\(recording.skippedRows)",
                "sensors.withoutMagnetometer": "\(dropped.withoutMagnetometer)",
                "sensors.detectedSteps": "\(detector.map { "\($0.steps)" } ?? "off")",
                "sensors.droppedWithoutGravity": "\(dropped.droppedWithoutGravity)",
                "sensors.ignoredUserAcceleration": "\(streams.acceleration > 0 ? streams.userAcceleration : dropped.ignoredUserAcceleration)",
                "sensors.droppedNotFinite": "\(published.notFinite)",
            ])
        return published.total
    }

    private static func rounded(_ seconds: Double) -> String {
        String(format: "%.1f s", seconds)
    }
}
