import Foundation

/// Sensor Logger push bodies written for tests in the shape its PUSHING.md documents:
/// `{"messageId", "sessionId", "deviceId", "payload": [{"name", "time" (UTC ns), "values", "accuracy"?}]}`: the bridge's
/// tests, and the phone pushes of the stack contract test.
public enum SensorLoggerBodies {
    public static let t0: Int64 = 1_795_341_600_000_000_000  // 2026-11-22T10:00:00Z

    public static func sample(_ name: String, _ offsetMillis: Int64, _ values: String) -> String {
        #"{"name":"\#(name)","time":\#(t0 + offsetMillis * 1_000_000),"values":\#(values),"accuracy":3}"#
    }

    public static func xyz(_ x: Double, _ y: Double, _ z: Double) -> String {
        #"{"x":\#(x),"y":\#(y),"z":\#(z)}"#
    }

    public static func body(messageId: Int = 1, device: String = "3f2a4b1c-9d8e", _ samples: [String]) -> String {
        #"{"messageId":\#(messageId),"sessionId":"a1b2c3","deviceId":"\#(device)","payload":[\#(samples.joined(separator: ","))]}"#
    }

    /// An Android phone lying flat, face up, at 100 Hz from `start` ms for `count` samples: total acceleration +z.
    public static func android(messageId: Int = 1, device: String = "3f2a4b1c-9d8e", start: Int64 = 0, count: Int = 20) -> String {
        var samples: [String] = []
        for index in 0..<Int64(count) {
            let t = start + index * 10
            samples.append(sample("magnetometer", t, xyz(12.5, -3.25, -41.0)))
            samples.append(sample("gyroscope", t, xyz(0.01, -0.02, 0.003)))
            samples.append(sample("totalacceleration", t, xyz(0.05, -0.02, 9.9)))
        }
        samples.append(
            sample(
                "location", start + 5,
                #"{"latitude":48.1374,"longitude":11.5755,"altitude":519,"speed":1.4,"bearing":92.5,"horizontalAccuracy":4.8,"verticalAccuracy":3.1}"#
            ))
        samples.append(sample("pedometer", start + 9, #"{"steps":12}"#))
        samples.append(sample("light", start + 9, #"{"lux":120}"#))
        return body(messageId: messageId, device: device, samples)
    }

    /// An iPhone lying flat, face up, with "Standardise Units & Frames" off: accelerometer and gravity are
    /// negated (gravity reads -z), and `accelerometeruncalibrated` is in g.
    public static func iOS(device: String = "F00D-CAFE", count: Int = 20) -> String {
        var samples: [String] = []
        for index in 0..<Int64(count) {
            let t = index * 10
            samples.append(sample("magnetometer", t, xyz(12.5, -3.25, -41.0)))
            samples.append(sample("accelerometer", t, xyz(-0.05, 0.02, -0.1)))
            samples.append(sample("gravity", t, xyz(0.0, 0.0, -9.80665)))
            samples.append(sample("accelerometeruncalibrated", t, xyz(0.0, 0.0, -1.01)))
        }
        samples.append(
            sample(
                "location", 12,
                #"{"latitude":48.1374,"longitude":11.5755,"altitude":566,"altitudeAboveMeanSeaLevel":519,"speed":-1,"bearing":-1,"horizontalAccuracy":4.8,"verticalAccuracy":3.1}"#
            ))
        return body(device: device, samples)
    }
}
