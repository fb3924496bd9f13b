import PhoneFormats
import Testing

@Suite("Sensor Logger CSV export")
struct SensorLoggerExportTests {
    static let t0: Int64 = 1_698_501_144_000_000_000

    static func files(platform: String, flip: Double) -> [String: String] {
        [
            "Metadata.csv": "version,device name,recording time,platform,appVersion\n3,Pixel 7,1698501144000,\(platform),1.40.0\n",
            "Accelerometer.csv": "time,seconds_elapsed,z,y,x\n\(t0 + 10_000_000),0.01,\(0.1 * flip),0,0\n\(t0 + 20_000_000),0.02,\(0.2 * flip),0,0\n",
            // Different column order on purpose.
            "Gravity.csv": "x,time,y,seconds_elapsed,z\n0,\(t0 + 10_000_000),0,0.01,\(9.8 * flip)\n0,\(t0 + 20_000_000),0,0.02,\(9.8 * flip)\n",
            "Magnetometer.csv": "time,seconds_elapsed,z,y,x\n\(t0),0,-40,0,20\n",
            "Gyroscope.csv": "seconds_elapsed,time,x,y,z\n0.005,\(t0 + 5_000_000),0.1,0.2,0.3\n",
            "Location.csv":
                "time,seconds_elapsed,bearingAccuracy,speedAccuracy,verticalAccuracy,horizontalAccuracy,speed,bearing,altitude,longitude,latitude\n\(t0 + 15_000_000),0.015,0,0,1.77,15.1,0.8,-1,214.2,-0.1246,51.5007\n",
            "Pedometer.csv": "time,seconds_elapsed,steps\n\(t0 + 30_000_000),0.03,7\n",
            "Annotation.csv": "time,seconds_elapsed,text\n\(t0),0,hello\n",
        ]
    }

    @Test("Android export: time-ordered samples, header order independent")
    func android() throws {
        let recording = try PhoneRecording.decode(files: Self.files(platform: "android", flip: 1))
        #expect(recording.format == .sensorLogger)
        #expect(recording.deviceName == "Pixel 7")
        #expect(recording.platform == "android")
        #expect(!recording.timesAreRelative)
        let times = recording.samples.map(\.time)
        #expect(times == times.sorted())
        #expect(recording.samples.count == 8)
        #expect(recording.samples.contains { $0.reading == .gravity(Vector3(x: 0, y: 0, z: 9.8)) })
        #expect(recording.samples.contains { $0.reading == .rotationRate(Vector3(x: 0.1, y: 0.2, z: 0.3), calibrated: true) })
        let location = try #require(recording.samples.compactMap { if case .location(let fix) = $0.reading { fix } else { nil } }.first)
        #expect(location.latitude == 51.5007 && location.longitude == -0.1246 && location.speed == 0.8 && location.course == nil)

        var pipeline = PhoneDevicePipeline()
        let outputs = pipeline.add(recording.samples) + pipeline.flush()
        let imu = outputs.compactMap { if case .imu(let sample) = $0 { sample } else { nil } }
        #expect(imu.count == 2)
        #expect(abs(imu[0].accel.z - 9.9) < 1e-9)
        #expect(imu[0].gyro == Vector3(x: 0.1, y: 0.2, z: 0.3))
        #expect(outputs.last == .steps(StepSample(steps: 7, timestamp: recording.samples.last!.time)))
    }

    @Test("iOS export from Metadata.csv is negated into Android's frame")
    func iOS() throws {
        let recording = try SensorLoggerExport.decode(files: Self.files(platform: "ios", flip: -1))
        #expect(recording.samples.contains { $0.reading == .gravity(Vector3(x: 0, y: 0, z: 9.8)) })
        #expect(recording.samples.contains { $0.reading == .userAcceleration(Vector3(x: 0, y: 0, z: 0.1)) })
    }

    @Test("folder paths in names are accepted; TotalAcceleration.csv is read")
    func paths() throws {
        let recording = try PhoneRecording.decode(files: [
            "2023-10-28_14-52-24/TotalAcceleration.csv": "time,seconds_elapsed,z,y,x\n\(Self.t0),0,9.81,0.1,0.2\n"
        ])
        #expect(recording.samples == [PhoneSample(time: recording.samples[0].time, reading: .acceleration(Vector3(x: 0.2, y: 0.1, z: 9.81)))])
    }

    @Test("bad rows name file, line and column")
    func badRows() {
        #expect(throws: PhoneFormatError("Gravity.csv line 3: z is not a number (\"abc\")")) {
            try SensorLoggerExport.decode(files: ["Gravity.csv": "time,seconds_elapsed,z,y,x\n\(Self.t0),0,9.8,0,0\n\(Self.t0 + 1),0,abc,0,0\n"])
        }
        #expect(throws: PhoneFormatError("Gyroscope.csv line 2: x is missing")) {
            try SensorLoggerExport.decode(files: ["Gyroscope.csv": "time,seconds_elapsed,z,y\n\(Self.t0),0,1,2\n"])
        }
        #expect(throws: PhoneFormatError("Magnetometer.csv: no time column")) {
            try SensorLoggerExport.decode(files: ["Magnetometer.csv": "z,y,x\n1,2,3\n"])
        }
        #expect(throws: PhoneFormatError("no recognised export files (expected Sensor Logger or phyphox CSV files)")) {
            try PhoneRecording.decode(files: ["notes.txt": "hello"])
        }
    }
}
