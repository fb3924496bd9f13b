import Foundation
import PhoneFormats
import Testing

@Suite("Contract encoding")
struct ContractEncodingTests {
    private func json(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("IMU encodes vectors as arrays and omits a missing gyro")
    func imu() throws {
        let object = try json(IMUSample(timestamp: 12.5, accel: Vector3(x: 0, y: 0, z: 9.81), mag: Vector3(x: 1, y: 2, z: 3)))
        #expect(Set(object.keys) == ["timestamp", "accel", "mag"])
        #expect(object["accel"] as? [Double] == [0, 0, 9.81])
        let withGyro = try json(
            IMUSample(timestamp: 1, accel: Vector3(x: 0, y: 0, z: 0), mag: Vector3(x: 0, y: 0, z: 0), gyro: Vector3(x: 0.1, y: 0.2, z: 0.3)))
        #expect(withGyro["gyro"] as? [Double] == [0.1, 0.2, 0.3])
    }

    @Test("location and steps keys")
    func others() throws {
        let location = try json(LocationSample(timestamp: 1, latitude: 2, longitude: 3, speed: 1.5))
        #expect(Set(location.keys) == ["timestamp", "latitude", "longitude", "speed"])
        let steps = try json(StepSample(steps: 42, timestamp: 7))
        #expect(steps["steps"] as? Int == 42)
    }

    /// Its speed is the detector and codec benchmarks' business (`make benchmark`); here only that it decodes whole.
    @Test("a large push body (20,000 samples) decodes whole")
    func largeBody() throws {
        let samples = (0..<20_000).map { index in
            Fixtures.sample(index % 2 == 0 ? "accelerometer" : "gravity", Int64(index), Fixtures.xyz(0.01, -0.02, 9.8))
        }
        let body = Fixtures.body(samples)
        let message = try SensorLoggerMessage.decode(body)
        #expect(message.readings.count == 20_000)
    }
}
