import Foundation
import GeoMagnetism
import Testing
import WalkerSimulation

/// FNV-1a over the exact bit patterns of events, so any change of any value, however small, shows.
struct EventChecksum {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func addWord(_ word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) {
            value ^= (word >> UInt64(shift)) & 0xFF
            value &*= 0x0000_0100_0000_01B3
        }
    }

    mutating func add(_ x: Double) { addWord(x.bitPattern) }
    mutating func add(_ xs: [Double]) { for x in xs { add(x) } }

    mutating func add(_ event: SimulationEvent) {
        switch event {
        case .steps(let count, let t):
            addWord(1)
            addWord(UInt64(count))
            add(t)
        case .imu(let t, let accel, let mag, let gyro):
            addWord(2)
            add(t)
            add(accel)
            add(mag)
            add(gyro)
        case .location(let t, let lat, let lon, let alt, let h, let v, let speed, let course):
            addWord(3)
            add([t, lat, lon, alt, h, v, speed, course])
        case .truth(let t, let lat, let lon, let heading, let x, let y, let steps):
            addWord(4)
            add([t, lat, lon, heading, x, y])
            addWord(UInt64(steps))
        }
    }
}

/// Checksums of the unchanged simulator's output, recorded before carries, noise bias, jitter and gaps were added:
/// the defaults must keep producing exactly these events (the end-to-end accuracy and compass-calibration tests
/// depend on today's default walker).
@Suite("Default output is unchanged")
struct DefaultOutputGoldenTests {
    static func checksums(
        _ configuration: WalkerConfiguration, fieldSource: any GeomagneticFieldSource,
        until end: Double
    ) throws -> (imu1000: UInt64, all: UInt64, count: Int) {
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: fieldSource)
        let events = walker.advance(to: end)
        var imu = EventChecksum()
        var all = EventChecksum()
        var imuCount = 0
        for event in events {
            all.add(event)
            if case .imu = event, imuCount < 1_000 {
                imu.add(event)
                imuCount += 1
            }
        }
        return (imu.value, all.value, events.count)
    }

    /// Values recorded from the unchanged simulator (commit a969865) on Linux x86_64 with Swift 6.3.1. They hash
    /// exact bit patterns, so a platform whose libm rounds sin/cos/atan2 differently may need them re-recorded (run
    /// the test and read the printed values), but on one platform any change of the default walk shows.
    @Test(
        "The default walker (and a few variants with defaulted new options) produce exactly the recorded events",
        arguments: [
            ("default", UInt64(14_155_580_071_382_896_674), UInt64(9_136_004_600_154_452_751), 3_230),
            ("seed42", 3_110_762_323_331_839_579, 16_241_617_596_746_357_919, 6_123),
            ("ideal", 8_997_778_706_774_932_584, 4_968_177_958_658_015_950, 3_230),
            ("200Hz", 3_421_141_685_940_062_641, 12_459_739_458_869_116_101, 6_116),
            ("wmm", 10_886_406_800_694_707_915, 7_432_740_081_273_965_275, 1_616),
        ])
    func unchanged(name: String, imu1000: UInt64, all: UInt64, count: Int) throws {
        var configuration = WalkerConfiguration()
        var end = 60.0
        var source: any GeomagneticFieldSource = ConstantGeomagneticField.munich
        switch name {
        case "seed42":
            configuration.seed = 42
            configuration.stepReporting = .interval(1)
            configuration.truthRate = 50
        case "ideal":
            configuration = .ideal(seed: 3)
        case "200Hz":
            configuration.imuRate = 200
            end = 30
        case "wmm":
            source = try WorldMagneticModel.wmm2025()
            end = 30
        default:
            break
        }
        // The new options, explicitly at their defaults.
        #expect(
            configuration.carry == .hand && configuration.activity == .walking && configuration.imuJitter == 0
                && configuration.imuGaps == nil && configuration.accelerometerBias == 0
                && configuration.accelerometerQuantization == 0 && configuration.gyroscopeBias == 0)
        let result = try Self.checksums(configuration, fieldSource: source, until: end)
        print("checksums \(name): \(result)")
        #expect(result.count == count)
        #expect(result.imu1000 == imu1000, "first 1,000 IMU samples of \(name)")
        #expect(result.all == all, "all events of \(name) over \(end) s")
    }
}
