public import Foundation

/// The payload of `stepcompass/{device}/imu`: `{"timestamp"?, "accel": [x, y, z], "mag": [x, y, z], "gyro"?: [x, y, z]}`,
/// accelerometer in m/s² including gravity, magnetometer in µT, gyroscope in rad/s, in the device frame (x right of
/// the screen, y top, z out of the screen). Read by the compass and the bridge's step detector, written by the
/// simulator and the bridge.
public struct IMUPayload: Sendable, Hashable, Codable {
    public var timestamp: String?
    public var accel: SIMD3<Double>
    public var mag: SIMD3<Double>
    public var gyro: SIMD3<Double>?

    public init(timestamp: String?, accel: SIMD3<Double>, mag: SIMD3<Double>, gyro: SIMD3<Double>? = nil) {
        self.timestamp = timestamp
        self.accel = accel
        self.mag = mag
        self.gyro = gyro
    }

    /// Reads a payload: the common shape by hand (``parseFast(_:maximumSize:)``), anything else with `decoder`, which
    /// also gives the error message.
    /// - Throws: ``InputError`` saying what is wrong.
    public static func decode(_ payload: Data, using decoder: PayloadDecoder) throws(InputError) -> IMUPayload {
        if let fast = parseFast(payload, maximumSize: decoder.maximumSize) { return fast }
        return try decoder.decode(IMUPayload.self, from: payload)
    }

    /// Checks the numbers (JSON cannot carry NaN, but a decoder may make infinities of literals such as `1e999`), and
    /// that there is a gravity direction and a field.
    /// - Throws: ``InputError`` naming the field.
    public func validate() throws(InputError) {
        guard Self.isFinite(accel) else { throw InputError("'accel' must hold three finite numbers") }
        guard Self.isFinite(mag) else { throw InputError("'mag' must hold three finite numbers") }
        if let gyro, !Self.isFinite(gyro) { throw InputError("'gyro' must hold three finite numbers") }
        guard (accel * accel).sum() > 0 else { throw InputError("'accel' is zero: no gravity direction") }
        guard (mag * mag).sum() > 0 else { throw InputError("'mag' is zero: no magnetic field") }
    }

    static func isFinite(_ vector: SIMD3<Double>) -> Bool {
        vector.x.isFinite && vector.y.isFinite && vector.z.isFinite
    }

    /// Reads the common shape without `JSONDecoder`, or returns nil (not an error by itself).
    ///
    /// IMU samples come at 50 Hz per device (50,000 a second in the compass load test), and `JSONDecoder` costs
    /// several microseconds a sample (see `stepcompass-buslab codec-bench`). This accepts only plain ASCII objects
    /// with exactly these keys (timestamp and gyro optional), strict JSON numbers and strings without escapes, each
    /// key once; for anything else it returns nil and ``decode(_:using:)`` hands the payload to the decoder. So a
    /// payload it accepts decodes to the values `JSONDecoder` gives, and every bad payload gets the usual report.
    /// - Parameters:
    ///   - payload: The message payload.
    ///   - maximumSize: The decoder's size limit: a larger payload is left to the decoder to refuse.
    public static func parseFast(_ payload: Data, maximumSize: Int) -> IMUPayload? {
        guard !payload.isEmpty, payload.count <= maximumSize else { return nil }
        return payload.withUnsafeBytes { raw -> IMUPayload? in
            var reader = FastJSONReader(bytes: raw.bindMemory(to: UInt8.self))
            return reader.imuObject()
        }
    }
}

extension FastJSONReader {
    /// An IMU object: exactly `accel` and `mag`, optionally `timestamp` and `gyro`, each once; nil for anything else.
    mutating func imuObject() -> IMUPayload? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var timestamp: Range<Int>?
        var accel: SIMD3<Double>?
        var mag: SIMD3<Double>?
        var gyro: SIMD3<Double>?
        var first = true
        while true {
            guard let member = nextMember(first: &first) else { return nil }
            guard case .key(let key) = member else { break }
            if equals(key, "timestamp"), timestamp == nil {
                guard let value = string() else { return nil }
                timestamp = value
            } else if equals(key, "accel"), accel == nil {
                guard let value = vector() else { return nil }
                accel = value
            } else if equals(key, "mag"), mag == nil {
                guard let value = vector() else { return nil }
                mag = value
            } else if equals(key, "gyro"), gyro == nil {
                guard let value = vector() else { return nil }
                gyro = value
            } else {
                return nil  // another key, or one seen twice: the decoder's business
            }
        }
        skipSpace()
        guard index == bytes.count, let accel, let mag else { return nil }
        return IMUPayload(timestamp: timestamp.map(text), accel: accel, mag: mag, gyro: gyro)
    }
}
