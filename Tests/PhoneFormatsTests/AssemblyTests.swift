import PhoneFormats
import Testing

private func mag(_ t: Double, _ z: Double = -40) -> PhoneSample {
    PhoneSample(time: t, reading: .magneticField(Vector3(x: 10, y: 0, z: z), calibrated: true))
}
private func gyro(_ t: Double, _ z: Double) -> PhoneSample {
    PhoneSample(time: t, reading: .rotationRate(Vector3(x: 0, y: 0, z: z), calibrated: true))
}
private func user(_ t: Double, _ z: Double = 0.1) -> PhoneSample { PhoneSample(time: t, reading: .userAcceleration(Vector3(x: 0, y: 0, z: z))) }
private func gravity(_ t: Double, _ z: Double) -> PhoneSample { PhoneSample(time: t, reading: .gravity(Vector3(x: 0, y: 0, z: z))) }
private func total(_ t: Double, _ z: Double) -> PhoneSample { PhoneSample(time: t, reading: .acceleration(Vector3(x: 0, y: 0, z: z))) }
private func imus(_ outputs: [PhoneOutput]) -> [IMUSample] { outputs.compactMap { if case .imu(let s) = $0 { s } else { nil } } }

@Suite("Reorder buffer")
struct ReorderBufferTests {
    @Test("releases in time order once older than the delay")
    func delay() {
        var buffer = ReorderBuffer(delay: 1.0, capacity: 100)
        #expect(buffer.insert([user(10.0), user(10.5)]).isEmpty)
        #expect(buffer.insert([user(9.8)]).isEmpty)
        #expect(buffer.insert([user(11.2)]).map(\.time) == [9.8, 10.0])
        #expect(buffer.count == 2)
        #expect(buffer.flush().map(\.time) == [10.5, 11.2])
    }

    @Test("out-of-order batches come out sorted; too-late samples are dropped and counted")
    func lateSamples() {
        var buffer = ReorderBuffer(delay: 0.5, capacity: 100)
        let second = buffer.insert([user(2.0), user(2.1), user(2.2)])
        #expect(second.map(\.time) == [])
        let first = buffer.insert([user(1.0), user(1.1), user(3.0)])
        #expect(first.map(\.time) == [1.0, 1.1, 2.0, 2.1, 2.2])
        #expect(buffer.insert([user(1.5), user(2.2), user(2.9)]).map(\.time) == [2.2])
        #expect(buffer.droppedLateCount == 1)
        #expect(buffer.flush().map(\.time) == [2.9, 3.0])
    }

    @Test("a full buffer releases its oldest")
    func capacity() {
        var buffer = ReorderBuffer(delay: 100, capacity: 3)
        #expect(buffer.insert([user(4), user(1), user(3), user(2), user(5)]).map(\.time) == [1, 2])
        #expect(buffer.count == 3)
    }
}

@Suite("IMU assembly")
struct IMUAssemblerTests {
    @Test("user acceleration plus the nearest gravity, latest mag and gyro")
    func nearestGravity() {
        var assembler = IMUAssembler(gravityWindow: 0.5)
        var outputs = assembler.add([mag(0.0), gyro(0.0, 0.1), gravity(0.0, 9.0), user(0.09), gyro(0.095, 0.2)])
        #expect(outputs.isEmpty)  // waiting: a nearer gravity may follow
        outputs += assembler.add([gravity(0.1, 9.5), mag(0.11, -41), user(0.12), gravity(0.2, 9.8)])
        let samples = imus(outputs)
        #expect(samples.map(\.timestamp) == [0.09, 0.12])
        #expect(samples[0].accel.z == 9.6)  // 0.1 + gravity at 0.1 (nearer than 0.0)
        #expect(samples[0].gyro?.z == 0.1)  // gyro at 0.095 came after the sample
        #expect(samples[0].mag.z == -40)
        #expect(samples[1].accel.z == 9.6)  // gravity at 0.1 is nearer than 0.2
        #expect(samples[1].mag.z == -41)
        #expect(samples[1].gyro?.z == 0.2)
    }

    @Test("samples before the first magnetometer come out as acceleration only, in time order with the IMU samples")
    func withoutMagnetometer() {
        var assembler = IMUAssembler()
        let outputs = assembler.add([total(0.0, 9.8), total(0.01, 9.7), mag(0.02), total(0.03, 9.81)]) + assembler.flush()
        #expect(imus(outputs).map(\.timestamp) == [0.03])
        #expect(imus(outputs)[0].gyro == nil)
        #expect(outputs.map(\.timestamp) == [0.0, 0.01, 0.03])
        #expect(outputs.prefix(2).compactMap { if case .acceleration(let sample) = $0 { sample.accel.z } else { nil } } == [9.8, 9.7])
        #expect(assembler.statistics.withoutMagnetometer == 2)
    }

    @Test("user acceleration without any magnetometer is still combined with gravity, as acceleration only")
    func userAccelerationWithoutMagnetometer() {
        var assembler = IMUAssembler()
        let outputs = assembler.add([gravity(0.0, 9.8), user(0.0), user(0.01), gravity(0.04, 9.6)]) + assembler.flush()
        let accelerations = outputs.compactMap { if case .acceleration(let sample) = $0 { sample } else { nil } }
        #expect(accelerations.map(\.timestamp) == [0.0, 0.01])
        #expect(accelerations.map(\.accel.z) == [9.9, 9.9])  // 0.1 + gravity 9.8 (nearer than 9.6 at 0.04)
        #expect(imus(outputs).isEmpty)
    }

