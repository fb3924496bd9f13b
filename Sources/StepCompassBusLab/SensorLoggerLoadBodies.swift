import Foundation

/// Sensor Logger HTTP push requests for the bridge load, in the shape its PUSHING.md documents:
/// `{"messageId", "sessionId", "deviceId", "payload": [{"name", "time" (UTC ns), "values": {"x","y","z"}}]}`.
///
/// Even phones are Android (`totalacceleration`, `magnetometer`, `gyroscope`); odd phones send `accelerometer` and
/// `gravity` instead of `totalacceleration` (an iPhone with "Standardise Units & Frames" on, so the bridge holds
/// its first two seconds while it looks for evidence of the platform, then assumes Android's frame, which is
/// right). Every sample time has a magnetometer reading first, so each acceleration sample becomes exactly one
/// `imu` message: `batch` per request. The readings' `values` are prepared once for a second of samples; only
/// the times are written per request.
struct SensorLoggerLoadBodies: Sendable {
    let rate: Double
    let batch: Int
    let port: Int
    /// The first sample's time of every phone, Unix nanoseconds.
    let startNanoseconds: Int64
    private let periodNanoseconds: Int64
    private static let cycle = 200
    /// `,"values":{...}}` of each stream at each sample of the cycle.
    private let magnetometer: [[UInt8]]
    private let gyroscope: [[UInt8]]
    private let total: [[UInt8]]
    private let user: [[UInt8]]
    private let gravity: [[UInt8]]

    init(rate: Double, batch: Int, port: Int, startNanoseconds: Int64) {
        self.rate = rate
        self.batch = batch
        self.port = port
        self.startNanoseconds = startNanoseconds
        periodNanoseconds = Int64((1e9 / rate).rounded())
        func values(_ f: (Double) -> (Double, Double, Double)) -> [[UInt8]] {
            (0..<Self.cycle).map { index in
                let t = Double(index) / rate
                let (x, y, z) = f(t)
                return Array(String(format: #","values":{"x":%.4f,"y":%.4f,"z":%.4f}}"#, x, y, z).utf8)
            }
        }
        let w = 2 * Double.pi * 1.8
        magnetometer = values { t in (12.5 + 0.3 * sin(0.5 * w * t), -3.25, -41.0) }
        gyroscope = values { t in (0.05 * sin(w * t), -0.02, 0.1 * sin(0.5 * w * t)) }
        total = values { t in (0.6 * sin(0.5 * w * t), 0.8 * sin(w * t + 1.2), 9.80665 + 1.5 * sin(w * t)) }
        user = values { t in (0.6 * sin(0.5 * w * t), 0.8 * sin(w * t + 1.2), 1.5 * sin(w * t)) }
        gravity = values { _ in (0, 0, 9.80665) }
    }

    /// Readings per sample time for phone `phone`.
    static func streams(phone: Int) -> Int { phone % 2 == 0 ? 3 : 4 }

    /// The whole HTTP/1.1 request (keep-alive) of phone `phone`'s request number `request` (0-based): samples
    /// `request * batch ..< (request + 1) * batch` of the phone, the phone's clock offset by `offsetNanoseconds`.
    func request(phone: Int, request: Int, offsetNanoseconds: Int64) -> [UInt8] {
        var body = [UInt8]()
        body.reserveCapacity(batch * Self.streams(phone: phone) * 110 + 128)
        body.append(
            contentsOf: #"{"messageId":\#(request + 1),"sessionId":"load-session-\#(phone)","deviceId":"load-phone-\#(phone)","payload":["#.utf8)
        let android = phone % 2 == 0
        for j in 0..<batch {
            let sample = request * batch + j
            let time = startNanoseconds + offsetNanoseconds + Int64(sample) * periodNanoseconds
            let index = sample % Self.cycle
            if j > 0 { body.append(UInt8(ascii: ",")) }
            Self.reading("magnetometer", time, magnetometer[index], to: &body)
            body.append(UInt8(ascii: ","))
            Self.reading("gyroscope", time, gyroscope[index], to: &body)
            body.append(UInt8(ascii: ","))
            if android {
                Self.reading("totalacceleration", time, total[index], to: &body)
            } else {
                Self.reading("gravity", time, gravity[index], to: &body)
                body.append(UInt8(ascii: ","))
                Self.reading("accelerometer", time, user[index], to: &body)
            }
        }
        body.append(contentsOf: "]}".utf8)
        var request = Array(
            "POST /sensor-logger?device=phone-\(phone) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                .utf8)
        request.append(contentsOf: body)
        return request
    }

    private static func reading(_ name: StaticString, _ time: Int64, _ values: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"name":""#.utf8)
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: #"","time":"#.utf8)
        DecimalDigits.append(time, to: &bytes)
        bytes.append(contentsOf: values)
    }
}
