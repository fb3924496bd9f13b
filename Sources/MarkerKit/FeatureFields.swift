/// The members of one GeoJSON feature that matter for a marker, read in any member order.
///
/// Everything is collected first and judged afterwards in ``validate(index:into:)``, because
/// GeoJSON puts no order on members (the acmeaom file itself mixes two orders) and, for
/// example, a geometry's `type` may follow its `coordinates`.
struct FeatureFields {
    enum IDValue {
        case absent
        case null
        case text(String)
        case invalid(String)
    }

    enum Presence {
        case absent, null, notObject, object
    }

    var type: String?
    var typeIsString = false
    var sawType = false
    var id: IDValue = .absent

    var geometry: Presence = .absent
    var geometryType: String?
    var sawCoordinates = false
    var coordinatesValid = false
    var coordinatesFinite = true
    var longitude = 0.0
    var latitude = 0.0

    var properties: Presence = .absent
    var name: String?
    var nameIsString = false
    var propertiesID: IDValue = .absent

    // MARK: Reading

    mutating func read(_ s: inout JSONScanner) throws(MarkerDecodingError) {
        guard try s.beginObject() else { return }
        repeat {
            let member = try s.memberName()
            if s.token(member, equals: "type") {
                sawType = true
                if try s.peekKind() == .string {
                    type = s.text(of: try s.string())
                    typeIsString = true
                } else {
                    try s.skipValue(depth: 3)
                    typeIsString = false
                }
            } else if s.token(member, equals: "id") {
                id = try FeatureFields.readID(&s)
            } else if s.token(member, equals: "geometry") {
                try readGeometry(&s)
            } else if s.token(member, equals: "properties") {
                try readProperties(&s)
            } else {
                try s.skipValue(depth: 3)
            }
        } while try s.next(closer: UInt8(ascii: "}"))
    }

    private static func readID(_ s: inout JSONScanner) throws(MarkerDecodingError) -> IDValue {
        switch try s.peekKind() {
        case .string:
            let text = s.text(of: try s.string())
            return text.isEmpty ? .invalid("id is an empty string") : .text(text)
        case .number:
            let token = try s.number()
            let literal = s.literalText(start: token.start, end: token.end)
            return token.value.isFinite ? .text(literal) : .invalid("id \(literal) is not a finite number")
        case .literalNull:
            try s.literal()
            return .null
        case .literalTrue, .literalFalse:
            try s.literal()
            return .invalid("id is a boolean, not a string or number")
        case .object, .array:
            try s.skipValue(depth: 4)
            return .invalid("id is an object or array, not a string or number")
        }
    }

    private mutating func readGeometry(_ s: inout JSONScanner) throws(MarkerDecodingError) {
        // A repeated member starts over.
        geometryType = nil
        sawCoordinates = false
        coordinatesValid = false
        coordinatesFinite = true
        switch try s.peekKind() {
        case .literalNull:
            try s.literal()
            geometry = .null
            return
        case .object:
            geometry = .object
        default:
            try s.skipValue(depth: 3)
            geometry = .notObject
            return
        }
        guard try s.beginObject() else { return }
        repeat {
            let member = try s.memberName()
            if s.token(member, equals: "type") {
                if try s.peekKind() == .string {
                    geometryType = s.text(of: try s.string())
                } else {
                    try s.skipValue(depth: 4)
                    geometryType = nil
                }
            } else if s.token(member, equals: "coordinates") {
                try readCoordinates(&s)
            } else {
                try s.skipValue(depth: 4)
            }
        } while try s.next(closer: UInt8(ascii: "}"))
    }

    private mutating func readCoordinates(_ s: inout JSONScanner) throws(MarkerDecodingError) {
        sawCoordinates = true
        coordinatesValid = false
        coordinatesFinite = true
        guard try s.peekKind() == .array else {
            try s.skipValue(depth: 4)
            return
        }
        var numbers = 0
        var allNumbers = true
        if try s.beginArray() {
            repeat {
                if try s.peekKind() == .number {
                    let value = try s.number().value
                    if !value.isFinite { coordinatesFinite = false }
                    if numbers == 0 { longitude = value } else if numbers == 1 { latitude = value }
                    numbers += 1
                } else {
                    allNumbers = false
                    try s.skipValue(depth: 5)
                }
            } while try s.next(closer: UInt8(ascii: "]"))
        }
        coordinatesValid = allNumbers && numbers >= 2
    }

