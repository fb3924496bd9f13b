/// Push bodies written for these tests in the shape documented in Sensor Logger's PUSHING.md.
enum Fixtures {
    static let t0: Int64 = 1_698_501_144_000_000_000

    static func sample(_ name: String, _ offsetMillis: Int64, _ values: String) -> String {
        #"{"name":"\#(name)","time":\#(t0 + offsetMillis * 1_000_000),"values":\#(values),"accuracy":3}"#
    }

    static func xyz(_ x: Double, _ y: Double, _ z: Double) -> String {
        #"{"x":\#(x),"y":\#(y),"z":\#(z)}"#
    }

    static func body(messageId: Int = 1, device: String = "3f2a4b1c-9d8e", _ samples: [String]) -> String {
        #"{"messageId":\#(messageId),"sessionId":"a1b2c3","deviceId":"\#(device)","payload":[\#(samples.joined(separator: ","))]}"#
    }

    /// An Android phone lying flat face up: user acceleration ≈ 0, gravity +z, total acceleration +z.
    static let android = body([
        sample("magnetometer", 0, xyz(12.5, -3.25, -41.0)),
        sample("gyroscope", 0, xyz(0.01, -0.02, 0.003)),
        sample("accelerometer", 5, xyz(0.05, -0.02, 0.1)),
        sample("gravity", 5, xyz(0.0, 0.0, 9.80665)),
        sample("totalacceleration", 5, xyz(0.05, -0.02, 9.9)),
        sample(
            "location", 8,
            #"{"latitude":51.5007,"longitude":-0.1246,"altitude":56.2,"speed":1.4,"bearing":92.5,"horizontalAccuracy":4.8,"verticalAccuracy":3.1,"speedAccuracy":0.5,"bearingAccuracy":10}"#
        ),
        sample("pedometer", 9, #"{"steps":12}"#),
        sample("light", 9, #"{"lux":120}"#),
        sample("battery", 9, #"{"batteryLevel":0.8,"batteryState":"unplugged"}"#),
    ])

    /// An iPhone lying flat face up with "Standardise Units & Frames" off: gravity reads -z.
    static let iOS = body(
        device: "F00D-CAFE",
        [
            sample("magnetometer", 0, xyz(12.5, -3.25, -41.0)),
            sample("accelerometer", 10, xyz(-0.05, 0.02, -0.1)),
            sample("gravity", 10, xyz(0.0, 0.0, -9.80665)),
            sample("accelerometeruncalibrated", 10, xyz(0.0, 0.0, -1.01)),
            sample(
                "location", 12,
                #"{"latitude":51.5007,"longitude":-0.1246,"altitude":102.4,"altitudeAboveMeanSeaLevel":56.2,"speed":-1,"bearing":-1,"horizontalAccuracy":4.8,"verticalAccuracy":3.1}"#
            ),
            sample("orientation", 12, #"{"qx":0,"qy":0,"qz":0,"qw":1,"roll":0,"pitch":0,"yaw":0}"#),
        ])
}
