import Foundation
import Testing
import WalkerSimulation

/// One IMU tick with the simulator's truth at that tick.
private struct Tick {
    var sample: IMUSample
    var attitude: [[Double]]
    var deviceHeading: Double
    var walkingHeading: Double
}

/// Runs a walker tick by tick (no jitter) so each IMU sample can be paired with the true attitude.
private func ticks(
    _ configuration: WalkerConfiguration, seconds: Double,
    field: ConstantGeomagneticField = .munich
) throws -> [Tick] {
    var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
    let count = Int((seconds * configuration.imuRate).rounded())
    var out: [Tick] = []
    for i in 0...count {
        for sample in walker.advance(to: Double(i) / configuration.imuRate).imuSamples {
            out.append(
                Tick(
                    sample: sample, attitude: walker.deviceAttitude, deviceHeading: walker.deviceHeading,
                    walkingHeading: walker.walkingHeading))
        }
    }
    return out
}

private func norm(_ v: [Double]) -> Double { v.map { $0 * $0 }.reduce(0, +).squareRoot() }
private func apply(_ m: [[Double]], _ v: [Double]) -> [Double] { m.map { row in zip(row, v).map { $0 * $1 }.reduce(0, +) } }
private func transpose(_ m: [[Double]]) -> [[Double]] { (0..<3).map { j in (0..<3).map { i in m[i][j] } } }
private func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
    (0..<3).map { i in (0..<3).map { j in (0..<3).map { a[i][$0] * b[$0][j] }.reduce(0, +) } }
}

