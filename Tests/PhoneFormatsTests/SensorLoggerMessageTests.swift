import Foundation
import PhoneFormats
import Testing

@Suite("Sensor Logger push")
struct SensorLoggerMessageTests {
    @Test("Android body: fields, units, unknown sensors ignored")
    func android() throws {
        let message = try SensorLoggerMessage.decode(Fixtures.android)
        #expect(message.messageId == 1)
        #expect(message.sessionId == "a1b2c3")
        #expect(message.deviceId == "3f2a4b1c-9d8e")
        #expect(message.readings.count == 7)
        #expect(message.ignoredCount == 2)
        #expect(SensorLoggerConvention.detect(in: message.readings) == .android)

        let samples = message.samples(convention: .android)
        let gravity = try #require(samples.first { if case .gravity = $0.reading { true } else { false } })
        #expect(gravity.reading == .gravity(Vector3(x: 0, y: 0, z: 9.80665)))
        #expect(abs(gravity.time - 1_698_501_144.005) < 1e-6)
        let location = try #require(samples.compactMap { if case .location(let fix) = $0.reading { fix } else { nil } }.first)
        #expect(location.latitude == 51.5007)
        #expect(location.speed == 1.4)
        #expect(location.course == 92.5)
        #expect(location.horizontalAccuracy == 4.8)
        #expect(samples.contains { $0.reading == .steps(12) })
    }

    @Test("iOS body is recognised and negated to Android's frame")
    func iOS() throws {
        let message = try SensorLoggerMessage.decode(Fixtures.iOS)
        #expect(message.ignoredCount == 1)
        let convention = try #require(SensorLoggerConvention.detect(in: message.readings))
        #expect(convention == .iOSDefault)
        let samples = message.samples(convention: convention)
        let gravity = try #require(samples.compactMap { if case .gravity(let g) = $0.reading { g } else { nil } }.first)
        #expect(gravity.z == 9.80665)
        let location = try #require(samples.compactMap { if case .location(let fix) = $0.reading { fix } else { nil } }.first)
        #expect(location.speed == nil)
        #expect(location.course == nil)
        #expect(location.altitude == 102.4)

        var session = SensorLoggerSession()
        let outputs = session.receive(message) + session.flush()
        let imu = try #require(outputs.compactMap { if case .imu(let sample) = $0 { sample } else { nil } }.first)
        #expect(abs(imu.accel.z - 9.90665) < 1e-9)
        #expect(abs(imu.accel.x - 0.05) < 1e-12)
        #expect(session.convention == .iOSDefault)
    }

