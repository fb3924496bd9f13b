import JournalKit
import Testing

@Suite("GeoCoordinate")
struct GeoCoordinateTests {
    @Test("range check")
    func range() {
        #expect(GeoCoordinate(latitude: 52.5, longitude: 13.4).isValid)
        #expect(!GeoCoordinate(latitude: 91, longitude: 0).isValid)
        #expect(!GeoCoordinate(latitude: .nan, longitude: 0).isValid)
    }
}