    private mutating func readProperties(_ s: inout JSONScanner) throws(MarkerDecodingError) {
        name = nil
        nameIsString = false
        propertiesID = .absent
        switch try s.peekKind() {
        case .literalNull:
            try s.literal()
            properties = .null
            return
        case .object:
            properties = .object
        default:
            try s.skipValue(depth: 3)
            properties = .notObject
            return
        }
        guard try s.beginObject() else { return }
        repeat {
            let member = try s.memberName()
            if s.token(member, equals: "name") {
                if try s.peekKind() == .string {
                    name = s.text(of: try s.string())
                    nameIsString = true
                } else {
                    try s.skipValue(depth: 4)
                    name = nil
                    nameIsString = false
                }
            } else if s.token(member, equals: "id") {
                propertiesID = try FeatureFields.readID(&s)
            } else {
                try s.skipValue(depth: 4)
            }
        } while try s.next(closer: UInt8(ascii: "}"))
    }

    // MARK: Judging

    /// Turns the collected members into an accepted marker or a rejection.
    func validate(index: Int, into builder: inout ReportBuilder) {
        // Id first, so every later rejection can name the feature.
        var idText: String?
        var idProblem: (RejectionReason, String)?
        switch id {
        case .text(let text):
            idText = text
        case .invalid(let message):
            idProblem = (.invalidID, message)
        case .absent, .null:
            switch propertiesID {
            case .text(let text): idText = text
            case .invalid(let message): idProblem = (.invalidID, "properties." + message)
            case .absent, .null: idProblem = (.missingID, "no id on the feature nor in its properties")
            }
        }

        // A missing "type" is tolerated (the object is used as a feature anyway); a different
        // one, e.g. a bare geometry placed in the array, is not.
        if sawType && !(typeIsString && type == "Feature") {
            let found = typeIsString ? "\"\(type ?? "")\"" : "not a string"
            builder.reject(index, idText, .notAFeature, "type is \(found), expected \"Feature\"")
            return
        }
        if let idProblem {
            builder.reject(index, idText, idProblem.0, idProblem.1)
            return
        }
        switch geometry {
        case .absent:
            builder.reject(index, idText, .missingGeometry)
            return
        case .null:
            builder.reject(index, idText, .nullGeometry)
            return
        case .notObject:
            builder.reject(index, idText, .nonPointGeometry, "geometry is not an object")
            return
        case .object:
            break
        }
        guard geometryType == "Point" else {
            let found = geometryType.map { "\"\($0)\"" } ?? "missing"
            builder.reject(index, idText, .nonPointGeometry, "geometry type is \(found), expected \"Point\"")
            return
        }
        guard sawCoordinates, coordinatesValid else {
            builder.reject(
                index, idText, .invalidCoordinates,
                sawCoordinates ? "coordinates must be [longitude, latitude] numbers" : "missing coordinates")
            return
        }
        guard coordinatesFinite else {
            builder.reject(index, idText, .nonFiniteCoordinate)
            return
        }
        let latitudeOK = (-90.0...90.0).contains(latitude)
        let longitudeOK = (-180.0...180.0).contains(longitude)
        if !latitudeOK || !longitudeOK {
            let swapWouldFit = (-90.0...90.0).contains(longitude) && (-180.0...180.0).contains(latitude)
            let what = !latitudeOK ? "latitude \(latitude)" : "longitude \(longitude)"
            let hint = swapWouldFit ? " (latitude/longitude swapped?)" : ""
            builder.reject(index, idText, .coordinateOutOfRange, "\(what) out of range\(hint)")
            return
        }
        switch properties {
        case .null:
            builder.reject(index, idText, .nullProperties)
            return
        case .absent:
            builder.reject(index, idText, .missingName, "no properties, so no name")
            return
        case .notObject:
            builder.reject(index, idText, .missingName, "properties is not an object")
            return
        case .object:
            break
        }
        guard nameIsString, let name else {
            builder.reject(index, idText, .missingName, "no name property, or one that is not a string")
            return
        }
        let trimmed = FeatureFields.trimmed(name)
        guard !trimmed.isEmpty else {
            builder.reject(index, idText, .missingName, "name is blank")
            return
        }
        guard let idText else { return }  // unreachable: a missing id was rejected above
        guard builder.seen.insert(MarkerID(idText)).inserted else {
            builder.reject(index, idText, .duplicateID, "id \"\(idText)\" already used by an earlier feature")
            return
        }
        builder.accepted.append(Marker(id: idText, name: trimmed, latitude: latitude, longitude: longitude))
    }

    /// The name without leading or trailing Unicode white space; cheap when there is none.
    static func trimmed(_ name: String) -> String {
        let utf8 = name.utf8
        if let first = utf8.first, let last = utf8.last,
            first > 0x20, first < 0x7F, last > 0x20, last < 0x7F
        {
            return name
        }
        let scalars = name.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else {
            return ""
        }
        return String(scalars[start...end])
    }
}
