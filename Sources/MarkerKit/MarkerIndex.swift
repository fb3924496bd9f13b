/// The markers in service: the list, a lookup by id and the spatial index, answering the
/// contract's `stepcompass/markers/nearest` requests.
///
/// Immutable and `Sendable`: a service builds a new one when the source changes and swaps it in
/// whole, so a query never sees half an update.
public struct MarkerIndex: Sendable {
    /// The counts a request may ask for (the contract's `count`, 1...50).
    public static let countRange = 1...50
    /// The count used when a request gives none.
    public static let defaultCount = 3

    /// The markers, ids unique, in source order.
    public var markers: [Marker] { spatialIndex.markers }
    /// The k-d tree over ``markers``.
    public let spatialIndex: SpatialIndex
    private let positions: [MarkerID: Int]

    /// The number of markers.
    public var count: Int { spatialIndex.count }

    /// Indexes `markers`. Ids must be unique; should a later marker repeat an earlier id (byte
    /// for byte) it is dropped, the same first-wins rule as ``MarkerCollectionDecoder``.
    public init(markers: [Marker]) {
        var positions: [MarkerID: Int] = [:]
        positions.reserveCapacity(markers.count)
        // The usual case, ids already unique (the decoder's output), shares `markers` instead of copying it: at a
        // million markers the copy is 48 MB. A copy without the repeats starts at the first repeated id.
        var unique: [Marker]?
        for (offset, marker) in markers.enumerated() {
            let key = MarkerID(marker.id)
            // One hash per id: a repeat is rare, and then the first one's position is put back.
            if let first = positions.updateValue(unique?.count ?? offset, forKey: key) {
                positions[key] = first
                if unique == nil {
                    var kept: [Marker] = []
                    kept.reserveCapacity(markers.count)
                    kept.append(contentsOf: markers[..<offset])
                    unique = kept
                }
            } else {
                unique?.append(marker)
            }
        }
        self.positions = positions
        self.spatialIndex = SpatialIndex(markers: unique ?? markers)
    }

    /// The marker with exactly this id (byte for byte), if any.
    public func marker(withID id: String) -> Marker? {
        positions[MarkerID(id)].map { markers[$0] }
    }

    /// The `count` markers nearest the marker `id`, never that marker itself; nearest first,
    /// ties by id in byte order.
    ///
    /// - Throws: ``MarkerQueryError/badRequest`` when `count` is outside ``countRange``,
    ///   ``MarkerQueryError/notFound`` when no marker has the id.
    public func nearest(toID id: String, count: Int = MarkerIndex.defaultCount) throws(MarkerQueryError) -> [NearestResult] {
        try MarkerIndex.validate(count: count)
        guard let position = positions[MarkerID(id)] else {
            throw MarkerQueryError.notFound(id: id)
        }
        return spatialIndex.nearest(toMarkerAt: position, count: count)
    }

    /// The `count` markers nearest a coordinate; nearest first, ties by id in byte order.
    ///
    /// - Throws: ``MarkerQueryError/badRequest`` for a count outside ``countRange``, a latitude
    ///   outside -90...90, a longitude outside -180...180, or a non-finite number.
    public func nearest(latitude: Double, longitude: Double, count: Int = MarkerIndex.defaultCount) throws(MarkerQueryError) -> [NearestResult] {
        try MarkerIndex.validate(count: count)
        guard latitude.isFinite, (-90.0...90.0).contains(latitude) else {
            throw MarkerQueryError.badRequest("latitude must be a number in -90...90")
        }
        guard longitude.isFinite, (-180.0...180.0).contains(longitude) else {
            throw MarkerQueryError.badRequest("longitude must be a number in -180...180")
        }
        return spatialIndex.nearest(latitude: latitude, longitude: longitude, count: count)
    }

    private static func validate(count: Int) throws(MarkerQueryError) {
        guard countRange.contains(count) else {
            throw MarkerQueryError.badRequest("count must be in \(countRange.lowerBound)...\(countRange.upperBound)")
        }
    }
}
