import Foundation
import FuzzSupport
import MarkerKit

/// libFuzzer target: MarkerKit's GeoJSON reader (`MarkerCollectionDecoder` over its own `JSONScanner`), which reads
/// marker files and URLs and, in the dashboard, the retained `stepcompass/markers/collection`.
///
/// Properties: decoding never traps and only throws `MarkerDecodingError`; what it accepts is usable (unique
/// non-empty ids, names that are not blank and are trimmed, finite coordinates in range) and every feature is either
/// accepted or rejected once, in order; the markers written back by `MarkerCollectionEncoder` read back as the same
/// markers with nothing rejected; and a document it calls invalid JSON is invalid to Foundation's parser too (the
/// scanner's leniencies, a byte order mark and `NaN`/`Infinity`, only ever accept more; Foundation's own, trailing
/// commas and UTF-16, are left out).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count, GeoJSONProperties.check)
}

enum GeoJSONProperties {
    static func check(_ bytes: [UInt8]) {
        let report: DecodeReport
        do {
            report = try MarkerCollectionDecoder().decode(bytes)
        } catch {
            refused(bytes, error)
            return
        }
        // The same bytes as `Data` (the service's path) give the same report.
        let again = try? MarkerCollectionDecoder().decode(Data(bytes))
        Fuzz.require(again == report, "decoding the same bytes as Data gave another report")
        usable(report, of: bytes)
        roundTrip(report.accepted)
    }

    static func refused(_ bytes: [UInt8], _ error: MarkerDecodingError) {
        guard let offset = error.offset else { return }
        Fuzz.require((0...bytes.count).contains(offset), "invalid JSON at offset \(offset) of a \(bytes.count)-byte document")
        // Foundation reads UTF-16 and UTF-32 documents (recognised by their zero bytes), which the scanner does not,
        // allows deeper nesting, and a comma before `]` or `}` (`[1,]`), where the scanner expects a value or a member.
        let lenient = ["nesting too deep", "expected a value, found ']'", "expected a member name, found '}'"]
        guard !bytes.contains(0), !lenient.contains(where: error.message.contains) else { return }
        let foundation = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        Fuzz.require(foundation == nil, "the scanner refused \(Fuzz.show(bytes)) (\(error.message)), Foundation reads it")
    }

    static func usable(_ report: DecodeReport, of bytes: [UInt8]) {
        var ids = Set<[UInt8]>()
        for marker in report.accepted {
            Fuzz.require(!marker.id.isEmpty, "an accepted marker has an empty id")
            Fuzz.require(ids.insert(Array(marker.id.utf8)).inserted, "the id \(marker.id) was accepted twice")
            Fuzz.require(!marker.name.isEmpty, "marker \(marker.id) has an empty name")
            let scalars = marker.name.unicodeScalars
            Fuzz.require(
                scalars.first?.properties.isWhitespace == false && scalars.last?.properties.isWhitespace == false,
                "marker \(marker.id)'s name '\(marker.name)' is not trimmed")
            Fuzz.require(
                marker.latitude.isFinite && (-90...90).contains(marker.latitude) && marker.longitude.isFinite
                    && (-180...180).contains(marker.longitude),
                "marker \(marker.id) is at \(marker.latitude), \(marker.longitude)")
        }
        var previous = -1
        for rejection in report.rejected {
            Fuzz.require(rejection.index > previous, "rejections out of order or repeated at index \(rejection.index)")
            Fuzz.require(rejection.index < report.featureCount, "rejection index \(rejection.index) of \(report.featureCount) features")
            Fuzz.require(!rejection.message.isEmpty, "a rejection without a message")
            previous = rejection.index
        }
        _ = report.countsByReason
    }

    static func roundTrip(_ markers: [Marker]) {
        guard let written = MarkerCollectionEncoder(limit: .max).encode(markers) else {
            Fuzz.fail("the encoder without a limit wrote nothing")
        }
        let report: DecodeReport
        do {
            report = try MarkerCollectionDecoder().decode(written)
        } catch {
            Fuzz.fail("the encoder's own document \(Fuzz.show(written)) does not decode: \(error)")
        }
        Fuzz.require(report.rejected.isEmpty, "the encoder's own document has rejected features: \(report.rejected)")
        Fuzz.require(report.accepted == markers, "markers \(markers) were written and read back as \(report.accepted)")
    }
}
