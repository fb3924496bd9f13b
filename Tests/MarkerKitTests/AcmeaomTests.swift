import MarkerKit
import Testing

/// The assignment's 11 markers: the shape of the original exercise, checked against the
/// published nearest-3 figures (Haversine, R = 3958.8 miles, two decimals).
@Suite("Acmeaom Alpha…Kilo")
struct AcmeaomTests {
    @Test func nearestThreeOfEveryMarkerMatchesTheExpectedFigures() throws {
        let index = MarkerIndex(markers: AcmeaomFixture.markers)
        #expect(index.count == 11)
        for marker in AcmeaomFixture.markers {
            let expected = try #require(AcmeaomFixture.expectedNearest3[marker.name])
            let nearest = try index.nearest(toID: marker.id, count: 3)
            #expect(nearest.map(\.marker.name) == expected.map(\.0), "\(marker.name)")
            #expect(nearest.map { String(format2: $0.roundedMiles) } == expected.map(\.1), "\(marker.name)")
            #expect(!nearest.contains { $0.marker.id == marker.id })
        }
    }

    @Test func alphaToCharlie() {
        let alpha = AcmeaomFixture.markers[0]
        let charlie = AcmeaomFixture.markers[2]
        let miles = Haversine.distanceMiles(alpha, charlie)
        #expect(Haversine.roundedMiles(miles) == 4364.49)
        #expect(abs(miles - 4364.49) < 0.005)
    }

    @Test func askingForMoreThanExistReturnsAllOthers() throws {
        let index = MarkerIndex(markers: AcmeaomFixture.markers)
        let all = try index.nearest(toID: AcmeaomFixture.markers[0].id, count: 50)
        #expect(all.count == 10)
        #expect(all.map(\.distanceMiles) == all.map(\.distanceMiles).sorted())
        let fromCoordinate = try index.nearest(latitude: 0, longitude: 0, count: 50)
        #expect(fromCoordinate.count == 11)
    }
}

extension String {
    /// Two decimals, as the reference figures are written ("2170.30").
    init(format2 value: Double) {
        let cents = Int((value * 100).rounded())
        let fraction = abs(cents % 100)
        self = "\(cents / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
