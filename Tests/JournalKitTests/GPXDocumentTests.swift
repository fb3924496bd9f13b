import Foundation
import JournalKit
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("GPXDocument: GPX 1.1 export")
struct GPXDocumentTests {
    let start = 1_714_557_600.0  // 2024-05-01T10:00:00Z

    var sample: GPXDocument {
        GPXDocument(
            name: "Morning walk",
            description: "Along the river",
            time: start,
            track: [
                RoutePoint(time: start, coordinate: GeoCoordinate(latitude: 52.52, longitude: 13.405), elevation: 34.5, source: .gps, distance: 0),
                RoutePoint(
                    time: start + 12.25, coordinate: GeoCoordinate(latitude: 52.5201234567, longitude: 13.4051), elevation: nil,
                    source: .deadReckoning, distance: 14),
            ],
            waypoints: [
                .init(
                    coordinate: GeoCoordinate(latitude: 52.5201, longitude: 13.405), elevation: 35, time: start + 10, name: "Photo 1",
                    description: "Foo bar by X, CC BY-SA 4.0", link: "https://commons.wikimedia.org/wiki/File:Foo_bar.jpg", linkText: "Foo bar"),
                .init(coordinate: GeoCoordinate(latitude: 52.5202, longitude: 13.405), time: start + 20, name: "Photo 2"),
            ]
        )
    }

