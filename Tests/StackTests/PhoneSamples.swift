import Foundation

/// What phones send the bridge in the stack contract test, built as the apps build it.
enum PhoneSamples {
    /// 2026-11-22T10:00:00Z in nanoseconds, Sensor Logger's clock.
    static let start: Int64 = 1_795_341_600_000_000_000

    private struct SensorLoggerBody: Encodable {
        var messageId = 1
        var sessionId = "a1b2c3"
        var deviceId: String
        var payload: [Sample]
    }

    private struct Sample: Encodable {
        var name: String
        var time: Int64
        var values: [String: Double]
        var accuracy: Int?
    }

    /// A Sensor Logger push in the documented shape: an Android phone lying flat at 100 Hz (0.2 s of magnetometer,
    /// gyroscope and total acceleration), a location, a pedometer count of 12 and a light sample (which the bridge
    /// ignores).
    static func sensorLoggerBody(deviceId: String) -> Data {
        func xyz(_ x: Double, _ y: Double, _ z: Double) -> [String: Double] { ["x": x, "y": y, "z": z] }
        var samples: [Sample] = []
        for index in 0..<20 {
            let time = start + Int64(index) * 10 * 1_000_000
            samples += [
                Sample(name: "magnetometer", time: time, values: xyz(12.5, -3.25, -41.0), accuracy: 3),
                Sample(name: "gyroscope", time: time, values: xyz(0.01, -0.02, 0.003), accuracy: 3),
                Sample(name: "totalacceleration", time: time, values: xyz(0.05, -0.02, 9.9), accuracy: 3),
            ]
        }
        samples.append(
            Sample(
                name: "location", time: start + 5_000_000,
                values: [
                    "latitude": 48.1374, "longitude": 11.5755, "altitude": 519, "speed": 1.4, "bearing": 92.5, "horizontalAccuracy": 4.8,
                    "verticalAccuracy": 3.1,
                ]))
        samples.append(Sample(name: "pedometer", time: start + 9_000_000, values: ["steps": 12]))
        samples.append(Sample(name: "light", time: start + 9_000_000, values: ["lux": 120]))
        return (try? JSONEncoder().encode(SensorLoggerBody(deviceId: deviceId, payload: samples))) ?? Data()
    }

    private struct IMULine: Encodable {
        var timestamp: String
        var accel: [Double]
        var mag: [Double]
    }

    /// 12 s of a walking phone at 50 Hz that reports no pedometer count: 1.8 steps a second of vertical bounce, as
    /// contract `imu` payloads, one a line.
    static func walkingIMULines() -> [String] {
        let encoder = JSONEncoder()
        return (0..<600).map { index in
            let t = Double(index) / 50
            let bounce = 2.8 * sin(2 * .pi * 1.8 * t) + 0.6 * sin(2 * .pi * 3.6 * t + 0.4)
            let line = IMULine(
                timestamp: "2026-11-22T10:00:\(String(format: "%06.3f", t))Z", accel: [0.3 * sin(2 * .pi * 0.9 * t), 9.81 + bounce, 0.8],
                mag: [0.0, -43.9, 21.4])
            return String(decoding: (try? encoder.encode(line)) ?? Data(), as: UTF8.self)
        }
    }
}
