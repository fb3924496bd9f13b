import PhoneFormats
import StepCompassContract
import Testing

@Suite("Sensor Logger session")
struct SensorLoggerSessionTests {
    /// An iPhone flat face up (standardisation off) without any platform evidence in the batch.
    static func iOSBatch(_ id: Int, startMillis: Int64) -> String {
        Fixtures.body(
            messageId: id,
            (0..<5).flatMap { index -> [String] in
                let ms = startMillis + Int64(index) * 100
                return [
                    Fixtures.sample("magnetometer", ms, Fixtures.xyz(10, 0, -40)),
                    Fixtures.sample("accelerometer", ms, Fixtures.xyz(0, 0, -0.1)),
                    Fixtures.sample("gravity", ms, Fixtures.xyz(0, 0, -9.8)),
                ]
            })
    }

    static let iOSLocation = Fixtures.body(
        messageId: 3,
        [
            Fixtures.sample("location", 1000, #"{"latitude":51.5,"longitude":-0.12,"altitude":100,"altitudeAboveMeanSeaLevel":54}"#)
        ])

    private func accelZ(_ outputs: [PhoneOutput]) -> [Double] {
        outputs.compactMap { if case .imu(let sample) = $0 { (sample.accel.z * 1000).rounded() / 1000 } else { nil } }
    }

    @Test("readings are held until evidence arrives, then converted with it")
    func holdsUntilEvidence() throws {
        var session = SensorLoggerSession()
        #expect(session.receive(try SensorLoggerMessage.decode(Self.iOSBatch(1, startMillis: 0))).isEmpty)
        #expect(session.conventionSource == .pending)
        var outputs = session.receive(try SensorLoggerMessage.decode(Self.iOSBatch(2, startMillis: 500)))
        outputs += session.receive(try SensorLoggerMessage.decode(Self.iOSLocation))
        #expect(session.conventionSource == .detected)
        #expect(session.convention == .iOSDefault)
        outputs += session.flush()
        #expect(accelZ(outputs) == Array(repeating: 9.9, count: 10))
        #expect(outputs.contains { if case .location = $0 { true } else { false } })
    }

    @Test("without evidence, Android is assumed after the wait")
    func assumesAndroid() throws {
        var session = SensorLoggerSession(evidenceWait: 0.3)
        let outputs = session.receive(try SensorLoggerMessage.decode(Self.iOSBatch(1, startMillis: 0))) + session.flush()
        #expect(session.conventionSource == .assumed)
        #expect(accelZ(outputs) == Array(repeating: -9.9, count: 5))
    }

    @Test("a configured convention is used at once and kept")
    func configured() throws {
        var session = SensorLoggerSession(convention: .iOSDefault, pipeline: PhoneDevicePipeline(reorderDelay: 0))
        let outputs = session.receive(try SensorLoggerMessage.decode(Self.iOSBatch(1, startMillis: 0))) + session.flush()
        #expect(session.conventionSource == .configured)
        #expect(accelZ(outputs) == Array(repeating: 9.9, count: 5))
        _ = session.receive(try SensorLoggerMessage.decode(Fixtures.android))
        #expect(session.convention == .iOSDefault)
    }

    @Test("JSON escapes in strings are decoded")
    func escapes() throws {
        let message = try SensorLoggerMessage.decode(#"{"deviceId":"caf\u00e9 \ud83d\ude00 \"x\"\/\n","payload":[]}"#)
        #expect(message.deviceId == "café 😀 \"x\"/\n")
        #expect(DeviceID.sanitized(message.deviceId!) == "caf-x")
        #expect(throws: PhoneFormatError("body is not JSON: nesting deeper than 64 at byte 64")) {
            try SensorLoggerMessage.decode(String(repeating: "[", count: 100))
        }
    }
}
