/// Reads markers from a GeoJSON FeatureCollection (RFC 7946), tolerating what real files do.
///
/// The rules, and why:
/// - **Ids.** The feature's own `id` (a string, or a number kept as its literal text, so `5`
///   is `"5"` and `5.0` is `"5.0"`). When the feature has no `id` (or `"id": null`), a
///   `properties.id` string or number is used instead: many exporters (QGIS, ogr2ogr without
///   `-lco ID_FIELD`) put the key there, and rejecting every feature of such a file would help
///   nobody. An empty-string id is rejected: it cannot be asked for meaningfully.
/// - **Duplicate ids.** The first *accepted* feature with an id wins and later ones are
///   rejected; a feature rejected for another reason does not reserve its id. Ids are compared
///   byte for byte (``MarkerID``).
/// - **Geometry.** Only `Point`. `"geometry": null` is valid GeoJSON (an unlocated feature) but
///   cannot be a marker, so it is rejected, as are other geometry types.
/// - **Coordinates.** `[longitude, latitude]`, optionally followed by an altitude (ignored;
///   further elements are ignored too, as RFC 7946 §3.1.1 allows). Non-finite values are
///   rejected, as are latitudes outside -90...90 and longitudes outside -180...180; when
///   swapping the two would be in range the message says "latitude/longitude swapped?",
///   because `[lat, lon]` order is the most common GeoJSON mistake. A swap that stays in range
///   cannot be detected and is accepted as written.
/// - **Names.** `properties.name` must be a string that is not blank; it is stored trimmed.
///   Names are not unique and never used as keys.
/// - **Feature type.** A feature object without `"type"` is read anyway; one whose `type` is
///   something else (e.g. a bare geometry put in the array) is rejected.
/// - **Member order** is free and unknown members are ignored; if a member appears twice in one
///   object, the last one counts.
///
/// Bad features are rejected with a reason and counted, never fatal. Only a document that is
/// not JSON, or not a FeatureCollection with a `features` array, throws
/// ``MarkerDecodingError``. Decoding is pure: no I/O, no logging.
public struct MarkerCollectionDecoder: Sendable {
    public init() {}

    /// Decodes a FeatureCollection from UTF-8 bytes (`Data`, `[UInt8]`, a `ByteBuffer` view...).
    public func decode<Bytes: Collection>(_ bytes: Bytes) throws(MarkerDecodingError) -> DecodeReport
    where Bytes.Element == UInt8 {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(MarkerDecodingError) -> DecodeReport in try decode(buffer: buffer) }
        }
        if let result {
            return try result.get()
        }
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer in
            Result { () throws(MarkerDecodingError) -> DecodeReport in try decode(buffer: buffer) }
        }.get()
    }

    /// Decodes a FeatureCollection from a UTF-8 string.
    public func decode(_ text: String) throws(MarkerDecodingError) -> DecodeReport {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(MarkerDecodingError) -> DecodeReport in try decode(buffer: buffer) }
        }.get()
    }

    /// Decodes a FeatureCollection from UTF-8 bytes in memory the caller owns, telling it as it goes which of them
    /// it is done with.
    ///
    /// `consumed(offset)` is called every few MiB of features with an offset below which the decoder will not
    /// read `buffer` again (each offset larger than the last), so a caller holding a large document in memory of its
    /// own can give those pages back while the rest is decoded: a 170 MB file then never has to be resident whole
    /// next to the markers decoded from it. The callback runs on the decoding thread, before `decode` returns.
    public func decode(
        _ buffer: UnsafeBufferPointer<UInt8>, consumed: (_ offset: Int) -> Void
    ) throws(MarkerDecodingError) -> DecodeReport {
        try decode(buffer: buffer, consumed: consumed)
    }

    private func decode(
        buffer: UnsafeBufferPointer<UInt8>, consumed: (Int) -> Void = { _ in }
    ) throws(MarkerDecodingError) -> DecodeReport {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw MarkerDecodingError.invalidJSON(offset: 0, "empty document")
        }
        var scanner = JSONScanner(base: base, count: buffer.count)
        var builder = ReportBuilder()
        try DocumentReader.read(&scanner, into: &builder, consumed: consumed)
        return DecodeReport(accepted: builder.accepted, rejected: builder.rejected)
    }
}

