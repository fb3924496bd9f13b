import Foundation
import WalkerSimulation

/// Writes a large, realistic GeoJSON FeatureCollection for `markers-load`: deterministic for a seed.
///
/// Each feature is shaped like those of Config/markers/sample-markers.geojson (a string id, a Point, a `name`) with
/// the extra properties real exports carry (a category, the city, in UTF-8), one feature a line as ogr2ogr writes
/// them, about 180 bytes each: a million features make about 180 MB. The points lie around twelve cities; one
/// feature in 10,000 has no name, so the service rejects it, as real files have a few bad entries.
enum MarkerDocumentWriter {
    /// A city: its id prefix, its name and centre.
    private struct City {
        var code: String
        var name: String
        var latitude: Double
        var longitude: Double
    }

    private static let cities: [City] = [
        City(code: "muc", name: "München", latitude: 48.137, longitude: 11.575),
        City(code: "ber", name: "Berlin", latitude: 52.520, longitude: 13.405),
        City(code: "vie", name: "Wien", latitude: 48.208, longitude: 16.373),
        City(code: "zrh", name: "Zürich", latitude: 47.377, longitude: 8.541),
        City(code: "par", name: "Paris", latitude: 48.857, longitude: 2.352),
        City(code: "lon", name: "London", latitude: 51.507, longitude: -0.128),
        City(code: "nyc", name: "New York", latitude: 40.713, longitude: -74.006),
        City(code: "sfo", name: "San Francisco", latitude: 37.775, longitude: -122.419),
        City(code: "tyo", name: "東京", latitude: 35.682, longitude: 139.759),
        City(code: "syd", name: "Sydney", latitude: -33.869, longitude: 151.209),
        City(code: "sao", name: "São Paulo", latitude: -23.551, longitude: -46.633),
        City(code: "cpt", name: "Cape Town", latitude: -33.925, longitude: 18.424),
    ]

    /// Place names and their categories.
    private static let places: [(name: String, category: String)] = [
        ("Biergarten", "beer_garden"), ("Aussichtspunkt", "viewpoint"), ("Brunnen", "fountain"), ("Museum", "museum"),
        ("Spielplatz", "playground"), ("Haltestelle", "bus_stop"), ("Kirche", "place_of_worship"), ("Denkmal", "memorial"),
        ("Café", "cafe"), ("Bibliothek", "library"), ("Parkbank", "bench"), ("Trinkwasser", "drinking_water"),
    ]

    /// Writes `features` features to `path`; returns the bytes written and the features the service will accept.
    static func write(features: Int, seed: UInt64, to path: String) throws -> (bytes: Int, accepted: Int) {
        let accepted = features - features / 10_000
        guard let handle = fopen(path, "wb") else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        defer { fclose(handle) }
        var generator = SplitMix64(seed: seed)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 22)
        var written = 0
        func flush() {
            buffer.withUnsafeBufferPointer { _ = fwrite($0.baseAddress, 1, $0.count, handle) }
            written += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }
        buffer.append(contentsOf: #"{"type":"FeatureCollection","features":["#.utf8)
        buffer.append(0x0A)
        let cityNames = cities.map { Array($0.name.utf8) }
        let placeNames = places.map { Array($0.name.utf8) }
        let categories = places.map { Array($0.category.utf8) }
        for index in 0..<features {
            let cityIndex = Int(generator.next() % UInt64(cities.count))
            let placeIndex = Int(generator.next() % UInt64(places.count))
            let city = cities[cityIndex]
            let latitude = city.latitude + (generator.nextFraction() - 0.5) * 0.6
            let longitude = city.longitude + (generator.nextFraction() - 0.5) * 0.9
            buffer.append(contentsOf: #"{"type":"Feature","id":""#.utf8)
            buffer.append(contentsOf: city.code.utf8)
            buffer.append(UInt8(ascii: "-"))
            DecimalDigits.append(Int64(index + 1), width: 7, to: &buffer)
            buffer.append(contentsOf: #"","geometry":{"type":"Point","coordinates":["#.utf8)
            appendDegrees(longitude, to: &buffer)
            buffer.append(UInt8(ascii: ","))
            appendDegrees(latitude, to: &buffer)
            buffer.append(contentsOf: #"]},"properties":{"#.utf8)
            if index % 10_000 != 9_999 {
                buffer.append(contentsOf: #""name":""#.utf8)
                buffer.append(contentsOf: placeNames[placeIndex])
                buffer.append(UInt8(ascii: " "))
                DecimalDigits.append(Int64(index + 1), to: &buffer)
                buffer.append(contentsOf: #"","#.utf8)
            }
            buffer.append(contentsOf: #""category":""#.utf8)
            buffer.append(contentsOf: categories[placeIndex])
            buffer.append(contentsOf: #"","city":""#.utf8)
            buffer.append(contentsOf: cityNames[cityIndex])
            buffer.append(contentsOf: #""}}"#.utf8)
            if index < features - 1 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(0x0A)
            if buffer.count >= 1 << 22 { flush() }
        }
        buffer.append(contentsOf: "]}\n".utf8)
        flush()
        guard ferror(handle) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        return (written, accepted)
    }

    /// Degrees with six decimals (about 10 cm), as exporters write them.
    private static func appendDegrees(_ value: Double, to buffer: inout [UInt8]) {
        let micro = Int((value * 1e6).rounded())
        if micro < 0 { buffer.append(UInt8(ascii: "-")) }
        let magnitude = abs(micro)
        DecimalDigits.append(Int64(magnitude / 1_000_000), to: &buffer)
        buffer.append(UInt8(ascii: "."))
        DecimalDigits.append(Int64(magnitude % 1_000_000), width: 6, to: &buffer)
    }
}
