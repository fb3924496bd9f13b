import GeoMagnetism
import Testing
import WalkerSimulation

/// Checksums of every carry, script and noise option, recorded before the simulator's maths moved to swift-numerics and
/// CompassKit's `Matrix3`: the default walker's golden test covers the hand only, these cover every other code path
/// (pocket both ways, swing, bag, armband, texting, ear, the three scripts, jitter, gaps, bias and quantization).
@Suite("Every carry's output is unchanged")
struct CarryOutputGoldenTests {
    static func configuration(_ name: String) -> WalkerConfiguration {
        var configuration = WalkerConfiguration()
        configuration.seed = 7
        switch name {
        case "pocketTopUp":
            configuration.carry = .pocket
            configuration.pocketTopDown = false
        case "onTable": configuration.activity = .onTable
        case "pickUp": configuration.activity = .pickUpAndPutDown
        case "shaken": configuration.activity = .shaken()
        case "noisy":
            configuration.imuJitter = 0.002
            configuration.imuGaps = IMUGaps(rate: 0.2, minimumLength: 0.1, maximumLength: 0.5)
            configuration.accelerometerBias = 0.05
            configuration.accelerometerQuantization = 0.01
            configuration.gyroscopeBias = 0.01
        default:
            configuration.carry = PhoneCarry(rawValue: name) ?? .hand
        }
        return configuration
    }

    @Test(
        "Each carry, script and noise option produces exactly the recorded events",
        arguments: [
            ("texting", UInt64(10_509_429_966_549_752_127), UInt64(5_796_400_624_120_024_018), 1_079),
            ("ear", 6_133_837_585_231_742_172, 14_095_464_928_654_743_383, 1_079),
            ("pocket", 18_391_259_909_816_167_463, 11_493_852_581_523_163_636, 1_079),
            ("pocketTopUp", 18_053_692_341_977_931_674, 6_209_545_980_677_955_782, 1_079),
            ("swing", 16_505_861_534_426_767_935, 1_586_041_686_207_719_339, 1_079),
            ("bag", 16_958_675_185_255_333_907, 16_078_063_187_621_499_189, 1_079),
            ("armband", 8_130_102_450_145_274_033, 6_025_979_562_016_383_328, 1_079),
            ("onTable", 6_674_955_222_814_353_504, 13_905_094_085_242_754_607, 1_043),
            ("pickUp", 8_655_349_609_839_669_942, 1_682_166_166_815_809_336, 1_043),
            ("shaken", 14_506_029_533_108_141_955, 15_606_136_066_716_522_613, 1_043),
            ("noisy", 13_096_968_178_745_899_530, 10_433_639_107_847_043_970, 996),
        ])
    func unchanged(name: String, imu1000: UInt64, all: UInt64, count: Int) throws {
        let result = try DefaultOutputGoldenTests.checksums(
            Self.configuration(name), fieldSource: ConstantGeomagneticField.munich, until: 20)
        print("carry checksums \(name): \(result)")
        #expect(result.count == count)
        #expect(result.imu1000 == imu1000, "first 1,000 IMU samples of \(name)")
        #expect(result.all == all, "all events of \(name) over 20 s")
    }
}
