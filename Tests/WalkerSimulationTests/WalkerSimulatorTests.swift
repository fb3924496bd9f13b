import Foundation
import Testing
import WalkerSimulation

@Suite("WalkerSimulator")
struct WalkerSimulatorTests {
    let field = ConstantGeomagneticField.munich

    @Test("The same seed gives the same events, however time is split; another seed differs")
    func determinism() throws {
        var configuration = WalkerConfiguration()
        configuration.seed = 42
        var once = try WalkerSimulator(configuration: configuration, fieldSource: field)
        var inPieces = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let whole = once.advance(to: 20)
        var pieces: [SimulationEvent] = []
        var t = 0.0
        while t < 20 {
            t = min(20, t + 0.37)
            pieces += inPieces.advance(to: t)
        }
        #expect(whole == pieces)
        #expect(whole.count > 1_000)
        configuration.seed = 43
        var other = try WalkerSimulator(configuration: configuration, fieldSource: field)
        #expect(other.advance(to: 20) != whole)
    }

    @Test("Events come in time order, never earlier than the last call's time")
    func ordering() throws {
        var walker = try WalkerSimulator(fieldSource: field)
        var last = 0.0
        var reached = 0.0
        for end in stride(from: 0.013, through: 15, by: 0.013) {
            for event in walker.advance(to: end) {
                #expect(event.t >= last)
                #expect(event.t >= reached - 0.02)
                #expect(event.t <= end + 1e-9)  // a tick at 0.78 is reached by advance(to: 0.7799999999999999)
                last = event.t
            }
            reached = end
        }
        #expect(walker.advance(to: 1).isEmpty)
        #expect(walker.advance(to: .nan).isEmpty)
    }

    @Test("Cadence is about 1.8 steps per second over 60 s")
    func cadence() throws {
        var walker = try WalkerSimulator(fieldSource: field)
        let steps = walker.advance(to: 60).stepCounts
        let rate = Double(steps.last?.count ?? 0) / 60
        #expect(abs(rate - 1.8) < 0.05, "cadence \(rate)")
        // One event per step, counts 1, 2, 3, ... in order.
        #expect(steps.map(\.count) == Array(1...steps.count))
    }

    @Test("Mean step length is within 1 % of the configured 0.75 m", arguments: [UInt64(1), 7, 99])
    func stepLength(seed: UInt64) throws {
        var configuration = WalkerConfiguration()
        configuration.seed = seed
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        _ = walker.advance(to: 300)
        let mean = walker.distanceWalked / Double(walker.steps)
        #expect(abs(mean - 0.75) / 0.75 < 0.01, "mean step length \(mean)")
        // And the truth path really is that long: the sum of the distances between truth samples.
        #expect(walker.distanceWalked > 380)
    }

