import Foundation
import MarkerKit
import StepCompassTesting
import Testing

/// The k-d tree must agree exactly with a brute-force Haversine sort, ties by id bytes.
@Suite("SpatialIndex")
struct SpatialIndexTests {
    /// The reference answer: every other marker, sorted by (distance, id bytes).
    static func bruteForce(
        _ markers: [Marker], latitude: Double, longitude: Double, count: Int,
        excluding excluded: Int? = nil
    ) -> [NearestResult] {
        var all: [NearestResult] = []
        for (i, m) in markers.enumerated() where i != excluded {
            let d = Haversine.distanceMiles(
                latitude1: latitude, longitude1: longitude,
                latitude2: m.latitude, longitude2: m.longitude)
            all.append(NearestResult(marker: m, distanceMiles: d))
        }
        all.sort {
            $0.distanceMiles != $1.distanceMiles
                ? $0.distanceMiles < $1.distanceMiles
                : MarkerID($0.marker.id) < MarkerID($1.marker.id)
        }
        return Array(all.prefix(count))
    }

    static func randomMarkers(_ n: Int, seed: UInt64) -> [Marker] {
        var rng = SeededGenerator(seed: seed)
        return (0..<n).map { i in
            let lat: Double
            let lon: Double
            switch i % 5 {
            case 0:  // near the poles
                lat = (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 89...90, using: &rng)
                lon = Double.random(in: -180...180, using: &rng)
            case 1:  // near the antimeridian
                lat = Double.random(in: -60...60, using: &rng)
                lon = (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 179...180, using: &rng)
            default:  // uniform on the sphere
                lat = asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
                lon = Double.random(in: -180...180, using: &rng)
            }
            return Marker(id: "m\(i)", name: "n\(i % 7)", latitude: lat, longitude: lon)
        }
    }

    @Test(arguments: [1, 2, 9, 17, 100, 3_000])
    func matchesBruteForceForRandomQueries(size: Int) {
        let markers = Self.randomMarkers(size, seed: UInt64(size))
        let index = SpatialIndex(markers: markers)
        var rng = SeededGenerator(seed: 99)
        for q in 0..<300 {
            let lat: Double
            let lon: Double
            switch q % 4 {
            case 0:
                lat = Double.random(in: 88...90, using: &rng) * (q % 8 == 0 ? 1 : -1)
                lon = Double.random(in: -180...180, using: &rng)
            case 1:
                lat = Double.random(in: -30...30, using: &rng)
                lon = Double.random(in: 179.5...180, using: &rng) * (q % 8 == 1 ? 1 : -1)
            default:
                lat = Double.random(in: -90...90, using: &rng)
                lon = Double.random(in: -180...180, using: &rng)
            }
            let k = [1, 3, 5, 50][q % 4]
            let got = index.nearest(latitude: lat, longitude: lon, count: k)
            let want = Self.bruteForce(markers, latitude: lat, longitude: lon, count: k)
            #expect(got == want, "query \(q) (\(lat), \(lon)) k=\(k)")
        }
    }

    @Test func byMarkerMatchesBruteForceAndNeverListsItself() {
        let markers = Self.randomMarkers(2_000, seed: 5)
        let index = SpatialIndex(markers: markers)
        for i in stride(from: 0, to: markers.count, by: 7) {
            let got = index.nearest(toMarkerAt: i, count: 3)
            let want = Self.bruteForce(
                markers, latitude: markers[i].latitude, longitude: markers[i].longitude,
                count: 3, excluding: i)
            #expect(got == want)
            #expect(!got.contains { $0.marker.id == markers[i].id })
        }
    }

