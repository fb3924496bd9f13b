/// Writes markers back out as a GeoJSON FeatureCollection, for the retained
/// `stepcompass/markers/collection` topic.
///
/// The output is compact and deterministic (input order, fixed member order) so a republish of
/// unchanged markers produces identical bytes. Ids are always written as strings, as the bus
/// contract defines them; coordinates use Swift's shortest round-tripping spelling, so decoding
/// the output gives back the same `Double`s.
///
/// A retained message that is too large hurts every subscriber (brokers cap message size, and
/// each new subscriber receives it), so the encoder has a feature ``limit``: above it,
/// ``encode(_:)`` returns `nil` and the service omits the collection, as the contract says.
public struct MarkerCollectionEncoder: Sendable {
    /// The largest number of markers that will be encoded.
    public var limit: Int

    public init(limit: Int) {
        precondition(limit >= 0, "limit must not be negative")
        self.limit = limit
    }

    /// The FeatureCollection as UTF-8 JSON, or `nil` when there are more markers than ``limit``.
    public func encode(_ markers: [Marker]) -> [UInt8]? {
        guard markers.count <= limit else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(64 + markers.count * 120)
        out.append(contentsOf: #"{"type":"FeatureCollection","features":["#.utf8)
        for (i, marker) in markers.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"type":"Feature","id":"#.utf8)
            MarkerCollectionEncoder.appendString(marker.id, to: &out)
            out.append(contentsOf: #","geometry":{"type":"Point","coordinates":["#.utf8)
            out.append(contentsOf: MarkerCollectionEncoder.numberText(marker.longitude).utf8)
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: MarkerCollectionEncoder.numberText(marker.latitude).utf8)
            out.append(contentsOf: #"]},"properties":{"name":"#.utf8)
            MarkerCollectionEncoder.appendString(marker.name, to: &out)
            out.append(contentsOf: "}}".utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// A JSON number for a finite coordinate (markers never hold non-finite values).
    static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return value.description
    }

    /// Appends `text` as a JSON string literal: quotes, backslashes and control characters
    /// escaped, everything else kept as UTF-8.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