    @Test("the declaration, the root element and its namespaces")
    func header() {
        let xml = sample.xml()
        #expect(
            xml.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"StepCompass\" "
                    + "xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                    + "xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">"))
        #expect(xml.hasSuffix("</gpx>\n"))
    }

    @Test("metadata, waypoints and the track, in the schema's order, with UTC times and 7-decimal positions")
    func content() {
        let xml = sample.xml()
        #expect(
            xml.contains(
                "<metadata>\n    <name>Morning walk</name>\n    <desc>Along the river</desc>\n    <time>2024-05-01T10:00:00Z</time>\n  </metadata>"))
        #expect(
            xml.contains(
                """
                  <wpt lat="52.5201000" lon="13.4050000">
                    <ele>35</ele>
                    <time>2024-05-01T10:00:10Z</time>
                    <name>Photo 1</name>
                    <desc>Foo bar by X, CC BY-SA 4.0</desc>
                    <link href="https://commons.wikimedia.org/wiki/File:Foo_bar.jpg"><text>Foo bar</text></link>
                  </wpt>
                """))
        #expect(
            xml.contains("<wpt lat=\"52.5202000\" lon=\"13.4050000\">\n    <time>2024-05-01T10:00:20Z</time>\n    <name>Photo 2</name>\n  </wpt>"))
        #expect(xml.contains("<trk>\n    <name>Morning walk</name>\n    <trkseg>"))
        #expect(xml.contains("<trkpt lat=\"52.5200000\" lon=\"13.4050000\"><ele>34.5</ele><time>2024-05-01T10:00:00Z</time></trkpt>"))
        // 52.5201234567 rounds to 7 decimals; 12.25 s gives milliseconds; no elevation, no <ele>.
        #expect(xml.contains("<trkpt lat=\"52.5201235\" lon=\"13.4051000\"><time>2024-05-01T10:00:12.250Z</time></trkpt>"))
        let metadata = xml.range(of: "<metadata>")!.lowerBound
        let firstWaypoint = xml.range(of: "<wpt ")!.lowerBound
        let track = xml.range(of: "<trk>")!.lowerBound
        #expect(metadata < firstWaypoint && firstWaypoint < track)
    }

    @Test("no metadata element when there is nothing to put in it; an empty track is still a track")
    func minimal() {
        let xml = GPXDocument(track: []).xml()
        #expect(!xml.contains("<metadata>"))
        #expect(!xml.contains("<wpt"))
        #expect(xml.contains("<trk>\n    <trkseg>\n    </trkseg>\n  </trk>"))
        #expect(GPXDocument(time: start, track: []).xml().contains("<metadata>\n    <time>2024-05-01T10:00:00Z</time>\n  </metadata>"))
    }

    @Test("longitude 180 is written as -180, and rounding up to 180 too")
    func longitude180() {
        let xml = GPXDocument(track: [
            RoutePoint(time: 0, coordinate: GeoCoordinate(latitude: 0, longitude: 180), elevation: nil, source: .gps, distance: 0),
            RoutePoint(time: 1, coordinate: GeoCoordinate(latitude: -0.00000001, longitude: 179.99999999), elevation: nil, source: .gps, distance: 0),
            RoutePoint(time: 2, coordinate: GeoCoordinate(latitude: 90, longitude: -180), elevation: -12.3, source: .gps, distance: 0),
        ]).xml()
        #expect(xml.contains("<trkpt lat=\"0.0000000\" lon=\"-180.0000000\"><time>1970-01-01T00:00:00Z</time></trkpt>"))
        #expect(xml.contains("<trkpt lat=\"0.0000000\" lon=\"-180.0000000\"><time>1970-01-01T00:00:01Z</time></trkpt>"))
        #expect(xml.contains("<trkpt lat=\"90.0000000\" lon=\"-180.0000000\"><ele>-12.3</ele><time>1970-01-01T00:00:02Z</time></trkpt>"))
        #expect(!xml.contains("\"180.0000000\""))
    }

    @Test("times before 1970 and fractions round to the millisecond")
    func times() {
        let xml = GPXDocument(track: [
            RoutePoint(time: -0.5, coordinate: GeoCoordinate(latitude: 0, longitude: 0), elevation: nil, source: .gps, distance: 0),
            RoutePoint(time: 951_782_400.0004, coordinate: GeoCoordinate(latitude: 0, longitude: 0), elevation: nil, source: .gps, distance: 0),
            RoutePoint(time: 951_782_399.9996, coordinate: GeoCoordinate(latitude: 0, longitude: 0), elevation: nil, source: .gps, distance: 0),
        ]).xml()
        #expect(xml.contains("<time>1969-12-31T23:59:59.500Z</time>"))
        // 2000-02-29T00:00:00Z = 951 782 400 s: ±0.4 ms rounds to the whole second, without a fraction.
        #expect(xml.components(separatedBy: "<time>2000-02-29T00:00:00Z</time>").count == 3)
    }

    @Test("text and attributes are escaped; characters XML 1.0 forbids are dropped")
    func escaping() {
        let nasty = "Tom & Jerry's <walk> \"quoted\"\u{1}\u{8}\u{1F}\u{FFFE} é 🥾\tend"
        let xml = GPXDocument(
            creator: "A&B \"<x>\"", name: nasty, track: [],
            waypoints: [
                .init(
                    coordinate: GeoCoordinate(latitude: 1, longitude: 2), time: 0, name: nasty, description: "line 1\nline 2",
                    link: "https://example.org/?a=1&b=2", linkText: "<b>")
            ]
        ).xml()
        #expect(xml.contains("creator=\"A&amp;B &quot;&lt;x&gt;&quot;\""))
        #expect(xml.contains("<name>Tom &amp; Jerry&apos;s &lt;walk&gt; &quot;quoted&quot; é 🥾\tend</name>"))
        #expect(xml.contains("<desc>line 1\nline 2</desc>"))
        #expect(xml.contains("<link href=\"https://example.org/?a=1&amp;b=2\"><text>&lt;b&gt;</text></link>"))
        #expect(!xml.contains("\u{1}"))
        #expect(!xml.contains("\u{FFFE}"))
    }

    @Test("invalid coordinates are left out")
    func invalidLeftOut() {
        let xml = GPXDocument(
            track: [
                RoutePoint(time: 0, coordinate: GeoCoordinate(latitude: .nan, longitude: 0), elevation: .infinity, source: .gps, distance: 0)
            ], waypoints: [.init(coordinate: GeoCoordinate(latitude: 100, longitude: 0), time: 0, name: "x")]
        ).xml()
        #expect(!xml.contains("<trkpt"))
        #expect(!xml.contains("<wpt"))
        #expect(!xml.contains("nan"))
    }

    #if canImport(FoundationXML) || os(macOS)
        /// An attribute's value. (swift-corelibs-foundation's `attribute(forName:)` finds nothing on an element in a
        /// default namespace, so the attributes are searched by name.)
        func attribute(_ element: XMLElement, _ name: String) -> String? {
            element.attributes?.first { $0.name == name }?.stringValue
        }

        @Test("the document parses as XML, in the GPX namespace, with the structure the schema asks for")
        func parses() throws {
            var document = sample
            document.waypoints[0].name = "Tom & Jerry's <walk> \"quoted\"\u{1}"
            document.waypoints[0].link = "https://example.org/?a=1&b=2"
            let parsed = try XMLDocument(xmlString: document.xml(), options: [])
            let root = try #require(parsed.rootElement())
            #expect(root.name == "gpx")
            #expect(root.uri == "http://www.topografix.com/GPX/1/1")
            #expect(attribute(root, "version") == "1.1")
            #expect(attribute(root, "creator") == "StepCompass")
            let children = (root.children ?? []).compactMap { $0 as? XMLElement }
            #expect(children.map { $0.localName ?? "" } == ["metadata", "wpt", "wpt", "trk"])
            let metadata = children[0].elements(forLocalName: "name", uri: root.uri).first
            #expect(metadata?.stringValue == "Morning walk")
            #expect((children[0].children ?? []).compactMap { ($0 as? XMLElement)?.localName } == ["name", "desc", "time"])

            let waypoint = children[1]
            #expect(attribute(waypoint, "lat") == "52.5201000")
            #expect((waypoint.children ?? []).compactMap { ($0 as? XMLElement)?.localName } == ["ele", "time", "name", "desc", "link"])
            #expect(waypoint.elements(forLocalName: "name", uri: root.uri).first?.stringValue == "Tom & Jerry's <walk> \"quoted\"")
            let link = try #require(waypoint.elements(forLocalName: "link", uri: root.uri).first)
            #expect(attribute(link, "href") == "https://example.org/?a=1&b=2")
            #expect(link.elements(forLocalName: "text", uri: root.uri).first?.stringValue == "Foo bar")

            let track = children[3]
            #expect((track.children ?? []).compactMap { ($0 as? XMLElement)?.localName } == ["name", "trkseg"])
            let segment = try #require(track.elements(forLocalName: "trkseg", uri: root.uri).first)
            let points = segment.elements(forLocalName: "trkpt", uri: root.uri)
            #expect(points.count == 2)
            #expect((points[0].children ?? []).compactMap { ($0 as? XMLElement)?.localName } == ["ele", "time"])
            #expect(attribute(points[1], "lon") == "13.4051000")
            #expect(points[1].elements(forLocalName: "time", uri: root.uri).first?.stringValue == "2024-05-01T10:00:12.250Z")
        }
    #endif
}