    @Test("a recording's first magnetometer reading serves the samples just before it")
    func initialMagnetometer() {
        var assembler = IMUAssembler(initialMagnetometer: Vector3(x: 0, y: 20, z: -30))
        let outputs = assembler.add([total(0.0, 9.8), mag(0.02, -41), total(0.03, 9.81)]) + assembler.flush()
        #expect(imus(outputs).map(\.mag.z) == [-30, -41])
        #expect(assembler.statistics.withoutMagnetometer == 0)
    }

    @Test("a recording's first magnetometer reading serves the samples before it only within a second")
    func initialMagnetometerWindow() {
        func recording(_ samples: [PhoneSample]) -> PhoneRecording {
            PhoneRecording(format: .sensorLogger, deviceName: nil, platform: nil, timesAreRelative: false, samples: samples)
        }
        let calibrated = PhoneSample(time: 0.8, reading: .magneticField(Vector3(x: 1, y: 2, z: 3), calibrated: true))
        let raw = PhoneSample(time: 0.5, reading: .magneticField(Vector3(x: 9, y: 9, z: 9), calibrated: false))
        #expect(recording([total(0, 9.8), raw, calibrated]).initialMagnetometer() == Vector3(x: 1, y: 2, z: 3))
        #expect(recording([total(0, 9.8), raw]).initialMagnetometer() == Vector3(x: 9, y: 9, z: 9))
        // A magnetometer that starts 3 s in: the first 3 s get no reading from their future.
        #expect(recording([total(0, 9.8), mag(3.0)]).initialMagnetometer() == nil)
        #expect(recording([total(0, 9.8)]).initialMagnetometer() == nil)
    }

    @Test("a total-acceleration stream wins over user acceleration")
    func totalWins() {
        var assembler = IMUAssembler()
        let outputs = assembler.add([mag(0), user(0.01), total(0.01, 9.9), gravity(0.01, 9.8), user(0.02), total(0.02, 9.7)]) + assembler.flush()
        #expect(imus(outputs).map(\.accel.z) == [9.9, 9.7])
        #expect(assembler.statistics.ignoredUserAcceleration == 2)
    }

    @Test("no gravity within the window drops the sample")
    func gravityWindow() {
        var assembler = IMUAssembler(gravityWindow: 0.2)
        let outputs = assembler.add([mag(0), gravity(0, 9.8), user(1.0), user(1.1), gravity(1.25, 9.7)]) + assembler.flush()
        #expect(imus(outputs).map(\.timestamp) == [1.1])
        #expect(assembler.statistics.droppedWithoutGravity == 1)
    }

    @Test("locations and steps pass through in time order with IMU samples")
    func passThrough() {
        var assembler = IMUAssembler()
        let fix = LocationSample(timestamp: 0.06, latitude: 1, longitude: 2)
        let outputs = assembler.add([
            mag(0), gravity(0, 9.8), user(0.05), PhoneSample(time: 0.06, reading: .location(fix)),
            PhoneSample(time: 0.07, reading: .steps(3)), gravity(0.1, 9.8),
        ])
        #expect(outputs.map(\.timestamp) == [0.05, 0.06, 0.07])
        #expect(outputs[2] == .steps(StepSample(steps: 3, timestamp: 0.07)))
    }

    @Test("calibrated magnetometer wins over uncalibrated")
    func calibratedWins() {
        var assembler = IMUAssembler()
        let raw = PhoneSample(time: 0.01, reading: .magneticField(Vector3(x: 99, y: 99, z: 99), calibrated: false))
        let outputs = assembler.add([mag(0), raw, total(0.02, 9.8)])
        #expect(imus(outputs)[0].mag.x == 10)
    }

    @Test("out-of-order pushes through a session come out in time order")
    func outOfOrderSession() throws {
        func batch(_ id: Int, _ start: Int64) -> String {
            Fixtures.body(
                messageId: id,
                (0..<10).flatMap { index -> [String] in
                    let ms = start + Int64(index) * 100
                    return [
                        Fixtures.sample("magnetometer", ms, Fixtures.xyz(10, 0, -40)),
                        Fixtures.sample("totalacceleration", ms, Fixtures.xyz(0, 0, 9.8)),
                    ]
                })
        }
        var session = SensorLoggerSession(pipeline: PhoneDevicePipeline(reorderDelay: 1.0))
        var outputs = session.receive(try SensorLoggerMessage.decode(batch(2, 1000)))
        outputs += session.receive(try SensorLoggerMessage.decode(batch(1, 0)))
        outputs += session.receive(try SensorLoggerMessage.decode(batch(3, 2000)))
        outputs += session.flush()
        let times = imus(outputs).map { ($0.timestamp - 1_698_501_144) * 1000 }.map { $0.rounded() }
        #expect(times == (0..<30).map { Double($0 * 100) })
        #expect(session.pipeline.buffer.droppedLateCount == 0)
        #expect(session.convention == .android)
    }
}
