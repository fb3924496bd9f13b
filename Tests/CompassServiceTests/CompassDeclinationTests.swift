import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import Logging
import ServiceRuntime
import Testing

/// The "done when" of the compass issue: a device lying flat with its top towards true north, at each official
/// WMM2025 test point, reports NOAA's declination within 0.01° and a true heading of about 0.
@Suite("Compass declination at the WMM2025 test points")
struct CompassDeclinationTests {
    /// One row of NOAA's `WMM2025_TEST_VALUES.txt` (the CIRES-Geomagnetism/wmm repository's `tests` folder, the same
    /// file as `Tests/GeoMagnetismTests/Resources/WMM2025_TEST_VALUES.txt`, which this target cannot read): the
    /// date, height, position, the field's X (north), Y (east) and Z (down) in nT, and the declination D in degrees.
    struct Point: Sendable, CustomTestStringConvertible {
        var row: Int
        var year: Double
        var altitudeKm: Double
        var latitude: Double
        var longitude: Double
        var x: Double
        var y: Double
        var z: Double
        var d: Double

        var testDescription: String { "row \(row): \(year), \(altitudeKm) km, \(latitude)°, \(longitude)°" }

        /// The contract's longitude (-180...180): NOAA's 240° is 120° W.
        var contractLongitude: Double { longitude > 180 ? longitude - 360 : longitude }

        /// The instant of the decimal year: 2025.0 is 2025-01-01T00:00Z, 2027.5 is 2027-07-02T12:00Z (half of 365
        /// days).
        var date: Date {
            switch year {
            case 2025.0: Date(timeIntervalSince1970: 1_735_689_600)
            case 2027.5: Date(timeIntervalSince1970: 1_814_529_600)
            default: .distantPast
            }
        }

        /// A flat device (face up) whose top points at true north: x east, y north, z up, so the field
        /// (north, east, down) reads `[east, north, −down]` in µT. X and Y are the horizontal field already turned
        /// by the declination from magnetic north.
        var flatNorthReading: (accel: Vector3, mag: Vector3) {
            (Vector3(0, 0, 9.80665), Vector3(y / 1_000, x / 1_000, -z / 1_000))
        }
    }

    /// Every row of WMM2025_TEST_VALUES.txt (fields 1–7 and 11), in the file's order.
    static let points: [Point] = [
        Point(row: 1, year: 2025.0, altitudeKm: 0.0, latitude: 80.0, longitude: 0.0, x: 6521.6, y: 145.9, z: 54791.5, d: 1.28),
        Point(row: 2, year: 2025.0, altitudeKm: 0.0, latitude: 0.0, longitude: 120.0, x: 39677.8, y: -109.6, z: -10580.2, d: -0.16),
        Point(row: 3, year: 2025.0, altitudeKm: 0.0, latitude: -80.0, longitude: 240.0, x: 6117.5, y: 15751.9, z: -52022.5, d: 68.78),
        Point(row: 4, year: 2025.0, altitudeKm: 100.0, latitude: 80.0, longitude: 0.0, x: 6216.0, y: 92.4, z: 52598.8, d: 0.85),
        Point(row: 5, year: 2025.0, altitudeKm: 100.0, latitude: 0.0, longitude: 120.0, x: 37688.6, y: -96.2, z: -10152.1, d: -0.15),
        Point(row: 6, year: 2025.0, altitudeKm: 100.0, latitude: -80.0, longitude: 240.0, x: 5907.6, y: 14780.3, z: -49540.7, d: 68.21),
        Point(row: 7, year: 2027.5, altitudeKm: 0.0, latitude: 80.0, longitude: 0.0, x: 6500.8, y: 294.5, z: 54869.4, d: 2.59),
        Point(row: 8, year: 2027.5, altitudeKm: 0.0, latitude: 0.0, longitude: 120.0, x: 39701.6, y: -167.4, z: -10381.8, d: -0.24),
        Point(row: 9, year: 2027.5, altitudeKm: 0.0, latitude: -80.0, longitude: 240.0, x: 6200.7, y: 15730.3, z: -51783.7, d: 68.49),
        Point(row: 10, year: 2027.5, altitudeKm: 100.0, latitude: 80.0, longitude: 0.0, x: 6196.7, y: 233.8, z: 52670.5, d: 2.16),
        Point(row: 11, year: 2027.5, altitudeKm: 100.0, latitude: 0.0, longitude: 120.0, x: 37711.5, y: -148.7, z: -9969.8, d: -0.23),
        Point(row: 12, year: 2027.5, altitudeKm: 100.0, latitude: -80.0, longitude: 240.0, x: 5984.0, y: 14760.1, z: -49317.7, d: 67.93),
    ]

