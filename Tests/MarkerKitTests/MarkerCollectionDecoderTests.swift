import Foundation
import MarkerKit
import StepCompassTesting
import Testing

/// Each fixture is a small literal document reproducing one quirk of real GeoJSON files.
@Suite("MarkerCollectionDecoder")
struct MarkerCollectionDecoderTests {
    let decoder = MarkerCollectionDecoder()

    func decode(_ text: String) throws(MarkerDecodingError) -> DecodeReport {
        try decoder.decode(Array(text.utf8))
    }

    func point(_ id: String, _ lon: String, _ lat: String, name: String = "\"P\"") -> String {
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"name":\#(name)},"id":\#(id)}"#
    }

    func collection(_ features: String...) -> String {
        #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
    }

    @Test func acmeaomDocumentDecodesAllElevenWithMixedMemberOrder() throws {
        let report = try decode(AcmeaomFixture.document)
        #expect(report.rejected.isEmpty)
        #expect(report.accepted == AcmeaomFixture.markers)
        #expect(
            report.accepted.map(\.name) == [
                "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot",
                "Golf", "Hotel", "India", "Juliett", "Kilo",
            ])
    }

    @Test func decodesFromData() throws {
        let report = try decoder.decode(Data(AcmeaomFixture.document.utf8))
        #expect(report.accepted.count == 11)
        let fromString = try decoder.decode(AcmeaomFixture.document)
        #expect(fromString == report)
    }

    @Test func numericIDBecomesTheLiteralTextOfItsNumber() throws {
        let report = try decode(
            collection(
                point("856", "-67.09898354941409", "45.042099781891125"),
                point("5", "1", "1"),
                point("5.0", "2", "2"),
                point("-0", "3", "3"),
                point("1e3", "4", "4"),
                point("12345678901234567890123", "5", "5")))
        #expect(report.rejected.isEmpty)
        #expect(report.accepted.map(\.id) == ["856", "5", "5.0", "-0", "1e3", "12345678901234567890123"])
        #expect(report.accepted[0].latitude == 45.042099781891125)
        #expect(report.accepted[0].longitude == -67.09898354941409)
    }

    @Test func numericAndStringIDWithTheSameTextAreDuplicates() throws {
        let report = try decode(collection(point("5", "1", "1"), point("\"5\"", "2", "2")))
        #expect(report.accepted.map(\.id) == ["5"])
        #expect(report.rejected.map(\.reason) == [.duplicateID])
    }

    @Test func idFallsBackToPropertiesID() throws {
        let text = collection(
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"A","id":42}}"#,
            #"{"type":"Feature","id":null,"geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"B","id":"b"}}"#,
            #"{"type":"Feature","id":"top","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"C","id":"ignored"}}"#,
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"D"}}"#)
        let report = try decode(text)
        #expect(report.accepted.map(\.id) == ["42", "b", "top"])
        #expect(report.rejected.map(\.reason) == [.missingID])
        #expect(report.rejected.first?.index == 3)
    }

    @Test func invalidIDsAreRejected() throws {
        let report = try decode(
            collection(
                point("true", "1", "1"), point("{}", "1", "1"), point("[1]", "1", "1"), point("\"\"", "1", "1"),
                point("NaN", "1", "1")))
        #expect(report.accepted.isEmpty)
        #expect(report.rejected.map(\.reason) == Array(repeating: .invalidID, count: 5))
    }

    @Test func nullGeometryIsRejectedNotFatal() throws {
        let report = try decode(
            collection(
                #"{"type":"Feature","geometry":null,"properties":{"name":"Unlocated"},"id":"u1"}"#,
                point("\"ok\"", "1", "2")))
        #expect(report.accepted.map(\.id) == ["ok"])
        #expect(report.rejected == [Rejection(index: 0, id: "u1", reason: .nullGeometry, message: "geometry is null")])
    }

    @Test func missingGeometryIsRejected() throws {
        let report = try decode(collection(#"{"type":"Feature","properties":{"name":"A"},"id":"g"}"#))
        #expect(report.rejected.map(\.reason) == [.missingGeometry])
    }

    @Test func nullPropertiesIsRejected() throws {
        let report = try decode(
            collection(
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-67.09898354941409,45.042099781891125]},"properties":null,"id":"p1"}"#))
        #expect(report.accepted.isEmpty)
        #expect(report.rejected.map(\.reason) == [.nullProperties])
        #expect(report.rejected.first?.id == "p1")
    }

    @Test func nonPointGeometriesAreRejected() throws {
        let report = try decode(
            collection(
                #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{"name":"line"},"id":"l1"}"#,
                #"{"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[[0,0]]},"properties":{"name":"mp"},"id":"l2"}"#,
                #"{"type":"Feature","geometry":{"type":"GeometryCollection","geometries":[]},"properties":{"name":"gc"},"id":"l3"}"#,
                #"{"type":"Feature","geometry":"POINT(1 2)","properties":{"name":"wkt"},"id":"l4"}"#))
        #expect(report.rejected.map(\.reason) == Array(repeating: .nonPointGeometry, count: 4))
        #expect(report.rejected[0].message.contains("LineString"))
    }

    @Test func geometryTypeMayFollowCoordinates() throws {
        let report = try decode(
            collection(
                #"{"id":"x","properties":{"name":"X"},"geometry":{"coordinates":[10,20],"type":"Point"},"type":"Feature"}"#))
        #expect(report.accepted == [Marker(id: "x", name: "X", latitude: 20, longitude: 10)])
    }

    @Test func altitudeIsAcceptedAndIgnored() throws {
        let report = try decode(collection(point("\"z1\"", "-67.09898354941409", "45.042099781891125,12.5")))
        #expect(report.accepted == [Marker(id: "z1", name: "P", latitude: 45.042099781891125, longitude: -67.09898354941409)])
    }

    @Test func badCoordinatesAreRejected() throws {
        let report = try decode(
            collection(
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1]},"properties":{"name":"A"},"id":"c1"}"#,
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":["1","2"]},"properties":{"name":"A"},"id":"c2"}"#,
                #"{"type":"Feature","geometry":{"type":"Point"},"properties":{"name":"A"},"id":"c3"}"#,
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":{}},"properties":{"name":"A"},"id":"c4"}"#,
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[]},"properties":{"name":"A"},"id":"c5"}"#))
        #expect(report.rejected.map(\.reason) == Array(repeating: .invalidCoordinates, count: 5))
    }

    @Test func nonFiniteNumbersAreRejected() throws {
        let report = try decode(
            collection(
                point("\"n1\"", "NaN", "1"), point("\"n2\"", "1", "Infinity"), point("\"n3\"", "-Infinity", "1"),
                point("\"n4\"", "1e999", "1"), point("\"n5\"", "1", "2, NaN")))
        #expect(report.accepted.isEmpty)
        #expect(report.rejected.map(\.reason) == Array(repeating: .nonFiniteCoordinate, count: 5))
    }

    @Test func swappedLatitudeAndLongitude() throws {
        let report = try decode(
            collection(
                point("\"s1\"", "43.468159", "-80.543376"),  // swapped, but still in range: undetectable
                point("\"s2\"", "49.2200776", "-122.9906622"),  // swapped, latitude out of range
                point("\"s3\"", "181", "0"),  // longitude out, swapping would not fit
                point("\"s4\"", "200", "95")))  // both out
        #expect(report.accepted.map(\.id) == ["s1"])
        #expect(report.rejected.map(\.reason) == [.coordinateOutOfRange, .coordinateOutOfRange, .coordinateOutOfRange])
        #expect(report.rejected[0].message.contains("out of range (latitude/longitude swapped?)"))
        #expect(report.rejected[0].message.contains("latitude -122.9906622"))
        #expect(!report.rejected[1].message.contains("swapped"))
        #expect(report.rejected[1].message.contains("longitude 181"))
        #expect(!report.rejected[2].message.contains("swapped"))
    }

    @Test func rangeBoundsAreInclusive() throws {
        let report = try decode(collection(point("\"b1\"", "180", "90"), point("\"b2\"", "-180", "-90")))
        #expect(report.rejected.isEmpty)
        #expect(report.accepted.count == 2)
    }

    @Test func missingOrEmptyNameIsRejected() throws {
        let report = try decode(
            collection(
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{},"id":"n1"}"#,
                point("\"n2\"", "1", "2", name: "\"\""),
                point("\"n3\"", "1", "2", name: "\"  \\t\\n \""),
                point("\"n4\"", "1", "2", name: "17"),
                point("\"n5\"", "1", "2", name: "null"),
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"id":"n6"}"#))
        #expect(report.accepted.isEmpty)
        #expect(report.rejected.map(\.reason) == Array(repeating: .missingName, count: 6))
        #expect(report.countsByReason == [.missingName: 6])
    }

    @Test func namesAreTrimmedAndMayRepeat() throws {
        let report = try decode(
            collection(
                point("\"a\"", "1", "2", name: "\"  Springfield\\u00a0\""),
                point("\"b\"", "3", "4", name: "\"Springfield\"")))
        #expect(report.accepted.map(\.name) == ["Springfield", "Springfield"])
    }

    @Test func escapedAndNonASCIIStrings() throws {
        let report = try decode(
            collection(
                point(#""q\"\\\/\u00e9\ud83d\ude00""#, "1", "2", name: #""Bol’shaya Setun’ \u2603""#)))
        #expect(report.accepted.first?.id == "q\"\\/é😀")
        #expect(report.accepted.first?.name == "Bol’shaya Setun’ ☃")
    }

    @Test func duplicateIDFirstAcceptedWins() throws {
        let report = try decode(
            collection(
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-67.09898354941409,45.042099781891125]},"properties":{"name":"A"},"id":"d1"}"#,
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-108.984375,38.8225909761771]},"properties":{"name":"B"},"id":"d1"}"#))
        #expect(report.accepted.map(\.name) == ["A"])
        #expect(report.rejected.map(\.reason) == [.duplicateID])
        #expect(report.rejected.first?.index == 1)
        #expect(report.rejected.first?.id == "d1")
    }

    @Test func aRejectedFeatureDoesNotReserveItsID() throws {
        let report = try decode(
            collection(
                #"{"type":"Feature","geometry":null,"properties":{"name":"A"},"id":"d1"}"#,
                point("\"d1\"", "1", "2")))
        #expect(report.accepted.map(\.id) == ["d1"])
        #expect(report.rejected.map(\.reason) == [.nullGeometry])
    }

    @Test func canonicallyEquivalentIDsAreDistinct() throws {
        let report = try decode(collection(point("\"\u{E9}\"", "1", "2"), point("\"e\u{301}\"", "3", "4")))
        #expect(report.rejected.isEmpty)
        #expect(report.accepted.count == 2)
    }

    @Test func duplicateCoordinatesAreBothAccepted() throws {
        let report = try decode(
            collection(
                point("\"c1\"", "-67.09898354941409", "45.042099781891125"),
                point("\"c2\"", "-67.09898354941409", "45.042099781891125")))
        #expect(report.accepted.map(\.id) == ["c1", "c2"])
    }

    @Test func nonFeatureElementsAreRejected() throws {
        let report = try decode(
            collection(
                "1", "null", "[]",
                #"{"type":"Point","coordinates":[1,2]}"#,
                #"{"type":"feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"A"},"id":"f"}"#,
                #"{"geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"A"},"id":"untyped"}"#,
                point("\"ok\"", "1", "2")))
        #expect(report.rejected.map(\.reason) == [.notAnObject, .notAnObject, .notAnObject, .notAFeature, .notAFeature])
        #expect(report.rejected.map(\.index) == [0, 1, 2, 3, 4])
        #expect(report.rejected[3].message.contains("\"Point\""))
        #expect(report.accepted.map(\.id) == ["untyped", "ok"])
        #expect(report.featureCount == 7)
    }

    @Test func countsByReason() throws {
        let report = try decode(
            collection(
                point("\"a\"", "1", "2"), point("\"a\"", "1", "2"), point("\"a\"", "1", "2"),
                point("\"b\"", "1", "200")))
        #expect(report.countsByReason == [.duplicateID: 2, .coordinateOutOfRange: 1])
    }

    @Test func foreignMembersAndEmptyCollection() throws {
        let text = #"{"bbox":[0,0,1,1],"type":"FeatureCollection","crs":{"type":"name"},"features":[],"x":[{"a":[true,false,null,-1.5e-3]}]}"#
        let report = try decode(text)
        #expect(report.accepted.isEmpty && report.rejected.isEmpty)
    }

    @Test func byteOrderMarkAndWhitespaceAreAccepted() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(" \n\t\r{ \"type\" : \"FeatureCollection\" , \"features\" : [ ] } \n".utf8)
        let report = try decoder.decode(bytes)
        #expect(report.accepted.isEmpty)
    }

    @Test func trailingCommaIsInvalidJSON() {
        let text =
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-67.09898354941409,45.042099781891125]},"properties":{"name":"A"},"id":"t1"},]}"#
        let offset = text.utf8.count - 2  // the "]" after the comma
        #expect(throws: MarkerDecodingError.invalidJSON(offset: offset)) { try decode(text) }
    }

    @Test func truncatedDocumentIsInvalidJSON() throws {
        let full = collection(point("\"a\"", "1", "2"))
        for cut in [1, 10, 40, full.utf8.count - 1] {
            let text = String(full.utf8.prefix(cut))!
            do {
                _ = try decode(text)
                Issue.record("a document cut at \(cut) decoded")
            } catch {
                #expect(error.codeName == "invalidJSON")
                #expect(error.offset == cut)
                #expect(error.message.contains("unexpected end of input"))
            }
        }
    }

    @Test func invalidJSONVariants() {
        for text in [
            "", "   ", "{", "{\"type\":}", "[1,]", "{\"a\":01}", "{\"a\":\"\u{01}\"}", "{\"a\":\"\\x\"}",
            "{\"a\":1} x", "{'a':1}", "{\"a\":tru}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":1e}", "{\"a\":NaNa}",
        ] {
            #expect(throws: MarkerDecodingError.self, "\(text)") { try decode(text) }
            do { _ = try decode(text) } catch { #expect(error.codeName == "invalidJSON", "\(text)") }
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let text = #"{"type":"FeatureCollection","features":[],"x":\#(deep)}"#
        #expect(throws: MarkerDecodingError.self) { try decode(text) }
        do { _ = try decode(text) } catch { #expect(error.codeName == "invalidJSON") }
        // Ordinary GeoJSON depth (MultiPolygon coordinates inside a feature) is fine.
        let nested = #"{"type":"FeatureCollection","features":[],"x":[[[[[[[[[[1]]]]]]]]]]}"#
        #expect(throws: Never.self) { try decode(nested) }
    }

    @Test func notAFeatureCollection() {
        let cases = [
            #"{"type":"Feature","geometry":null,"properties":null}"#,
            #"{"features":[]}"#,
            #"{"type":"FeatureCollection"}"#,
            #"{"type":"FeatureCollection","features":{}}"#,
            #"{"type":1,"features":[]}"#,
            #"[]"#,
            #""FeatureCollection""#,
        ]
        for text in cases {
            #expect(throws: MarkerDecodingError.notAFeatureCollection, "\(text)") { try decode(text) }
        }
    }

    @Test func errorMessagesAreClear() throws {
        do {
            _ = try decode(#"{"type":"Feature"}"#)
        } catch {
            #expect(error.message.contains("not a GeoJSON FeatureCollection"))
            #expect(error.message.contains("\"Feature\""))
            #expect(error.offset == nil)
        }
    }

    @Test func decodesAGeneratedLargeDocument() throws {
        var rng = SeededGenerator(seed: 3)
        var features: [String] = []
        var expected: [Marker] = []
        for i in 0..<2_000 {
            let lat = Double.random(in: -90...90, using: &rng)
            let lon = Double.random(in: -180...180, using: &rng)
            features.append(point("\"id\(i)\"", "\(lon)", "\(lat)", name: "\"Place \(i)\""))
            expected.append(Marker(id: "id\(i)", name: "Place \(i)", latitude: lat, longitude: lon))
        }
        let report = try decoder.decode(Array(collection(features.joined(separator: ",")).utf8))
        #expect(report.accepted == expected)  // shortest round-trip spellings parse back exactly
    }

    @Test func numberParsingIsCorrectlyRounded() throws {
        let literals = [
            "0", "-0.0", "1", "0.1", "0.30000000000000004", "45.042099781891125", "-122.9906622",
            "1e-7", "1.5E+2", "179.99999999999997", "89.99999999999999", "123.456789012345678", "-0",
            "0.000000000000000000000000001", "4.9e-324", "2.2250738585072014e-308", "12.3456789012345678901234",
        ]
        for literal in literals {
            let report = try decode(collection(point("\"n\"", literal, "0")))
            let expected = Double(literal)!
            let value = try #require(report.accepted.first, "\(literal)").longitude
            #expect(value.bitPattern == expected.bitPattern, "\(literal)")
        }
    }
}
