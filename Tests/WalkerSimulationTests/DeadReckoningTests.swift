import Foundation
import PositionKit
import Testing
import WalkerSimulation

@Suite("Dead reckoning against the simulated truth")
struct DeadReckoningTests {
    @Test(
        "Steps and truth headings through PositionCalculator end within 5 % of the walked distance after 300 m",
        arguments: [UInt64(1), 2, 3, 11, 2026])
    func deadReckoning(seed: UInt64) throws {
        var configuration = WalkerConfiguration()
        configuration.seed = seed
        configuration.truthRate = 50  // the heading at every IMU tick, so each batch uses the heading of its moment
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: ConstantGeomagneticField.munich)
        var calculator = try PositionCalculator()
        var t = 0.0
        var lastTruth: (x: Double, y: Double)?
        while walker.distanceWalked < 300 {
            t += 1
            for event in walker.advance(to: t) {
                switch event {
                case .truth(_, _, _, let heading, let x, let y, _):
                    _ = try calculator.applyHeading(heading)
                    lastTruth = (x, y)
                case .steps(let count, _):
                    _ = try calculator.applySteps(count)
                default:
                    break
                }
            }
        }
        let truth = try #require(lastTruth)
        let error = hypot(calculator.state.x - truth.x, calculator.state.y - truth.y)
        let share = error / walker.distanceWalked
        let walked = String(format: "%.1f", walker.distanceWalked)
        print("dead reckoning seed \(seed): \(walked) m walked, error \(String(format: "%.2f m = %.2f %%", error, 100 * share))")
        #expect(share < 0.05)
        #expect(calculator.state.steps == walker.steps)
    }
}
