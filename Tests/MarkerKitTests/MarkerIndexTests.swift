import MarkerKit
import Testing

@Suite("MarkerIndex")
struct MarkerIndexTests {
    let index = MarkerIndex(markers: AcmeaomFixture.markers)

    @Test func unknownIDIsNotFound() {
        #expect(throws: MarkerQueryError.notFound) { try index.nearest(toID: "nope") }
        do { _ = try index.nearest(toID: "nope") } catch {
            #expect(error.codeName == "notFound")
            #expect(error.message.contains("nope"))
        }
    }

    @Test(arguments: [0, -1, 51, 1_000])
    func countOutside1To50IsBadRequest(count: Int) {
        #expect(throws: MarkerQueryError.badRequest) { try index.nearest(toID: AcmeaomFixture.markers[0].id, count: count) }
        #expect(throws: MarkerQueryError.badRequest) { try index.nearest(latitude: 0, longitude: 0, count: count) }
    }

    @Test func countBoundsAreInclusive() throws {
        #expect(try index.nearest(toID: AcmeaomFixture.markers[0].id, count: 1).count == 1)
        #expect(try index.nearest(toID: AcmeaomFixture.markers[0].id, count: 50).count == 10)
        #expect(try index.nearest(toID: AcmeaomFixture.markers[0].id).count == 3)  // default
    }

    @Test(arguments: [(91.0, 0.0), (-90.5, 0.0), (0.0, 180.5), (0.0, -181.0), (.nan, 0.0), (0.0, .infinity)])
    func outOfRangeCoordinatesAreBadRequest(latitude: Double, longitude: Double) {
        #expect(throws: MarkerQueryError.badRequest) { try index.nearest(latitude: latitude, longitude: longitude) }
        do { _ = try index.nearest(latitude: latitude, longitude: longitude) } catch {
            #expect(error.codeName == "badRequest")
        }
    }

    @Test func coordinateQueryIncludesAMarkerAtThatSpot() throws {
        let alpha = AcmeaomFixture.markers[0]
        let nearest = try index.nearest(latitude: alpha.latitude, longitude: alpha.longitude, count: 2)
        #expect(nearest.map(\.marker.name) == ["Alpha", "Charlie"])
        #expect(nearest[0].distanceMiles == 0)
    }

    @Test func lookupIsByExactIDBytes() throws {
        let markers = [
            Marker(id: "\u{E9}", name: "precomposed", latitude: 1, longitude: 1),
            Marker(id: "e\u{301}", name: "decomposed", latitude: 2, longitude: 2),
        ]
        let index = MarkerIndex(markers: markers)
        #expect(index.count == 2)
        #expect(index.marker(withID: "\u{E9}")?.name == "precomposed")
        #expect(index.marker(withID: "e\u{301}")?.name == "decomposed")
        #expect(try index.nearest(toID: "\u{E9}", count: 1).map(\.marker.name) == ["decomposed"])
    }

    @Test func laterDuplicateIDsAreDropped() {
        let index = MarkerIndex(markers: [
            Marker(id: "d", name: "first", latitude: 0, longitude: 0),
            Marker(id: "d", name: "second", latitude: 1, longitude: 1),
            Marker(id: "e", name: "other", latitude: 2, longitude: 2),
        ])
        #expect(index.count == 2)
        #expect(index.marker(withID: "d")?.name == "first")
    }

    @Test func aDuplicateFoundLateStartsOverKeepingTheFirst() throws {
        var markers = (0..<100).map { Marker(id: "m\($0)", name: "n\($0)", latitude: Double($0) * 0.5 - 25, longitude: Double($0)) }
        markers.append(Marker(id: "m50", name: "later", latitude: 10, longitude: 10))
        markers.append(Marker(id: "last", name: "after the duplicate", latitude: 11, longitude: 11))
        let index = MarkerIndex(markers: markers)
        #expect(index.count == 101)
        #expect(index.markers.map(\.id) == (0..<100).map { "m\($0)" } + ["last"])
        for marker in index.markers {
            #expect(index.marker(withID: marker.id) == marker)
        }
        #expect(index.marker(withID: "m50")?.name == "n50")
        #expect(try index.nearest(toID: "last", count: 1).first?.marker.id != "last")
    }

    @Test func uniqueMarkersAreIndexedAsGiven() {
        let markers = (0..<1_000).map { Marker(id: "u\($0)", name: "n", latitude: Double($0 % 180) - 89.5, longitude: Double($0 % 360) - 179.5) }
        let index = MarkerIndex(markers: markers)
        #expect(index.markers == markers)
        #expect(markers.allSatisfy { index.marker(withID: $0.id) == $0 })
    }

    @Test func emptyIndexAnswersEmpty() throws {
        let empty = MarkerIndex(markers: [])
        #expect(try empty.nearest(latitude: 0, longitude: 0).isEmpty)
        #expect(throws: MarkerQueryError.notFound) { try empty.nearest(toID: "x") }
    }
}
