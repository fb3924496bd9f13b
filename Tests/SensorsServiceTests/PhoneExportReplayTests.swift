import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import SensorsService
import ServiceRuntime
import StepDetection
import Testing
import ZIPFoundation

/// A clock whose sleeps return at once, moving its time to the deadline: the replay's pacing, without waiting.
final class FastClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        lock.withLock { current = max(current, deadline) }
        await Task.yield()
    }
}

/// A folder of files written for a test, removed by ``remove()``.
struct ExportFolder {
    let url: URL

    init(_ files: [String: String]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        for (name, contents) in files {
            let file = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: file)
        }
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The folder zipped (with the folder itself as the zip's one top folder, as phones' exports often are).
    func zipped() throws -> URL {
        let zip = url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).zip")
        try FileManager.default.zipItem(at: url, to: zip, shouldKeepParent: true, compressionMethod: .deflate)
        return zip
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).zip"))
    }
}

/// A decoded message: the topic's suffix, the payload as JSON, and how it was delivered.
struct Published {
    let suffix: String
    let body: [String: Any]
    let qos: QoS
    let retain: Bool

    var timestamp: Date? { (body["timestamp"] as? String).flatMap(Timestamp.parse) }
    func vector(_ key: String) -> [Double]? { body[key] as? [Double] }
}

/// Replays `file` as walker-1 over the in-memory bus; returns the count the replayer gave and what the probe saw.
func replayExport(_ file: URL, speed: Double = 1, clock: some Clock<Duration> = FastClock()) async throws
    -> (published: Int, messages: [BusMessage], fixture: SensorsFixture)
{
    let fixture = try await SensorsFixture()
    let (context, _) = makeContext(fixture.service)
    let published = try await SensorReplayer(device: "walker-1", file: file, speed: speed, context: context, clock: clock).replay()
    // The in-memory broker delivers as it publishes: everything is in the subscription already.
    let messages = await fixture.messages.collect(published, timeout: .seconds(10))
    return (published, messages, fixture)
}

func decoded(_ messages: [BusMessage]) throws -> [Published] {
    try messages.map { message in
        #expect(message.topic.hasPrefix("stepcompass/walker-1/"))
        return Published(
            suffix: String(message.topic.dropFirst("stepcompass/walker-1/".count)), body: try json(message),
            qos: message.qos, retain: message.retain)
    }
}

/// The error a replay of `file` throws.
func replayError(_ file: URL) async throws -> SensorsError {
    let fixture = try await SensorsFixture()
    let (context, _) = makeContext(fixture.service)
    do {
        try await SensorReplayer(device: "walker-1", file: file, speed: 1000, context: context, clock: FastClock()).replay()
    } catch let error as SensorsError {
        #expect(fixture.broker.publishedCount == 0)
        return error
    }
    Issue.record("expected an error")
    return SensorsError(.invalidConfiguration, "none")
}

enum Exports {
    /// phyphox "CSV (Comma, decimal point)": experiment started at 1,700,000,000 s (2023-11-14T22:13:20Z).
    static func phyphox(withTime: Bool = true) -> [String: String] {
        var files = [
            "Accelerometer.csv": """
            "Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)"
            1.000000000E-1,1.000000000E-1,2.000000000E-1,9.800000000E0
            2.000000000E-1,1.100000000E-1,2.100000000E-1,9.810000000E0
            2.500000000E-1,NaN,NaN,NaN
            3.000000000E-1,1.200000000E-1,2.200000000E-1,9.820000000E0
            1.100000000E0,1.300000000E-1,2.300000000E-1,9.830000000E0

            """,
            "Magnetometer.csv": """
            "Time (s)","Magnetic field x (µT)","Magnetic field y (µT)","Magnetic field z (µT)"
            0.000000000E0,2.000000000E1,0.000000000E0,-4.000000000E1
            1.000000000E0,2.100000000E1,1.000000000E0,-4.100000000E1

            """,
            "Gyroscope.csv": """
            "Time (s)","Gyroscope x (rad/s)","Gyroscope y (rad/s)","Gyroscope z (rad/s)"
            5.000000000E-2,1.000000000E-2,2.000000000E-2,3.000000000E-2

            """,
            "Location.csv": """
            "Time (s)","Latitude (°)","Longitude (°)","Height (m)","Velocity (m/s)","Direction (°)","Horizontal Accuracy (m)","Vertical Accuracy (m)"
            2.500000000E-1,4.815270000E1,1.159180000E1,5.200000000E2,1.200000000E0,9.000000000E1,5.000000000E0,3.000000000E0

            """,
            "meta/device.csv": """
            "property","value"
            "deviceBrand","google"
            "deviceModel","Pixel 7"

            """,
        ]
        if withTime {
            files["meta/time.csv"] = """
                "event","experiment time","system time","system time text"
                "START",0.000000000E0,1.700000000000E9,"2023-11-14 22:13:20.000 UTC+00:00"
                "PAUSE",1.200000000E0,1.700000001200E9,"2023-11-14 22:13:21.200 UTC+00:00"

                """
        }
        return files
    }