/// Collects accepted markers and rejections, enforcing id uniqueness.
struct ReportBuilder {
    var accepted: [Marker] = []
    var rejected: [Rejection] = []
    var seen: Set<MarkerID> = []

    mutating func reject(_ index: Int, _ id: String?, _ reason: RejectionReason, _ message: String? = nil) {
        rejected.append(Rejection(index: index, id: id, reason: reason, message: message ?? reason.summary))
    }
}

/// Walks the top level of the document and each feature, pulling only the needed members.
enum DocumentReader {
    /// Bytes of features between two calls of the `consumed` callback.
    static let consumedStride = 4 << 20

    static func read(
        _ s: inout JSONScanner, into builder: inout ReportBuilder, consumed: (Int) -> Void
    ) throws(MarkerDecodingError) {
        s.skipByteOrderMark()
        let kind = try s.peekKind()
        guard kind == .object else {
            try s.skipValue()
            guard s.atEnd() else { throw s.fail("unexpected data after the JSON value") }
            throw MarkerDecodingError.notAFeatureCollection("the top-level value is not an object")
        }
        var typeText: String?
        var typeIsString = false
        var sawFeatures = false
        var featuresIsArray = false
        if try s.beginObject() {
            repeat {
                let name = try s.memberName()
                if s.token(name, equals: "type") {
                    if try s.peekKind() == .string {
                        typeText = s.text(of: try s.string())
                        typeIsString = true
                    } else {
                        try s.skipValue()
                        typeText = nil
                        typeIsString = false
                    }
                } else if s.token(name, equals: "features") {
                    sawFeatures = true
                    if try s.peekKind() == .array {
                        featuresIsArray = true
                        builder = ReportBuilder()  // a repeated member: the last one counts
                        try readFeatures(&s, into: &builder, consumed: consumed)
                    } else {
                        featuresIsArray = false
                        try s.skipValue(depth: 1)
                    }
                } else {
                    try s.skipValue(depth: 1)
                }
            } while try s.next(closer: UInt8(ascii: "}"))
        }
        guard s.atEnd() else { throw s.fail("unexpected data after the JSON value") }
        guard typeIsString, let typeText else {
            throw MarkerDecodingError.notAFeatureCollection("no \"type\": \"FeatureCollection\" member")
        }
        guard typeText == "FeatureCollection" else {
            throw MarkerDecodingError.notAFeatureCollection("\"type\" is \"\(typeText)\"")
        }
        guard sawFeatures else {
            throw MarkerDecodingError.notAFeatureCollection("no \"features\" member")
        }
        guard featuresIsArray else {
            throw MarkerDecodingError.notAFeatureCollection("\"features\" is not an array")
        }
    }

    /// Reads the `features` array. Nothing before a finished feature is read again (the scanner only moves forward,
    /// and what is kept of a feature is copied out of the buffer), so its end can be reported as consumed.
    private static func readFeatures(
        _ s: inout JSONScanner, into builder: inout ReportBuilder, consumed: (Int) -> Void
    ) throws(MarkerDecodingError) {
        guard try s.beginArray() else { return }
        var index = 0
        var reported = s.position
        repeat {
            if s.position - reported >= consumedStride {
                reported = s.position
                consumed(reported)
            }
            if try s.peekKind() == .object {
                var fields = FeatureFields()
                try fields.read(&s)
                fields.validate(index: index, into: &builder)
            } else {
                try s.skipValue(depth: 2)
                builder.reject(index, nil, .notAnObject)
            }
            index += 1
        } while try s.next(closer: UInt8(ascii: "]"))
    }
}