/// The rotation exp([w]×) of a rotation vector (Rodrigues).
private func exponential(_ w: [Double]) -> [[Double]] {
    let angle = norm(w)
    let k = [[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]
    let k2 = multiply(k, k)
    let (a, b) = angle < 1e-12 ? (1.0, 0.5) : (sin(angle) / angle, (1 - cos(angle)) / (angle * angle))
    return (0..<3).map { i in (0..<3).map { j in (i == j ? 1 : 0) + a * k[i][j] + b * k2[i][j] } }
}

/// The angle, degrees, of the rotation `aᵀ·b`.
private func angleBetween(_ a: [[Double]], _ b: [[Double]]) -> Double {
    let r = multiply(transpose(a), b)
    return acos(min(1, max(-1, (r[0][0] + r[1][1] + r[2][2] - 1) / 2))) * 180 / .pi
}

/// The frequency (Hz) in `range` where the power spectrum of `values` (sampled at `rate`) peaks.
private func peakFrequency(_ values: [Double], rate: Double, range: ClosedRange<Double> = 0.3...6) -> Double {
    let mean = values.reduce(0, +) / Double(values.count)
    var best = (frequency: 0.0, power: -1.0)
    for frequency in stride(from: range.lowerBound, through: range.upperBound, by: 0.01) {
        var (re, im) = (0.0, 0.0)
        for (n, v) in values.enumerated() {
            let phase = 2 * .pi * frequency * Double(n) / rate
            re += (v - mean) * cos(phase)
            im += (v - mean) * sin(phase)
        }
        if re * re + im * im > best.power { best = (frequency, re * re + im * im) }
    }
    return best.frequency
}

@Suite("Phone carries, noise, jitter, gaps and still-phone scripts")
struct PhoneCarryTests {
    let field = ConstantGeomagneticField.munich

    @Test(
        "Each carry: gravity on average, a step-frequency bounce, and a mean magnitude near g",
        arguments: PhoneCarry.allCases)
    func accelerometer(carry: PhoneCarry) throws {
        var configuration = WalkerConfiguration()
        configuration.carry = carry
        configuration.route = .straight(heading: 70)
        let run = try ticks(configuration, seconds: 60)
        let walking = Array(run.dropFirst(5 * 50))  // after the figure-8 of the hand carries
        // In the world frame the specific force averages to −g: the phone goes nowhere up or down.
        let world = walking.map { apply($0.attitude, $0.sample.accel) }
        let mean = (0..<3).map { i in world.map { $0[i] }.reduce(0, +) / Double(world.count) }
        #expect(abs(mean[0]) < 0.1 && abs(mean[1]) < 0.1 && abs(mean[2] + 9.80665) < 0.1, "mean world specific force \(mean)")
        let magnitude = walking.map { norm($0.sample.accel) }.reduce(0, +) / Double(walking.count)
        // The lever motions of the thigh and of the swinging arm add centripetal acceleration on average: an arm of
        // 0.6 m swinging ±50° at 0.9 Hz pulls the phone towards the shoulder with L·ψ̇² ≈ 7 m/s² on average.
        let tolerance =
            switch carry {
            case .swing: 9.0
            case .pocket: 1.5
            default: 0.3
            }
        #expect(magnitude > 9.80665 - 0.05 && magnitude < 9.80665 + tolerance, "mean |accel| \(magnitude) m/s²")
        // The vertical, in the world frame and as seen by the device (the magnitude), peaks at the step frequency.
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        _ = walker.advance(to: 60)
        let cadence = Double(walker.steps) / 60
        let vertical = peakFrequency(world.map { $0[2] }, rate: 50)
        let magnitudePeak = peakFrequency(walking.map { norm($0.sample.accel) }, rate: 50)
        print("carry \(carry): mean |a| \(magnitude), world mean \(mean), cadence \(cadence) Hz, peaks \(vertical) / \(magnitudePeak) Hz")
        #expect(abs(vertical - cadence) < 0.1 * cadence, "vertical peak \(vertical) Hz vs cadence \(cadence) Hz")
        #expect(abs(magnitudePeak - cadence) < 0.1 * cadence, "magnitude peak \(magnitudePeak) Hz vs cadence \(cadence) Hz")
    }

    @Test(
        "Each carry: the gyroscope integrates to the attitude change, and the magnetometer follows it",
        arguments: PhoneCarry.allCases)
    func gyroscopeAndMagnetometer(carry: PhoneCarry) throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.carry = carry
        configuration.figureEight = true
        configuration.stepImpactAmplitude = 1.5
        let run = try ticks(configuration, seconds: 30)  // the park loop's first leg, with the figure-8 in hand carries
        let strength = (field.north * field.north + field.east * field.east + field.down * field.down).squareRoot()
        var worstAttitude = 0.0
        var worstField = 0.0
        var turned = 0.0
        for start in stride(from: 1, to: run.count - 25, by: 10) {
            var integrated = [[1.0, 0, 0], [0, 1, 0], [0, 0, 1]]
            for tick in run[(start + 1)...(start + 25)] {
                integrated = multiply(integrated, exponential(tick.sample.gyro.map { $0 * 0.02 }))
            }
            let first = run[start]
            let last = run[start + 25]
            let truth = multiply(transpose(first.attitude), last.attitude)
            worstAttitude = max(worstAttitude, angleBetween(truth, integrated))
            turned = max(turned, angleBetween(first.attitude, last.attitude))
            // The field seen at the end is the field at the start turned by the integrated rotation.
            let predicted = apply(transpose(integrated), first.sample.mag)
            worstField = max(worstField, norm(zip(predicted, last.sample.mag).map { $0 - $1 }))
        }
        for tick in run { #expect(abs(norm(tick.sample.mag) - strength) < 1e-9) }
        print("carry \(carry): largest turn in 0.5 s \(turned)°, gyro vs attitude \(worstAttitude)°, field \(worstField) µT")
        #expect(turned > (carry == .ear ? 1 : 3), "the carry moves the phone")
        // The simulator's rotation logarithm takes the angle from an arccosine, good to about 1e-8 rad per sample.
        #expect(worstAttitude < 1e-4)
        #expect(worstField < 1e-6)
    }

    @Test("The phone's heading differs from the walking direction in the pocket, swing, bag, ear and armband carries; the walk does not")
    func headings() throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.route = .straight(heading: 200)
        for carry in PhoneCarry.allCases {
            configuration.carry = carry
            let run = try ticks(configuration, seconds: 20)
            let differences = run.map { abs(ReferenceCompass.angleDifference($0.deviceHeading, $0.walkingHeading)) }
            let mean = differences.reduce(0, +) / Double(differences.count)
            print("carry \(carry): mean |device − walking heading| \(mean)°")
            #expect(run.allSatisfy { abs($0.walkingHeading - 200) < 1e-9 })
            switch carry {
            case .hand, .texting: #expect(differences.allSatisfy { $0 < 1e-6 })
            default: #expect(mean > 20, "\(carry): mean difference \(mean)°")
            }
        }
        // The walk does not depend on the carry: every non-IMU event is the hand carry's.
        var reference: [SimulationEvent]?
        var walkerConfiguration = WalkerConfiguration()
        for carry in PhoneCarry.allCases {
            walkerConfiguration.carry = carry
            var walker = try WalkerSimulator(configuration: walkerConfiguration, fieldSource: field)
            let others = walker.advance(to: 120).filter { if case .imu = $0 { false } else { true } }
            if let reference { #expect(others == reference, "\(carry)") } else { reference = others }
        }
    }

    @Test("Carries hold the phone as described: texting pitched ~40°, ear and armband top up, pocket top down or up")
    func poses() throws {
        func meanAccel(_ carry: PhoneCarry, topDown: Bool = true) throws -> [Double] {
            var configuration = WalkerConfiguration.ideal()
            configuration.carry = carry
            configuration.pocketTopDown = topDown
            let samples = try ticks(configuration, seconds: 20).map(\.sample.accel)
            return (0..<3).map { i in samples.map { $0[i] }.reduce(0, +) / Double(samples.count) }
        }
        let texting = ReferenceCompass.pitchRoll(accel: try meanAccel(.texting))
        #expect(abs(texting.pitch - 40) < 1, "texting pitch \(texting.pitch)°")
        #expect(try meanAccel(.ear)[1] > 8.5)  // top up: gravity's reaction along +y
        #expect(try meanAccel(.armband)[1] > 8.5)
        #expect(try meanAccel(.pocket)[1] < -7.5)  // top down
        #expect(try meanAccel(.pocket, topDown: false)[1] > 7.5)
        #expect(try meanAccel(.swing)[1] < -6)  // hanging, top down, swinging
    }

    @Test("Timestamp jitter: irregular intervals within ±jitter, in order, deterministic however time is split")
    func jitter() throws {
        var configuration = WalkerConfiguration()
        configuration.imuRate = 100
        configuration.imuJitter = 0.1
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let events = walker.advance(to: 60)
        let times = events.imuSamples.map(\.t)
        let intervals = zip(times, times.dropFirst()).map { $1 - $0 }
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        let sd = (intervals.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(intervals.count)).squareRoot()
        #expect(intervals.allSatisfy { $0 >= 0.009 - 1e-12 && $0 <= 0.011 + 1e-12 })
        #expect(abs(mean - 0.01) < 1e-4)
        #expect(sd > 0.0005 && sd < 0.00065, "interval SD \(sd) s (uniform ±10 % of 10 ms has 0.58 ms)")
        #expect(abs(Double(times.count) - 6_001) < 100)
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.t <= $1.t })
        // Fixes and truth keep their 1 Hz schedule, stamped at the first sample at or after each second.
        #expect((60...61).contains(events.locationSamples.count))
        var pieces = try WalkerSimulator(configuration: configuration, fieldSource: field)
        var split: [SimulationEvent] = []
        var t = 0.0
        while t < 60 {
            t = min(60, t + 0.37)
            split += pieces.advance(to: t)
        }
        #expect(split == events)
        // The walk still covers its distance at its pace.
        #expect(abs(Double(walker.steps) / 60 - 1.8) < 0.05)
    }

    @Test("IMU gaps: dropouts of 0.2–1.5 s in the IMU stream while steps, fixes and truth go on")
    func gaps() throws {
        var configuration = WalkerConfiguration()
        configuration.imuGaps = IMUGaps(rate: 0.1, minimumLength: 0.2, maximumLength: 1.5)
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let events = walker.advance(to: 300)
        let times = events.imuSamples.map(\.t)
        let holes = zip(times, times.dropFirst()).map { $1 - $0 }.filter { $0 > 0.03 }
        print("gaps: \(holes.count) dropouts, \(holes.map { String(format: "%.2f", $0) })")
        #expect(holes.count >= 10 && holes.count <= 60)
        #expect(holes.allSatisfy { $0 >= 0.2 && $0 <= 1.5 + 0.041 })
        #expect(times.count < 15_001 && times.count > 15_001 - 60 * 75)
        // Steps come during the dropouts too: the pedometer is not the IMU stream.
        let stepTimes = events.stepCounts.map(\.t)
        var stepsInGaps = 0
        for (a, b) in zip(times, times.dropFirst()) where b - a > 0.03 {
            stepsInGaps += stepTimes.filter { $0 > a && $0 < b }.count
        }
        #expect(stepsInGaps > 0)
        #expect(events.stepCounts.map(\.count) == Array(1...walker.steps))
        #expect(events.locationSamples.count == 301)
        // Without gaps, the same seed's other events are unchanged.
        configuration.imuGaps = nil
        var plain = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let plainEvents = plain.advance(to: 300)
        #expect(plainEvents.stepCounts.map(\.t) == stepTimes)
        #expect(plainEvents.imuSamples.count == 15_001)
    }

    @Test(
        "Still-phone scripts produce no steps at all",
        arguments: [
            WalkerActivity.onTable, .pickUpAndPutDown, .shaken(), .shaken(frequency: 3, duration: 6),
            .shaken(frequency: 8, duration: 2),
        ])
    func stillPhone(activity: WalkerActivity) throws {
        for reporting in [StepReporting.everyStep, .interval(1)] {
            var configuration = WalkerConfiguration()
            configuration.activity = activity
            configuration.stepReporting = reporting
            var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
            let events = walker.advance(to: 40)
            #expect(events.stepCounts.isEmpty)
            #expect(walker.steps == 0 && walker.distanceWalked == 0)
            #expect(events.truthSamples.allSatisfy { $0.steps == 0 && $0.x == 0 && $0.y == 0 })
            #expect(events.imuSamples.count == 2_001)
            #expect(events.locationSamples.allSatisfy { $0.speed < 0.5 })
        }
        var configuration = WalkerConfiguration.ideal()
        configuration.activity = activity
        let run = try ticks(configuration, seconds: 16)
        let deviation = run.map { abs(norm($0.sample.accel) - 9.80665) }
        let rates = run.map { norm($0.sample.gyro) }
        let world = run.map { apply($0.attitude, $0.sample.accel) }
        let meanVertical = world.map { $0[2] }.reduce(0, +) / Double(world.count)
        #expect(abs(meanVertical + 9.80665) < 0.05, "mean vertical \(meanVertical)")
        let strength = (field.north * field.north + field.east * field.east + field.down * field.down).squareRoot()
        #expect(run.allSatisfy { abs(norm($0.sample.mag) - strength) < 1e-9 })
        switch activity {
        case .onTable:
            #expect(run.allSatisfy { abs($0.sample.accel[0]) < 1e-12 && abs($0.sample.accel[1]) < 1e-12 })
            #expect(rates.allSatisfy { $0 < 1e-12 })
        case .pickUpAndPutDown:
            #expect((deviation.max() ?? 0) > 1 && (deviation.max() ?? 0) < 4, "lift acceleration \(deviation.max() ?? 0)")
            let held = run[Int(4.5 * 50)].sample.accel  // in the hand, 4.5 s into the 8 s cycle
            #expect(abs(ReferenceCompass.pitchRoll(accel: held).pitch - 35) < 2)
            #expect(abs(run[50].sample.accel[2] - 9.80665) < 1e-9)  // on the table at 1 s
            #expect(rates[..<100].allSatisfy { $0 < 1e-12 } && rates.max()! > 0.5)
        case .shaken(let frequency, let duration):
            let during = run.indices.filter { Double($0) / 50 > 1.5 && Double($0) / 50 < 0.5 + duration }
            #expect(during.map { deviation[$0] }.max()! > 8)
            #expect(run.indices.filter { Double($0) / 50 > 1.5 + duration }.allSatisfy { deviation[$0] < 1e-6 })
            let peak = peakFrequency(during.map { world[$0][2] }, rate: 50, range: 0.5...12)
            #expect(abs(peak - frequency) < 0.5, "shaking peak \(peak) Hz")
        case .walking:
            Issue.record("not a script")
        }
    }

    @Test("Bias, noise and quantisation: a constant offset per axis from the seed, readings on the quantisation grid")
    func biasAndQuantisation() throws {
        var configuration = WalkerConfiguration.ideal(seed: 7)
        configuration.activity = .onTable
        configuration.accelerometerBias = 0.08
        configuration.accelerometerNoise = 0.02
        configuration.gyroscopeBias = 0.01
        configuration.accelerometerQuantization = 0.0024
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let samples = walker.advance(to: 60).imuSamples
        let mean = (0..<3).map { i in samples.map { $0.accel[i] }.reduce(0, +) / Double(samples.count) }
        let bias = [mean[0], mean[1], mean[2] - 9.80665]
        #expect(norm(bias) > 0.02 && bias.allSatisfy { abs($0) < 0.35 }, "bias \(bias)")
        for sample in samples {
            for value in sample.accel {
                let steps = value / 0.0024
                #expect(abs(steps - steps.rounded()) < 1e-6)
            }
        }
        let gyroMean = (0..<3).map { i in samples.dropFirst().map { $0.gyro[i] }.reduce(0, +) / Double(samples.count - 1) }
        #expect(norm(gyroMean) > 0.002, "gyro bias \(gyroMean)")
        // Another seed, another bias; the same seed, the same one.
        var again = try WalkerSimulator(configuration: configuration, fieldSource: field)
        #expect(again.advance(to: 60).imuSamples.map(\.accel) == samples.map(\.accel))
        configuration.seed = 8
        var other = try WalkerSimulator(configuration: configuration, fieldSource: field)
        #expect(other.advance(to: 60).imuSamples.map(\.accel) != samples.map(\.accel))
    }

    @Test("Everything seeded: equal configurations give equal events, however time is split; another seed differs")
    func determinism() throws {
        var configuration = WalkerConfiguration()
        configuration.seed = 11
        configuration.carry = .bag
        configuration.imuRate = 200
        configuration.imuJitter = 0.05
        configuration.imuGaps = IMUGaps(rate: 0.2)
        configuration.accelerometerBias = 0.05
        configuration.accelerometerQuantization = 0.01
        var a = try WalkerSimulator(configuration: configuration, fieldSource: field)
        var b = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let whole = a.advance(to: 30)
        var pieces: [SimulationEvent] = []
        var t = 0.0
        while t < 30 {
            t = min(30, t + 0.113)
            pieces += b.advance(to: t)
        }
        #expect(whole == pieces)
        configuration.seed = 12
        var c = try WalkerSimulator(configuration: configuration, fieldSource: field)
        #expect(c.advance(to: 30) != whole)
    }

    @Test("Out-of-range new options are rejected")
    func validation() throws {
        func rejects(_ change: (inout WalkerConfiguration) -> Void) -> Bool {
            var configuration = WalkerConfiguration()
            change(&configuration)
            return (try? WalkerSimulator(configuration: configuration, fieldSource: field)) == nil
        }
        #expect(rejects { $0.imuJitter = 0.6 })
        #expect(rejects { $0.imuJitter = -0.1 })
        #expect(rejects { $0.imuGaps = IMUGaps(rate: 0.1, minimumLength: 2, maximumLength: 1) })
        #expect(rejects { $0.imuGaps = IMUGaps(rate: -1) })
        #expect(rejects { $0.accelerometerBias = -1 })
        #expect(rejects { $0.accelerometerQuantization = .nan })
        #expect(rejects { $0.activity = .shaken(frequency: 0, duration: 3) })
        #expect(rejects { $0.activity = .shaken(frequency: 5, duration: 0) })
        #expect(
            !rejects {
                $0.imuJitter = 0.5
                $0.imuGaps = IMUGaps(rate: 1)
                $0.carry = .swing
            })
    }
}