    @Test("location with altitudeAboveMeanSeaLevel alone means iOS; nothing means no evidence")
    func weakEvidence() throws {
        let onlyLocation = Fixtures.body([Fixtures.sample("location", 0, #"{"latitude":1,"longitude":2,"altitudeAboveMeanSeaLevel":3}"#)])
        #expect(SensorLoggerConvention.detect(in: try SensorLoggerMessage.decode(onlyLocation).readings) == .iOSDefault)
        let standardised = Fixtures.body([
            Fixtures.sample("location", 0, #"{"latitude":1,"longitude":2,"altitudeAboveMeanSeaLevel":3}"#),
            Fixtures.sample("accelerometeruncalibrated", 0, Fixtures.xyz(0, 0, 9.9)),
        ])
        #expect(SensorLoggerConvention.detect(in: try SensorLoggerMessage.decode(standardised).readings) == .iOSStandardised)
        let plain = Fixtures.body([Fixtures.sample("gravity", 0, Fixtures.xyz(0, 0, 9.8))])
        #expect(SensorLoggerConvention.detect(in: try SensorLoggerMessage.decode(plain).readings) == nil)
    }

    @Test("gravity in g is scaled to m/s²")
    func gravityInG() throws {
        let body = Fixtures.body([
            Fixtures.sample("accelerometer", 0, Fixtures.xyz(0, 0, 0.1)),
            Fixtures.sample("gravity", 0, Fixtures.xyz(0, 0, 1)),
        ])
        let samples = try SensorLoggerMessage.decode(body).samples(convention: .android)
        #expect(samples[1].reading == .gravity(Vector3(x: 0, y: 0, z: 9.80665)))
        #expect(samples[0].reading == .userAcceleration(Vector3(x: 0, y: 0, z: 0.980665)))
    }

    @Test("flat values (no values object) and numeric strings are accepted")
    func flatFields() throws {
        let body = #"{"payload":[{"name":"Gyroscope","time":"1698501144000000000","x":"0.5","y":0,"z":-0.5}]}"#
        let message = try SensorLoggerMessage.decode(body)
        #expect(
            message.readings == [SensorLoggerReading(timeNanoseconds: 1_698_501_144_000_000_000, sensor: .gyroscope(Vector3(x: 0.5, y: 0, z: -0.5)))])
        #expect(message.messageId == nil)
    }

    @Test(
        "bad bodies give a one-line reason",
        arguments: [
            ("", "body is empty"),
            ("{not json", "body is not JSON: "),
            ("[1,2]", "body is not a JSON object"),
            (#"{"messageId":1}"#, "payload is missing"),
            (#"{"payload":{"name":"x"}}"#, "payload is not an array"),
            (#"{"payload":[3]}"#, "sample 0 is not an object"),
            (#"{"payload":[{"time":1}]}"#, "sample 0: name is missing"),
            (#"{"payload":[{"name":"light","time":1},{"name":"gravity","values":{"x":1,"y":1,"z":1}}]}"#, "sample 1 (gravity): time is missing"),
            (#"{"payload":[{"name":"gravity","time":true,"values":{"x":1,"y":1,"z":1}}]}"#, "sample 0 (gravity): time is not a number (a boolean)"),
            (#"{"payload":[{"name":"gravity","time":-5,"values":{"x":1,"y":1,"z":1}}]}"#, "sample 0 (gravity): time is not positive (-5)"),
            (#"{"payload":[{"name":"gravity","time":1,"values":[1,2,3]}]}"#, "sample 0 (gravity): values is not an object"),
            (
                #"{"payload":[{"name":"light","time":1},{"name":"a","time":1},{"name":"b","time":1},{"name":"accelerometer","time":1,"values":{"y":1,"z":1}}]}"#,
                "sample 3 (accelerometer): values.x is missing"
            ),
            (
                #"{"payload":[{"name":"accelerometer","time":1,"values":{"x":"NaN","y":1,"z":1}}]}"#,
                "sample 0 (accelerometer): values.x is not finite"
            ),
            (
                #"{"payload":[{"name":"accelerometer","time":1,"values":{"x":true,"y":1,"z":1}}]}"#,
                "sample 0 (accelerometer): values.x is not a number (a boolean)"
            ),
            (#"{"payload":[{"name":"accelerometer","time":1,"values":{"x":1e999,"y":1,"z":1}}]}"#, "body is not JSON: "),
            (
                #"{"payload":[{"name":"location","time":1,"values":{"latitude":91,"longitude":0}}]}"#,
                "sample 0 (location): values.latitude is out of range (91.0)"
            ),
            (#"{"payload":[{"name":"location","time":1,"values":{"latitude":1}}]}"#, "sample 0 (location): values.longitude is missing"),
            (#"{"payload":[{"name":"pedometer","time":1,"values":{"steps":-3}}]}"#, "sample 0 (pedometer): values.steps is out of range (-3.0)"),
        ])
    func badBodies(body: String, reason: String) {
        #expect {
            try SensorLoggerMessage.decode(body)
        } throws: { error in
            guard let error = error as? PhoneFormatError else { return false }
            return error.reason.hasPrefix(reason) && !error.reason.contains("\n")
        }
    }

    @Test("not-JSON reason names the problem")
    func notJSONReason() {
        do throws(PhoneFormatError) {
            _ = try SensorLoggerMessage.decode("{\"payload\": [}")
            Issue.record("expected an error")
        } catch {
            #expect(error.reason.hasPrefix("body is not JSON: "))
            #expect(error.reason.count > "body is not JSON: ".count + 5)
        }
    }

    @Test("limits bound the work")
    func limits() {
        let big = Fixtures.body((0..<20).map { Fixtures.sample("light", Int64($0), #"{"lux":1}"#) })
        #expect(throws: PhoneFormatError("payload has 20 samples (limit 10)")) {
            try SensorLoggerMessage.decode(big, limits: .init(maximumSamples: 10))
        }
        #expect(throws: PhoneFormatError("body is too large (\(big.utf8.count) bytes; limit 100)")) {
            try SensorLoggerMessage.decode(big, limits: .init(maximumBytes: 100))
        }
    }
}
