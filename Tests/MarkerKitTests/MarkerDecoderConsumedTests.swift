import MarkerKit
import StepCompassTesting
import Testing

/// The decoding entry point for large documents held in the caller's own memory: it reports, as it goes, the bytes
/// it is done with, and never reads them again.
@Suite struct MarkerDecoderConsumedTests {
    /// About 11 MB of features (three 4 MiB strides), a few bad ones, and members after the `features` array.
    static func document() -> (text: [UInt8], markers: [Marker]) {
        var generator = SeededGenerator(seed: 3)
        let markers = (0..<80_000).map { i in
            Marker(
                id: "id-\(i)", name: "Place \(i)", latitude: Double.random(in: -89...89, using: &generator),
                longitude: Double.random(in: -179...179, using: &generator))
        }
        var features = markers.map {
            #"{"type":"Feature","id":"\#($0.id)","geometry":{"type":"Point","coordinates":[\#($0.longitude),\#($0.latitude)]},"properties":{"name":"\#($0.name)","note":"padding padding padding"}}"#
        }
        features.insert(#"{"type":"Feature","id":"bad","geometry":null,"properties":{"name":"x"}}"#, at: 40_000)
        let text = #"{"features":[\#(features.joined(separator: ",\n"))],"bbox":[-180,-90,180,90],"type":"FeatureCollection"}"#
        return (Array(text.utf8), markers)
    }

    @Test func reportsIncreasingOffsetsAndDecodesAsTheOrdinaryEntryPoint() throws {
        let (bytes, markers) = Self.document()
        var offsets: [Int] = []
        let report = try bytes.withUnsafeBufferPointer { buffer in
            try MarkerCollectionDecoder().decode(buffer) { offsets.append($0) }
        }
        #expect(report == (try MarkerCollectionDecoder().decode(bytes)))
        #expect(report.accepted == markers)
        #expect(report.rejected.map(\.id) == ["bad"])
        #expect(offsets.count >= 2)
        #expect(offsets == offsets.sorted() && Set(offsets).count == offsets.count)
        #expect(offsets.allSatisfy { $0 > 0 && $0 < bytes.count })
    }

    /// Zeroing everything below each reported offset while decoding (what giving the pages back does) changes
    /// nothing: the decoder never looks back.
    @Test func neverReadsBelowAReportedOffset() throws {
        var (bytes, markers) = Self.document()
        let report = try bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            return try MarkerCollectionDecoder().decode(UnsafeBufferPointer(buffer)) { offset in
                base.update(repeating: 0, count: offset)
            }
        }
        #expect(report.accepted == markers)
        #expect(report.rejected.count == 1)
    }

    @Test func errorsAreTheSameAsTheOrdinaryEntryPoint() {
        for text in [#"{"type":"Feature"}"#, #"{"type":"FeatureCollection","features":[}"#, ""] {
            let bytes = Array(text.utf8)
            let ordinary = Result { () throws(MarkerDecodingError) in try MarkerCollectionDecoder().decode(bytes) }
            let consumed = bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(MarkerDecodingError) in try MarkerCollectionDecoder().decode(buffer) { _ in } }
            }
            #expect(ordinary == consumed, "\(text)")
        }
    }
}