    @Test("IMU samples come at 50 Hz")
    func imuRate() throws {
        var walker = try WalkerSimulator(fieldSource: field)
        let samples = walker.advance(to: 10).imuSamples
        #expect(samples.count == 501)
        for (a, b) in zip(samples, samples.dropFirst()) { #expect(abs(b.t - a.t - 0.02) < 1e-9) }
        #expect(samples.allSatisfy { $0.accel.count == 3 && $0.mag.count == 3 && $0.gyro.count == 3 })
    }

    @Test("Location fixes come at 1 Hz, a few metres off the truth, with correlated errors")
    func location() throws {
        var configuration = WalkerConfiguration()
        configuration.seed = 5
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let events = walker.advance(to: 300)
        let fixes = events.locationSamples
        let truths = events.truthSamples
        #expect(fixes.count == 301)
        #expect(truths.count == 301)
        for (a, b) in zip(fixes, fixes.dropFirst()) { #expect(abs(b.t - a.t - 1) < 1e-9) }
        let metresPerDegree = 111_200.0
        var errors: [(Double, Double)] = []
        for (fix, truth) in zip(fixes, truths) {
            #expect(fix.t == truth.t)
            let north = (fix.latitude - truth.latitude) * metresPerDegree
            let east = (fix.longitude - truth.longitude) * metresPerDegree * cos(truth.latitude * .pi / 180)
            errors.append((north, east))
            #expect(fix.horizontalAccuracy > 2 && fix.horizontalAccuracy < 10)
            #expect(fix.verticalAccuracy > 3 && fix.verticalAccuracy < 15)
            #expect(fix.speed > 0.9 && fix.speed < 1.9)
            #expect((0..<360).contains(fix.course))
            #expect(abs(fix.altitude - 515) < 25)
        }
        let rms = (errors.map { $0.0 * $0.0 + $0.1 * $0.1 }.reduce(0, +) / Double(errors.count)).squareRoot()
        #expect(rms > 1 && rms < 10, "horizontal RMS error \(rms) m")
        // Correlated: a fix's error changes much less from one second to the next than its size.
        let jumps = zip(errors, errors.dropFirst()).map { hypot($1.0 - $0.0, $1.1 - $0.1) }
        let meanJump = jumps.reduce(0, +) / Double(jumps.count)
        #expect(meanJump < rms / 2, "mean change \(meanJump) m vs RMS \(rms) m")
    }

    @Test("The figure-8 wave happens only in the first 5 s")
    func figureEight() throws {
        var walker = try WalkerSimulator(fieldSource: field)
        let samples = walker.advance(to: 60).imuSamples  // the first leg is a straight 120 m: no turns
        func rate(_ s: IMUSample) -> Double { (s.gyro[0] * s.gyro[0] + s.gyro[1] * s.gyro[1] + s.gyro[2] * s.gyro[2]).squareRoot() }
        let during = samples.filter { $0.t > 0 && $0.t < 5 }.map(rate).max() ?? 0
        let after = samples.filter { $0.t >= 5 }.map(rate).max() ?? .infinity
        #expect(during > 1.5, "peak rate during the figure-8 \(during) rad/s")
        #expect(after < 0.6, "peak rate after it \(after) rad/s")
        #expect(walker.isWavingFigureEight(at: 2.5))
        #expect(!walker.isWavingFigureEight(at: 5))
        // It happens while walking: steps are counted during it.
        var again = try WalkerSimulator(fieldSource: field)
        #expect((again.advance(to: 5).stepCounts.last?.count ?? 0) >= 8)

        var configuration = WalkerConfiguration.ideal()
        configuration.figureEight = true
        var ideal = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let idealSamples = ideal.advance(to: 30).imuSamples
        #expect((idealSamples.filter { $0.t < 5 }.map(rate).max() ?? 0) > 1.5)
        // The sample at exactly 5 s still sees the envelope's last, tiny change since 4.98 s.
        #expect((idealSamples.filter { $0.t > 5.01 }.map(rate).max() ?? 1) < 1e-6)
    }

    @Test("Truth starts at the origin and its coordinates agree with x and y")
    func truth() throws {
        var walker = try WalkerSimulator(fieldSource: field)
        let truths = walker.advance(to: 120).truthSamples
        let first = try #require(truths.first)
        #expect(first.x == 0 && first.y == 0 && first.steps == 0 && first.t == 0)
        #expect(first.latitude == 48.1527 && first.longitude == 11.5918)
        #expect(first.heading == 0)  // the park loop's first leg runs due north
        for truth in truths {
            #expect(abs((truth.latitude - 48.1527) * 111_200 - truth.x) < 0.01 * max(1, abs(truth.x)) + 0.5)
            #expect(abs((truth.longitude - 11.5918) * 111_200 * cos(48.1527 * .pi / 180) - truth.y) < 0.01 * max(1, abs(truth.y)) + 0.5)
            #expect((0..<360).contains(truth.heading))
        }
        let last = try #require(truths.last)
        #expect(last.steps == walker.steps)
        #expect(hypot(last.x, last.y) > 100)
    }

    @Test("CMPedometer-like step reports come once a second, only when the count changed")
    func intervalReporting() throws {
        var configuration = WalkerConfiguration()
        configuration.stepReporting = .interval(1)
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let reports = walker.advance(to: 30).stepCounts
        #expect(reports.count == 30)
        #expect(reports.allSatisfy { abs($0.t - $0.t.rounded()) < 1e-9 })
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $1.count > $0.count })
        #expect(reports.last?.count == walker.steps)
    }

