import PhoneFormats
import Testing

@Suite("phyphox CSV export")
struct PhyphoxExportTests {
    static let meta: [String: String] = [
        "meta/time.csv":
            "\"event\",\"experiment time\",\"system time\",\"system time text\"\n\"START\",0.000000000E0,1.700000000E9,\"2023-11-14 22:13:20.000 UTC+00:00\"\n\"PAUSE\",2.000000000E0,1.700000002E9,\"2023-11-14 22:13:22.000 UTC+00:00\"\n\"START\",2.000000000E0,1.700000100E9,\"2023-11-14 22:15:00.000 UTC+00:00\"\n",
        "meta/device.csv": "\"property\",\"value\"\n\"version\",\"1.1.16\"\n\"deviceModel\",\"Pixel 7\"\n\"deviceBrand\",\"google\"\n",
    ]

    @Test("comma / decimal point export with meta/time.csv")
    func commaExport() throws {
        var files = Self.meta
        files["Accelerometer.csv"] =
            "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n1.000000000E-2,1.003170490E-1,3.543418407E-2,9.806958618E0\n2.500000000E0,0.0,0.0,9.8\n"
        files["Magnetometer.csv"] =
            "\"Time (s)\",\"Magnetic field x (µT)\",\"Magnetic field y (µT)\",\"Magnetic field z (µT)\"\n5.000000000E-3,2.1E1,-3.0E0,-4.2E1\nNaN,NaN,NaN,NaN\n"
        files["Gyroscope.csv"] = "\"Time (s)\",\"Gyroscope x (rad/s)\",\"Gyroscope y (rad/s)\",\"Gyroscope z (rad/s)\"\n8.0E-3,1.0E-2,0.0E0,-2.0E-2\n"
        files["Location.csv"] =
            "\"Time (s)\",\"Latitude (°)\",\"Longitude (°)\",\"Height (m)\",\"Velocity (m/s)\",\"Direction (°)\",\"Horizontal Accuracy (m)\",\"Vertical Accuracy (m)\"\n1.5E0,5.0775E1,6.0838E0,2.1E2,1.2E0,9.0E1,5.0E0,3.0E0\n"
        let recording = try PhoneRecording.decode(files: files)
        #expect(recording.format == .phyphox)
        #expect(recording.deviceName == "google Pixel 7")
        #expect(!recording.timesAreRelative)
        #expect(recording.skippedRows == 1)
        let times = recording.samples.map(\.time)
        #expect(times == times.sorted())
        #expect(abs(times[0] - 1_700_000_000.005) < 1e-6)
        // After the pause, experiment time 2.5 s is 0.5 s after the second START.
        #expect(abs(times.last! - 1_700_000_100.5) < 1e-6)
        #expect(recording.samples.contains { $0.reading == .magneticField(Vector3(x: 21, y: -3, z: -42), calibrated: true) })
        let location = try #require(recording.samples.compactMap { if case .location(let fix) = $0.reading { fix } else { nil } }.first)
        #expect(
            location.latitude == 50.775 && location.altitude == 210 && location.speed == 1.2 && location.course == 90
                && location.horizontalAccuracy == 5)

        var pipeline = PhoneDevicePipeline()
        let imu = (pipeline.add(recording.samples) + pipeline.flush()).compactMap { if case .imu(let s) = $0 { s } else { nil } }
        #expect(imu.count == 2)
        #expect(imu[0].accel.z == 9.806958618)
        #expect(imu[0].gyro == Vector3(x: 0.01, y: 0, z: -0.02))
    }

    @Test("semicolon / decimal comma and tab variants read the same", arguments: [";", "\t"])
    func decimalComma(delimiter: String) throws {
        let header = ["\"Time (s)\"", "\"Linear Acceleration x (m/s^2)\"", "\"Linear Acceleration y (m/s^2)\"", "\"Linear Acceleration z (m/s^2)\""]
            .joined(separator: delimiter)
        let row = ["1,000000000E-2", "1,5E-1", "-2,5E-1", "9,8E0"].joined(separator: delimiter)
        let recording = try PhyphoxExport.decode(files: ["Linear Accelerometer.csv": header + "\n" + row + "\n"], clockStart: 1_000)
        #expect(recording.samples == [PhoneSample(time: 1_000.01, reading: .userAcceleration(Vector3(x: 0.15, y: -0.25, z: 9.8)))])
        #expect(!recording.timesAreRelative)
    }

    @Test("without meta/time.csv or a clock, times stay relative; detection uses headers")
    func relative() throws {
        let recording = try PhoneRecording.decode(files: [
            "Raw Data.csv":
                "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"\n0.5,0,0,9.81,9.81\n"
        ])
        #expect(recording.format == .phyphox)
        #expect(recording.timesAreRelative)
        #expect(recording.samples == [PhoneSample(time: 0.5, reading: .acceleration(Vector3(x: 0, y: 0, z: 9.81)))])
    }

    @Test("garbage numbers are an error naming file, line and column")
    func garbage() {
        #expect(throws: PhoneFormatError("Gyroscope.csv line 2: Gyroscope y (rad/s) is not a number (\"fast\")")) {
            try PhyphoxExport.decode(files: [
                "Gyroscope.csv": "\"Time (s)\",\"Gyroscope x (rad/s)\",\"Gyroscope y (rad/s)\",\"Gyroscope z (rad/s)\"\n0.1,0.2,fast,0.3\n"
            ])
        }
    }
}