    static let t0: Int64 = 1_700_000_000_000_000_000

    /// Sensor Logger's CSV export; iOS (default frame) writes acceleration and gravity negated, without
    /// `TotalAcceleration.csv`; Android writes all three acceleration files.
    static func sensorLogger(platform: String) -> [String: String] {
        let flip = platform == "ios" ? -1.0 : 1.0
        func t(_ milliseconds: Int64) -> Int64 { t0 + milliseconds * 1_000_000 }
        var files = [
            "Metadata.csv": "version,device name,recording time,platform,appVersion\n3,Test Phone,2023-11-14_22-13-20,\(platform),1.40.0\n",
            "Accelerometer.csv":
                "time,seconds_elapsed,z,y,x\n\(t(10)),0.01,\(0.1 * flip),\(0.2 * flip),\(0.3 * flip)\n\(t(20)),0.02,\(0.4 * flip),0,0\n",
            "Gravity.csv": "time,seconds_elapsed,z,y,x\n\(t(10)),0.01,\(9.8 * flip),0,0\n\(t(20)),0.02,\(9.8 * flip),0,0\n",
            "Magnetometer.csv": "time,seconds_elapsed,z,y,x\n\(t(0)),0,-40,0,20\n",
            "Gyroscope.csv": "time,seconds_elapsed,z,y,x\n\(t(5)),0.005,0.03,0.02,0.01\n",
            "Pedometer.csv": "time,seconds_elapsed,steps\n\(t(15)),0.015,1\n\(t(500)),0.5,2\n",
            "Annotation.csv": "time,seconds_elapsed,text\n\(t(0)),0,hello\n",
        ]
        if platform == "android" {
            files["TotalAcceleration.csv"] = "time,seconds_elapsed,z,y,x\n\(t(10)),0.01,9.9,0.2,0.3\n\(t(20)),0.02,10.2,0,0\n"
            files["Location.csv"] =
                "time,seconds_elapsed,bearingAccuracy,speedAccuracy,verticalAccuracy,horizontalAccuracy,speed,bearing,altitude,longitude,latitude\n\(t(15)),0.015,0,0,1.77,15.1,0.8,-1,214.2,-0.1246,51.5007\n"
        }
        return files
    }
}

@Suite("Replaying phone exports (phyphox, Sensor Logger) on the in-memory bus")
struct PhoneExportReplayTests {
    @Test("a phyphox folder with meta/time.csv replays as permissions, imu and location at the export's times")
    func phyphoxFolder() async throws {
        let folder = try ExportFolder(Exports.phyphox())
        defer { folder.remove() }
        let (published, messages, fixture) = try await replayExport(folder.url, speed: 1000)
        let replayed = try decoded(messages)
        #expect(published == messages.count)
        #expect(replayed.map(\.suffix) == ["permissions", "imu", "imu", "location", "imu", "imu"])

        let permissions = replayed[0]
        #expect(permissions.body["motion"] as? String == "authorized")
        #expect(permissions.body["location"] as? String == "authorized")
        #expect(permissions.qos == .atLeastOnce)  // a live subscriber gets it without the retain flag, so ask the broker:
        let retained = try #require(fixture.broker.retainedMessage(on: "stepcompass/walker-1/permissions"))
        #expect(try json(retained)["location"] as? String == "authorized")

        let imu = replayed.filter { $0.suffix == "imu" }
        #expect(imu.allSatisfy { $0.qos == .atMostOnce && !$0.retain })
        #expect(
            imu.map { $0.body["timestamp"] as? String } == [
                "2023-11-14T22:13:20.100Z", "2023-11-14T22:13:20.200Z", "2023-11-14T22:13:20.300Z", "2023-11-14T22:13:21.100Z",
            ])
        #expect(imu.map { $0.vector("accel") } == [[0.1, 0.2, 9.8], [0.11, 0.21, 9.81], [0.12, 0.22, 9.82], [0.13, 0.23, 9.83]])
        #expect(imu.map { $0.vector("mag") } == [[20, 0, -40], [20, 0, -40], [20, 0, -40], [21, 1, -41]])
        #expect(imu.allSatisfy { $0.vector("gyro") == [0.01, 0.02, 0.03] })