    @Test("Hard and soft iron come from the seed, with the configured sizes")
    func distortion() throws {
        var walker = try WalkerSimulator(fieldSource: field)
        let magnitude = walker.hardIron.map { $0 * $0 }.reduce(0, +).squareRoot()
        #expect(abs(magnitude - 10) < 1e-9)
        for i in 0..<3 {
            for j in 0..<3 {
                #expect(abs(walker.softIron[i][j] - (i == j ? 1 : 0)) < 0.1)
                #expect(walker.softIron[i][j] == walker.softIron[j][i])
            }
        }
        var configuration = WalkerConfiguration()
        configuration.seed = 2
        #expect(try WalkerSimulator(configuration: configuration, fieldSource: field).hardIron != walker.hardIron)
        configuration.hardIron = [1, 2, 3]
        #expect(try WalkerSimulator(configuration: configuration, fieldSource: field).hardIron == [1, 2, 3])
        // The raw field is off-centre: its mean over the figure-8 is near the hard iron, not near zero.
        let samples = walker.advance(to: 5).imuSamples
        #expect(samples.allSatisfy { abs($0.mag.map { $0 * $0 }.reduce(0, +).squareRoot() - 48.7) < 20 })
    }

    @Test("An interference zone changes the field only inside it")
    func interference() throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.route = .straight(heading: 0)
        configuration.interferenceZones = [
            InterferenceZone(center: LocalPoint(north: 30, east: 0), radius: 5, disturbance: [0, 15, 0])
        ]
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let events = walker.advance(to: 40)
        let truths = events.truthSamples
        let samples = events.imuSamples
        func strength(_ s: IMUSample) -> Double { s.mag.map { $0 * $0 }.reduce(0, +).squareRoot() }
        let undisturbed = (field.north * field.north + field.east * field.east + field.down * field.down).squareRoot()
        for truth in truths {
            guard let sample = samples.first(where: { $0.t == truth.t }) else { continue }
            if abs(truth.x - 30) < 3.9 {
                #expect(abs(strength(sample) - undisturbed) > 1, "inside at x = \(truth.x)")
            } else if abs(truth.x - 30) > 5.1 {
                #expect(abs(strength(sample) - undisturbed) < 1e-9, "outside at x = \(truth.x)")
            }
        }
    }

    @Test("Bad configurations and an unavailable field are rejected")
    func validation() throws {
        var configuration = WalkerConfiguration()
        configuration.imuRate = 0
        #expect(throws: WalkerSimulationError.invalidConfiguration) { try WalkerSimulator(configuration: configuration, fieldSource: field) }
        configuration = WalkerConfiguration()
        configuration.startLatitude = .nan
        #expect(throws: WalkerSimulationError.invalidConfiguration) { try WalkerSimulator(configuration: configuration, fieldSource: field) }
        configuration = WalkerConfiguration()
        configuration.route = .loop([])
        #expect(throws: WalkerSimulationError.invalidConfiguration) { try WalkerSimulator(configuration: configuration, fieldSource: field) }
        configuration = WalkerConfiguration()
        configuration.hardIron = [1, 2]
        #expect(throws: WalkerSimulationError.invalidConfiguration) { try WalkerSimulator(configuration: configuration, fieldSource: field) }

        struct Failing: GeomagneticFieldSource {
            struct Failure: Error {}
            func geomagneticField(
                latitude: Double, longitude: Double, altitude: Double, date: Date
            ) throws -> (north: Double, east: Double, down: Double) {
                throw Failure()
            }
        }
        #expect(throws: WalkerSimulationError.fieldUnavailable) { try WalkerSimulator(fieldSource: Failing()) }
    }

    @Test("A random walk and a straight route both run and stay deterministic")
    func otherRoutes() throws {
        var configuration = WalkerConfiguration()
        configuration.route = .randomWalk(meanLegLength: 40, turnStandardDeviation: 60)
        var a = try WalkerSimulator(configuration: configuration, fieldSource: field)
        var b = try WalkerSimulator(configuration: configuration, fieldSource: field)
        #expect(a.advance(to: 120) == b.advance(to: 120))
        #expect(a.distanceWalked > 150)

        configuration.route = .straight(heading: 250)
        var straight = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let last = try #require(straight.advance(to: 60).truthSamples.last)
        #expect(abs(last.heading - 250) < 1e-9)
        #expect(abs(atan2(last.y, last.x) * 180 / .pi + 360 - 250) < 1e-6)
    }
}
