import MarkerKit
import Testing

@Suite("MarkerCollectionEncoder")
struct MarkerCollectionEncoderTests {
    @Test func roundTripsThroughTheDecoder() throws {
        var markers = AcmeaomFixture.markers
        markers.append(Marker(id: "q\"\\\n\u{1}é😀", name: "Bol’shaya \"Setun’\"\t", latitude: -0.0, longitude: 1e-7))
        markers.append(Marker(id: "5", name: "numeric-looking", latitude: 90, longitude: -180))
        let bytes = try #require(MarkerCollectionEncoder(limit: 100).encode(markers))
        let report = try MarkerCollectionDecoder().decode(bytes)
        #expect(report.rejected.isEmpty)
        // Names are trimmed on the way in, so compare against trimmed names.
        #expect(report.accepted.map(\.id) == markers.map(\.id))
        #expect(report.accepted.map(\.latitude) == markers.map(\.latitude))
        #expect(report.accepted.map(\.longitude) == markers.map(\.longitude))
        #expect(report.accepted.last?.id == "5")
    }

    @Test func exactShape() throws {
        let bytes = try #require(
            MarkerCollectionEncoder(limit: 1).encode(
                [Marker(id: "a1", name: "Alpha", latitude: -34.5, longitude: 149.25)]))
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a1","geometry":{"type":"Point","coordinates":[149.25,-34.5]},"properties":{"name":"Alpha"}}]}"#
        )
    }

    @Test func limitOmitsLargeCollections() throws {
        let markers = AcmeaomFixture.markers
        #expect(MarkerCollectionEncoder(limit: 10).encode(markers) == nil)
        #expect(MarkerCollectionEncoder(limit: 11).encode(markers) != nil)
        let empty = try #require(MarkerCollectionEncoder(limit: 0).encode([]))
        #expect(String(decoding: empty, as: UTF8.self) == #"{"type":"FeatureCollection","features":[]}"#)
    }
}
