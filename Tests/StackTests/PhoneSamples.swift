import Foundation

/// What phones send the bridge in the stack contract test, built as the apps build it (Sensor Logger's pushes are
/// `SensorLoggerBodies`, shared with the bridge's tests).
enum PhoneSamples {
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