    @Test func clusteredAndGridDataWithManyTies() {
        // A 1° grid has many exactly equal distances; sorted input also stresses the build.
        var markers: [Marker] = []
        for lat in stride(from: -90, through: 90, by: 10) {
            for lon in stride(from: -180, through: 180, by: 10) {
                markers.append(Marker(id: "g\(lat),\(lon)", name: "g", latitude: Double(lat), longitude: Double(lon)))
            }
        }
        let index = SpatialIndex(markers: markers)
        for i in stride(from: 0, to: markers.count, by: 3) {
            let got = index.nearest(toMarkerAt: i, count: 8)
            let want = Self.bruteForce(
                markers, latitude: markers[i].latitude, longitude: markers[i].longitude,
                count: 8, excluding: i)
            #expect(got == want, "\(markers[i].id)")
        }
        var rng = SeededGenerator(seed: 1)
        for _ in 0..<200 {
            let lat = Double(Int.random(in: -18...18, using: &rng) * 5)
            let lon = Double(Int.random(in: -36...36, using: &rng) * 5)
            #expect(
                index.nearest(latitude: lat, longitude: lon, count: 6)
                    == Self.bruteForce(markers, latitude: lat, longitude: lon, count: 6))
        }
    }

    @Test func manyCoincidentPoints() {
        let markers =
            (0..<200).map { Marker(id: "c\($0)", name: "same", latitude: 12.5, longitude: -45.25) }
            + [Marker(id: "far", name: "far", latitude: -12.5, longitude: 45.25)]
        let index = SpatialIndex(markers: markers)
        let got = index.nearest(toMarkerAt: 50, count: 5)
        #expect(got.map(\.marker.id) == ["c0", "c1", "c10", "c100", "c101"])  // byte order of ids
        #expect(got.allSatisfy { $0.distanceMiles == 0 })
        #expect(index.nearest(toMarkerAt: 200, count: 1).first?.marker.id == "c0")
    }

    @Test func clustersOfNearDuplicatesMatchBruteForce() {
        // Coincident and nearly coincident points (a few millimetres apart) exercise the
        // rounding margin between chord and Haversine and the fallback for many near-ties.
        var rng = SeededGenerator(seed: 77)
        var markers: [Marker] = []
        for c in 0..<40 {
            let lat = Double.random(in: -89...89, using: &rng)
            let lon = Double.random(in: -180...180, using: &rng)
            for j in 0..<Int.random(in: 1...30, using: &rng) {
                let jitter = j % 3 == 0 ? 0 : Double.random(in: -1e-7...1e-7, using: &rng)
                markers.append(Marker(id: "k\(c)-\(j)", name: "k", latitude: lat + jitter, longitude: lon - jitter))
            }
        }
        let index = SpatialIndex(markers: markers)
        for i in stride(from: 0, to: markers.count, by: 3) {
            for k in [1, 3, 20, 50] {
                #expect(
                    index.nearest(toMarkerAt: i, count: k)
                        == Self.bruteForce(
                            markers, latitude: markers[i].latitude, longitude: markers[i].longitude,
                            count: k, excluding: i), "\(markers[i].id) k=\(k)")
            }
        }
    }

    @Test func tiesAreBrokenByIDInByteOrder() {
        // Four markers at exactly the same distance from (0, 0).
        let ids = ["b", "B", "a", "é", "e\u{301}", "Z", "aa"]
        let markers = ids.enumerated().map { i, id in
            Marker(id: id, name: "t", latitude: i % 2 == 0 ? 1 : -1, longitude: 0)
        }
        let index = SpatialIndex(markers: markers)
        let got = index.nearest(latitude: 0, longitude: 0, count: 7).map(\.marker.id)
        let bytesSorted = ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(got == bytesSorted)
        #expect(got == ["B", "Z", "a", "aa", "b", "e\u{301}", "é"])
    }

    @Test func swiftStringOrderIsNotByteOrder() {
        // Why MarkerID exists: Swift compares canonically equivalent strings as equal.
        let precomposed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(precomposed == decomposed)
        #expect(!(decomposed < precomposed) && !(precomposed < decomposed))
        #expect(MarkerID(decomposed) < MarkerID(precomposed))
        #expect(MarkerID(decomposed) != MarkerID(precomposed))
        #expect(Set([MarkerID(decomposed), MarkerID(precomposed)]).count == 2)
        #expect(MarkerID.precedesInByteOrder("a", "ab"))
        #expect(!MarkerID.precedesInByteOrder("ab", "ab"))
        #expect(MarkerID.precedesInByteOrder("Z", "a"))
        #expect(MarkerID.precedesInByteOrder("\u{FFFF}", "\u{10000}"))
    }

    @Test func duplicateCoordinatesListEachOtherAtDistanceZero() {
        let markers = [
            Marker(id: "c1", name: "A", latitude: 45.042099781891125, longitude: -67.09898354941409),
            Marker(id: "c2", name: "B same spot", latitude: 45.042099781891125, longitude: -67.09898354941409),
            Marker(id: "c3", name: "C", latitude: 45, longitude: -67),
        ]
        let index = SpatialIndex(markers: markers)
        let fromC1 = index.nearest(toMarkerAt: 0, count: 2)
        #expect(fromC1.map(\.marker.id) == ["c2", "c3"])
        #expect(fromC1[0].distanceMiles == 0 && fromC1[0].roundedMiles == 0)
        #expect(index.nearest(toMarkerAt: 1, count: 1).map(\.marker.id) == ["c1"])
    }

    @Test func antimeridianAndPole() {
        let markers = [
            Marker(id: "a1", name: "east of antimeridian", latitude: 0, longitude: 179.9),
            Marker(id: "a2", name: "west of antimeridian", latitude: 0, longitude: -179.9),
            Marker(id: "a3", name: "near north pole", latitude: 89.99, longitude: 0),
            Marker(id: "a4", name: "near north pole other side", latitude: 89.99, longitude: 180),
        ]
        let index = SpatialIndex(markers: markers)
        let a1 = index.nearest(toMarkerAt: 0, count: 1)[0]
        #expect(a1.marker.id == "a2")
        #expect(a1.roundedMiles == 13.82)
        let a3 = index.nearest(toMarkerAt: 2, count: 1)[0]
        #expect(a3.marker.id == "a4")
        #expect(a3.roundedMiles == 1.38)
    }

    @Test func antipodalDistancesAreNeverNaN() {
        let pairs: [(Double, Double, Double, Double)] = [
            (0, 0, 0, 180), (0, 0, 0, -180), (90, 0, -90, 0), (45, 45, -45, -135),
            (12.345678901, 98.765, -12.345678901, -81.235), (1e-9, 0, -1e-9, 180),
        ]
        let halfCircumference = Double.pi * Haversine.earthRadiusMiles
        for (lat1, lon1, lat2, lon2) in pairs {
            let d = Haversine.distanceMiles(latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2)
            #expect(!d.isNaN)
            #expect(abs(d - halfCircumference) < 0.01)
        }
        var rng = SeededGenerator(seed: 8)
        for _ in 0..<10_000 {
            let lat = Double.random(in: -90...90, using: &rng)
            let lon = Double.random(in: -180...180, using: &rng)
            let d = Haversine.distanceMiles(
                latitude1: lat, longitude1: lon, latitude2: -lat,
                longitude2: lon > 0 ? lon - 180 : lon + 180)
            #expect(d.isFinite && d <= halfCircumference + 1e-9)
        }
        let index = SpatialIndex(markers: [Marker(id: "x", name: "x", latitude: 0, longitude: 180)])
        #expect(index.nearest(latitude: 0, longitude: 0, count: 1).first?.distanceMiles.isFinite == true)
    }

    @Test func haversineBasics() {
        #expect(Haversine.distanceMiles(latitude1: 10, longitude1: 20, latitude2: 10, longitude2: 20) == 0)
        let oneDegree = Haversine.distanceMiles(latitude1: 0, longitude1: 0, latitude2: 1, longitude2: 0)
        #expect(abs(oneDegree - Haversine.earthRadiusMiles * .pi / 180) < 1e-9)
        #expect(Haversine.roundedMiles(4364.485001) == 4364.49)
        #expect(Haversine.roundedMiles(2.004) == 2.0)
    }

    @Test func countBoundsAndEmptyIndex() {
        let markers = Self.randomMarkers(10, seed: 1)
        let index = SpatialIndex(markers: markers)
        #expect(index.nearest(latitude: 0, longitude: 0, count: 0).isEmpty)
        #expect(index.nearest(latitude: 0, longitude: 0, count: -3).isEmpty)
        #expect(index.nearest(latitude: 0, longitude: 0, count: 100).count == 10)
        #expect(index.nearest(toMarkerAt: 3, count: 100).count == 9)
        #expect(index.nearest(latitude: .nan, longitude: 0, count: 3).isEmpty)
        let empty = SpatialIndex(markers: [])
        #expect(empty.nearest(latitude: 0, longitude: 0, count: 3).isEmpty)
        let single = SpatialIndex(markers: [markers[0]])
        #expect(single.nearest(toMarkerAt: 0, count: 3).isEmpty)
    }
}
