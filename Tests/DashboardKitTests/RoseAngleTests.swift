import DashboardKit
import Testing

@Suite("RoseAngle: the rose always turns the short way")
struct RoseAngleTests {
    @Test("Across north the angle keeps going instead of jumping back")
    func acrossNorth() {
        var rose = RoseAngle()
        #expect(rose.degrees == nil)
        rose.turn(to: 350)
        rose.turn(to: 10)
        #expect(rose.degrees == 370)
        rose.turn(to: 340)
        #expect(rose.degrees == 340)
        rose.turn(to: 20)
        rose.turn(to: 60)
        #expect(rose.degrees == 420)
    }

    @Test("Every step is at most half a turn, and the angle modulo 360 is the heading")
    func shortestSteps() throws {
        var rose = RoseAngle()
        var previous: Double?
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let heading = Double.random(in: 0..<360, using: &random)
            rose.turn(to: heading)
            let angle = try #require(rose.degrees)
            if let previous { #expect(abs(angle - previous) <= 180.000_001) }
            var wrapped = angle.truncatingRemainder(dividingBy: 360)
            if wrapped < 0 { wrapped += 360 }
            #expect(abs(wrapped - heading) < 1e-6 || abs(abs(wrapped - heading) - 360) < 1e-6)
            previous = angle
        }
    }

    @Test("A non-finite heading is ignored")
    func nonFinite() {
        var rose = RoseAngle()
        rose.turn(to: 90)
        rose.turn(to: .nan)
        #expect(rose.degrees == 90)
    }
}