    static let configuration = CompassConfiguration(smoothing: 0.25, maxRate: 1_000, deadBand: 0, staleAfter: 30)

    /// Sends the point's location and flat, north-pointing samples at its date, from a device client.
    static func send(_ point: Point, as id: String, on bus: some MessageBus, topics: Topics) async throws {
        let location =
            "{\"latitude\":\(point.latitude),\"longitude\":\(point.contractLongitude),"
            + "\"altitude\":\(point.altitudeKm * 1_000)}"
        try await bus.publish(BusMessage(topic: topics.device(id, .location), text: location, qos: .atLeastOnce))
        let reading = point.flatNorthReading
        for index in 0..<10 {
            try await bus.publish(
                BusMessage(
                    topic: topics.device(id, .imu),
                    text: DeviceMotion.payload(
                        timestamp: point.date.addingTimeInterval(Double(index) * 0.02), accel: reading.accel,
                        mag: reading.mag)))
        }
    }

    /// Checks a heading message against the point.
    static func check(_ heading: HeadingMessage?, _ point: Point, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let heading else {
            Issue.record("no heading for \(point.testDescription)", sourceLocation: sourceLocation)
            return
        }
        #expect(heading.headingStatus == .ok, sourceLocation: sourceLocation)
        #expect(heading.northReference == .true, sourceLocation: sourceLocation)
        let declination = heading.declination ?? .nan
        #expect(
            abs(declination - point.d) <= 0.01, "declination \(declination)° vs NOAA \(point.d)°",
            sourceLocation: sourceLocation)
        let trueHeading = heading.trueHeading ?? .nan
        #expect(
            abs(Angle.difference(from: 0, to: trueHeading)) < 0.5, "true heading \(trueHeading)°",
            sourceLocation: sourceLocation)
        #expect(abs(Angle.difference(from: 0, to: heading.heading ?? .nan)) < 0.5, sourceLocation: sourceLocation)
        let magnetic = heading.magneticHeading ?? .nan
        #expect(
            abs(Angle.difference(from: Angle.normalized(-point.d), to: magnetic)) < 0.5,
            "magnetic heading \(magnetic)° for D = \(point.d)°", sourceLocation: sourceLocation)
    }

    @Test("the test dates are NOAA's decimal years")
    func datesMatchTheDecimalYears() {
        for point in Self.points {
            #expect(abs(WorldMagneticModel.decimalYear(of: point.date) - point.year) < 1e-9)
        }
    }

    @Test("through the service on the in-memory bus", arguments: points)
    func inMemory(_ point: Point) async throws {
        let harness = CompassTestHarness()
        try await harness.withService(Self.configuration) { harness in
            let id = "wmm-\(point.row)"
            try await Self.send(point, as: id, on: harness.device, topics: harness.topics)
            try await harness.drain()
            Self.check(harness.heading(id), point)
        }
    }
}

@Suite("Compass declination through a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct CompassDeclinationBrokerTests {
    @Test("the first and last WMM2025 test points through mosquitto")
    func throughMosquitto() async throws {
        let points = [CompassDeclinationTests.points[0], CompassDeclinationTests.points[11]]
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let serviceBus = try await harness.makeClient(id: "compass-wmm-test", cleanStart: true, will: nil)
            let device = try await harness.makeClient(id: "device-wmm-test", cleanStart: true, will: nil)
            let ready = AsyncStream<Void>.makeStream()
            let context = BusServiceContext(
                service: "compass", bus: serviceBus,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            ) { ready.continuation.yield() }
            let service = try CompassService(
                configuration: CompassDeclinationTests.configuration, context: context, model: CompassTestHarness.model)
            let task = Task { try await service.run() }
            defer { task.cancel() }
            var iterator = ready.stream.makeAsyncIterator()
            await iterator.next()
            let topics = Topics()
            for point in points {
                let id = "wmm-\(point.row)"
                let headings = try await device.subscribe(
                    to: try TopicFilter(topics.device(id, .heading)), qos: .atMostOnce)
                try await CompassDeclinationTests.send(point, as: id, on: device, topics: topics)
                // The first heading with the location applied (a still device publishes once: nothing changes).
                var located: HeadingMessage?
                while located == nil, let message = await headings.next(timeout: .seconds(5)) {
                    let heading = try JSONDecoder().decode(HeadingMessage.self, from: message.payload)
                    if heading.declination != nil { located = heading }
                }
                CompassDeclinationTests.check(located, point)
                try await device.unsubscribe(headings)
            }
            task.cancel()
            _ = try? await task.value
            await device.close()
            await serviceBus.close()
        }
    }
}
