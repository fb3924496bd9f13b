/// A walk as a GPX 1.1 document: one track of route points, and waypoints (the photo points, say).
public struct GPXDocument: Sendable {
    /// A GPX waypoint (`<wpt>`).
    public struct Waypoint: Sendable, Hashable {
        /// Where it is, in degrees.
        public var coordinate: GeoCoordinate
        /// Metres above the WGS84 ellipsoid, when known.
        public var elevation: Double?
        /// Seconds since 1970.
        public var time: Double
        /// Its name.
        public var name: String
        /// A longer description, such as a photo's title and attribution.
        public var description: String?
        /// A URL for `<link href>`, such as the photo's page.
        public var link: String?
        /// The link's text.
        public var linkText: String?

        /// A waypoint; `elevation` in metres, `time` in seconds since 1970.
        public init(
            coordinate: GeoCoordinate, elevation: Double? = nil, time: Double, name: String, description: String? = nil,
            link: String? = nil, linkText: String? = nil
        ) {
            self.coordinate = coordinate
            self.elevation = elevation
            self.time = time
            self.name = name
            self.description = description
            self.link = link
            self.linkText = linkText
        }
    }

    /// The program that wrote the file (`<gpx creator>`).
    public var creator: String
    /// The document's (and the track's) name.
    public var name: String?
    /// The document's description.
    public var description: String?
    /// When the document was made (or the walk started), in seconds since 1970.
    public var time: Double?
    /// The route, written as one track segment; points with an invalid coordinate are left out.
    public var track: [RoutePoint]
    /// The waypoints, written before the track; those with an invalid coordinate are left out.
    public var waypoints: [Waypoint]

    /// A document; `time` in seconds since 1970.
    public init(
        creator: String = "StepCompass", name: String? = nil, description: String? = nil, time: Double? = nil,
        track: [RoutePoint], waypoints: [Waypoint] = []
    ) {
        self.creator = creator
        self.name = name
        self.description = description
        self.time = time
        self.track = track
        self.waypoints = waypoints
    }

    /// The GPX 1.1 XML, UTF-8, elements in the schema's order.
    ///
    /// Times are UTC xsd:dateTime (`2024-05-01T10:00:00Z`, with milliseconds only when there is a fraction),
    /// latitudes and longitudes have 7 decimals with longitudes in -180..<180, elevations at most 2 decimals.
    /// Text and attributes are escaped, and characters XML 1.0 does not allow (control characters other than tab,
    /// newline and carriage return) are dropped.
    public func xml() -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<gpx version="1.1" creator="\#(Self.attribute(creator))" xmlns="http://www.topografix.com/GPX/1/1" "#
                + #"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#
                + #"xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">"#,
        ]
        let metadataTime = time.flatMap(UTCTime.xsdDateTime)
        if name != nil || description != nil || metadataTime != nil {
            lines.append("  <metadata>")
            if let name { lines.append("    <name>\(Self.text(name))</name>") }
            if let description { lines.append("    <desc>\(Self.text(description))</desc>") }
            if let metadataTime { lines.append("    <time>\(metadataTime)</time>") }
            lines.append("  </metadata>")
        }
        for waypoint in waypoints where waypoint.coordinate.isValid {
            lines.append("  <wpt \(Self.position(waypoint.coordinate))>")
            if let elevation = waypoint.elevation, elevation.isFinite {
                lines.append("    <ele>\(DecimalText.trimmed(elevation, places: 2))</ele>")
            }
            if let time = UTCTime.xsdDateTime(waypoint.time) { lines.append("    <time>\(time)</time>") }
            lines.append("    <name>\(Self.text(waypoint.name))</name>")
            if let description = waypoint.description { lines.append("    <desc>\(Self.text(description))</desc>") }
            if let link = waypoint.link {
                if let linkText = waypoint.linkText {
                    lines.append("    <link href=\"\(Self.attribute(link))\"><text>\(Self.text(linkText))</text></link>")
                } else {
                    lines.append("    <link href=\"\(Self.attribute(link))\"/>")
                }
            }
            lines.append("  </wpt>")
        }
        lines.append("  <trk>")
        if let name { lines.append("    <name>\(Self.text(name))</name>") }
        lines.append("    <trkseg>")
        for point in track where point.coordinate.isValid {
            var children = ""
            if let elevation = point.elevation, elevation.isFinite {
                children += "<ele>\(DecimalText.trimmed(elevation, places: 2))</ele>"
            }
            if let time = UTCTime.xsdDateTime(point.time) { children += "<time>\(time)</time>" }
            lines.append("      <trkpt \(Self.position(point.coordinate))>\(children)</trkpt>")
        }
        lines.append("    </trkseg>")
        lines.append("  </trk>")
        lines.append("</gpx>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `lat="…" lon="…"` with 7 decimals, the longitude rounded first and then wrapped into -180..<180.
    private static func position(_ coordinate: GeoCoordinate) -> String {
        let longitude = Geodesy.wrapLongitude((coordinate.longitude * 1e7).rounded() / 1e7)
        return "lat=\"\(DecimalText.fixed(coordinate.latitude, places: 7))\" lon=\"\(DecimalText.fixed(longitude, places: 7))\""
    }

    /// Element text: `& < > " '` escaped, characters XML 1.0 forbids dropped.
    static func text(_ value: String) -> String {
        escape(value, inAttribute: false)
    }

    /// An attribute value: as ``text(_:)``, and tab, newline and carriage return as character references so
    /// that parsers do not normalise them to spaces.
    static func attribute(_ value: String) -> String {
        escape(value, inAttribute: true)
    }

    private static func escape(_ value: String, inAttribute: Bool) -> String {
        var output = ""
        output.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&apos;"
            case "\t", "\n", "\r":
                if inAttribute {
                    output += "&#\(scalar.value);"
                } else {
                    output.unicodeScalars.append(scalar)
                }
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF { continue }
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