        let fix = try #require(replayed.first { $0.suffix == "location" })
        #expect(fix.qos == .atLeastOnce && !fix.retain)
        #expect(fix.body["timestamp"] as? String == "2023-11-14T22:13:20.250Z")
        #expect(fix.body["latitude"] as? Double == 48.1527)
        #expect(fix.body["longitude"] as? Double == 11.5918)
        #expect(fix.body["altitude"] as? Double == 520)
        #expect(fix.body["horizontalAccuracy"] as? Double == 5)
        #expect(fix.body["verticalAccuracy"] as? Double == 3)
        #expect(fix.body["speed"] as? Double == 1.2)
        #expect(fix.body["course"] as? Double == 90)
    }

    /// phyphox's "Acceleration with g" exports only `Accelerometer.csv`: no `imu` can be published without a
    /// magnetometer, so the replay counts the steps itself (before, it published nothing but the permissions).
    @Test("an export with only the accelerometer publishes detector steps and a distance, and no imu")
    func accelerometerOnly() async throws {
        var rows = [#""Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)""#]
        var reference = StepDetector()
        var referenceSteps: [DetectedStep] = []
        for index in 0..<600 {  // 12 s at 50 Hz; walking at 1.8 steps/s from 2 s to 10 s
            let t = Double(index) / 50
            let bounce = t >= 2 && t < 10 ? 2.5 * sin(2 * Double.pi * 1.8 * (t - 2)) + 0.6 * sin(4 * Double.pi * 1.8 * (t - 2)) : 0
            let fields = [String(format: "%.6f", t), "0.120000", String(format: "%.6f", 0.4 * bounce), String(format: "%.6f", 9.81 + bounce)]
            rows.append(fields.joined(separator: ","))
            let values = fields.map { Double($0)! }
            referenceSteps += reference.add(time: values[0], acceleration: SIMD3(values[1], values[2], values[3]))
        }
        // The export ends 2 s after the last step, before the walk would end by itself: the replay judges the step
        // held for confirmation at the end, as this does.
        #expect(reference.isHoldingStep)
        referenceSteps += reference.finish()
        #expect(reference.steps >= 13 && reference.steps <= 15)
        let folder = try ExportFolder(["Accelerometer.csv": rows.joined(separator: "\n") + "\n"])
        defer { folder.remove() }
        let replayed = try decoded(try await replayExport(folder.url, speed: 1000).messages)
        #expect(!replayed.contains { $0.suffix == "imu" })
        #expect(replayed.first?.suffix == "permissions")
        let steps = replayed.filter { $0.suffix == "steps" }
        let last = try #require(steps.last)
        #expect(steps.allSatisfy { $0.body["source"] as? String == "detector" && $0.qos == .atLeastOnce && !$0.retain })
        #expect(last.body["steps"] as? Int == reference.steps)
        #expect(abs((last.body["distance"] as? Double ?? 0) - reference.distance) < 1e-6)
        let counts = steps.compactMap { $0.body["steps"] as? Int }
        #expect(counts == counts.sorted() && Set(counts).count == counts.count)
        let lastStep = try #require(referenceSteps.last)
        let first = try #require(steps.first?.timestamp)
        let final = try #require(last.timestamp)
        // The first message comes when the walk is confirmed: it counts the steps before the last one that confirmed it.
        let confirmed = referenceSteps[StepDetectorConfiguration.defaults.confirmationSteps - 2]
        #expect(abs(final.timeIntervalSince(first) - (lastStep.time - confirmed.time)) < 0.002)
    }

    @Test("an export with linear acceleration but no gravity publishes no imu and no steps, and says why")
    func linearAccelerationOnly() async throws {
        let folder = try ExportFolder([
            "Linear Acceleration.csv": """
            "Time (s)","Linear Acceleration x (m/s^2)","Linear Acceleration y (m/s^2)","Linear Acceleration z (m/s^2)"
            0.0,0.1,0.2,0.3
            0.02,0.1,0.2,1.3
            0.04,0.1,0.2,-0.7

            """
        ])
        defer { folder.remove() }
        let fixture = try await SensorsFixture()
        let log = CapturedLog()
        let context = BusServiceContext(service: "sensors", bus: fixture.service, logger: log.logger) {}
        let published = try await SensorReplayer(device: "walker-1", file: folder.url, speed: 1000, context: context, clock: FastClock()).replay()
        let replayed = try decoded(await fixture.messages.collect(published, timeout: .seconds(10)))
        #expect(replayed.map(\.suffix) == ["permissions"])
        let warnings = log.messages(atLeast: .warning)
        #expect(warnings.contains { $0.hasPrefix("the export has acceleration without gravity") }, "\(warnings)")
    }

    @Test("a phyphox export without meta/time.csv is stamped from the moment the replay starts")
    func phyphoxRelative() async throws {
        let folder = try ExportFolder(Exports.phyphox(withTime: false))
        defer { folder.remove() }
        let before = Date()
        let replayed = try decoded(try await replayExport(folder.url, speed: 1000).messages)
        let after = Date()
        let imu = replayed.filter { $0.suffix == "imu" }
        #expect(imu.count == 4)
        let first = try #require(imu.first?.timestamp)
        let last = try #require(imu.last?.timestamp)
        #expect(first >= before.addingTimeInterval(0.099) && first <= after.addingTimeInterval(0.101))
        #expect(abs(last.timeIntervalSince(first) - 1.0) < 0.0015)
    }

    @Test("an Android Sensor Logger export uses TotalAcceleration, keeps the pedometer's steps, in time order")
    func sensorLoggerAndroid() async throws {
        let folder = try ExportFolder(Exports.sensorLogger(platform: "android"))
        defer { folder.remove() }
        let replayed = try decoded(try await replayExport(folder.url, speed: 1000).messages)
        #expect(replayed.map(\.suffix) == ["permissions", "imu", "location", "steps", "imu", "steps"])
        #expect(replayed[0].body["location"] as? String == "authorized")

        let imu = replayed.filter { $0.suffix == "imu" }
        #expect(imu.map { $0.body["timestamp"] as? String } == ["2023-11-14T22:13:20.010Z", "2023-11-14T22:13:20.020Z"])
        #expect(imu.map { $0.vector("accel") } == [[0.3, 0.2, 9.9], [0, 0, 10.2]])
        #expect(imu.allSatisfy { $0.vector("mag") == [20, 0, -40] && $0.vector("gyro") == [0.01, 0.02, 0.03] })

        let steps = replayed.filter { $0.suffix == "steps" }
        #expect(steps.map { $0.body["steps"] as? Int } == [1, 2])
        #expect(steps.allSatisfy { $0.body["source"] as? String == "pedometer" && $0.qos == .atLeastOnce && !$0.retain })
        #expect(steps.map { $0.body["timestamp"] as? String } == ["2023-11-14T22:13:20.015Z", "2023-11-14T22:13:20.500Z"])

        let fix = try #require(replayed.first { $0.suffix == "location" })
        #expect(fix.body["timestamp"] as? String == "2023-11-14T22:13:20.015Z")
        #expect(fix.body["latitude"] as? Double == 51.5007 && fix.body["longitude"] as? Double == -0.1246)
        #expect(fix.body["course"] == nil)  // bearing -1: not known
    }

    @Test("an iOS Sensor Logger export is turned into Android's frame: user acceleration plus gravity, not negated")
    func sensorLoggerIOS() async throws {
        let folder = try ExportFolder(Exports.sensorLogger(platform: "ios"))
        defer { folder.remove() }
        let replayed = try decoded(try await replayExport(folder.url, speed: 1000).messages)
        #expect(replayed.map(\.suffix) == ["permissions", "imu", "steps", "imu", "steps"])
        #expect(replayed[0].body["motion"] as? String == "authorized")
        #expect(replayed[0].body["location"] as? String == "notDetermined")  // no Location.csv
        let imu = replayed.filter { $0.suffix == "imu" }
        let accel = try imu.map { try #require($0.vector("accel")) }
        #expect(accel.count == 2)
        for (value, expected) in zip(accel, [[0.3, 0.2, 9.9], [0, 0, 10.2]]) {
            #expect(zip(value, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(value)")
        }
        #expect(imu.map { $0.body["timestamp"] as? String } == ["2023-11-14T22:13:20.010Z", "2023-11-14T22:13:20.020Z"])
    }

    @Test("the same export zipped (one top folder, deflated) replays the same messages", arguments: ["phyphox", "android", "ios"])
    func zipped(_ kind: String) async throws {
        let folder = try ExportFolder(kind == "phyphox" ? Exports.phyphox() : Exports.sensorLogger(platform: kind))
        defer { folder.remove() }
        let fromFolder = try await replayExport(folder.url, speed: 1000)
        let fromZip = try await replayExport(try folder.zipped(), speed: 1000)
        #expect(fromZip.messages.count > 3)
        #expect(fromZip.published == fromFolder.published)
        #expect(fromZip.messages.map(\.topic) == fromFolder.messages.map(\.topic))
        #expect(fromZip.messages.map(\.payload) == fromFolder.messages.map(\.payload))
        #expect(fromZip.messages.map(\.qos) == fromFolder.messages.map(\.qos))
    }

    @Test("--speed paces the replay by sample time divided by the speed")
    func speed() async throws {
        let folder = try ExportFolder(Exports.phyphox())
        defer { folder.remove() }
        // The fast clock: the replay ends when the last sample's time (1.1 s after the first, 0 s) ÷ 2 has passed.
        let clock = FastClock()
        let start = clock.now
        let replay = try await replayExport(folder.url, speed: 2, clock: clock)
        #expect(replay.messages.count == 6)
        let paced = start.duration(to: clock.now)
        #expect(paced > .microseconds(549_999) && paced < .microseconds(550_001), "\(paced)")

        // The real clock at 10×: the replay itself takes at least 110 ms.
        let wall = ContinuousClock()
        let fixture = try await SensorsFixture()
        let (context, _) = makeContext(fixture.service)
        let began = wall.now
        _ = try await SensorReplayer(device: "walker-1", file: folder.url, speed: 10, context: context, clock: wall).replay()
        let elapsed = began.duration(to: wall.now)
        #expect(elapsed >= .milliseconds(105))
        #expect(elapsed < .seconds(60))  // only "it ends": see SensorsServiceTests.pacing
    }

    @Test("a folder without a known export, an empty folder and a stray file are refused, naming what is expected")
    func unknownInputs() async throws {
        let unknown = try ExportFolder(["notes.csv": "a,b\n1,2\n", "readme.txt": "hello\n"])
        defer { unknown.remove() }
        let error = try await replayError(unknown.url)
        #expect(error.code == .unreadableRecording)
        #expect(error.message.contains("notes.csv"))
        #expect(error.message.contains("phyphox") && error.message.contains("Sensor Logger"))

        let empty = try ExportFolder([:])
        defer { empty.remove() }
        let none = try await replayError(empty.url)
        #expect(none.message.contains("no CSV files") && none.message.contains("Sensor Logger"))

        let stray = unknown.url.appendingPathComponent("notes.csv")
        let notRecording = try await replayError(stray)
        #expect(notRecording.message.contains("is not a recording") && notRecording.message.contains("phyphox"))

        let missing = try await replayError(unknown.url.appendingPathComponent("nothing-here"))
        #expect(missing.message.contains("does not exist"))

        let fake = unknown.url.appendingPathComponent("fake.zip")
        try Data("hello".utf8).write(to: fake)
        let notZip = try await replayError(fake)
        #expect(notZip.message.contains("not a zip archive"))
    }

    @Test("a truncated zip is refused as a damaged zip archive")
    func truncatedZip() async throws {
        let folder = try ExportFolder(Exports.sensorLogger(platform: "android"))
        defer { folder.remove() }
        let zip = try folder.zipped()
        let data = try Data(contentsOf: zip)
        try data.prefix(data.count / 2).write(to: zip)
        let error = try await replayError(zip)
        #expect(error.code == .unreadableRecording)
        #expect(error.message.contains("zip archive") && error.message.contains("truncated or damaged"))
    }
}
