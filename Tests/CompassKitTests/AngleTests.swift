import CompassKit
import Testing

@Suite struct AngleTests {
    @Test func normalisesIntoZeroTo360() {
        #expect(Angle.normalized(0) == 0)
        #expect(Angle.normalized(360) == 0)
        #expect(Angle.normalized(-90) == 270)
        #expect(Angle.normalized(725) == 5)
        #expect(Angle.normalized(-1e-15) < 360)
        #expect(Angle.normalized(-0.0).sign == .plus)
    }

    @Test func signedDifferenceIsSmallestAndInHalfOpenRange() {
        #expect(Angle.difference(from: 350, to: 10) == 20)
        #expect(Angle.difference(from: 10, to: 350) == -20)
        #expect(Angle.difference(from: 0, to: 180) == 180)
        #expect(Angle.difference(from: 180, to: 0) == 180)
        #expect(Angle.difference(from: 90, to: 90) == 0)
        #expect(Angle.difference(from: 0, to: 181) == -179)
    }

    @Test func trueHeadingAddsEastDeclination() {
        #expect(Angle.trueHeading(magnetic: 355, declination: 10) == 5)
        #expect(Angle.trueHeading(magnetic: 5, declination: -10) == 355)
    }

    @Test(arguments: [
        (0.0, Cardinal.n), (22.4999, .n), (22.5, .ne), (67.4999, .ne), (67.5, .e), (112.5, .se), (157.5, .s),
        (202.5, .sw), (247.5, .w), (292.5, .nw), (337.4999, .nw), (337.5, .n), (359.9999, .n), (-22.5, .n),
        (720, .n), (180, .s),
    ])
    func cardinalSectors(heading: Double, expected: Cardinal) {
        #expect(Cardinal(heading: heading) == expected)
    }

    @Test func cardinalRawValuesMatchTheContract() {
        #expect(Cardinal.allCases.map(\.rawValue) == ["N", "NE", "E", "SE", "S", "SW", "W", "NW"])
    }
}
