import Foundation
import JournalKit
import Testing

/// `xmllint` (Debian's `libxml2-utils`, which `scripts/ensure-deps.sh` installs), validating against the GPX 1.1
/// schema restated in `Resources/gpx-1.1.xsd`.
enum XMLLint {
    /// The path of `xmllint`, if it is installed.
    static var executable: String? {
        let folders =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
        return folders.map { $0 + "/xmllint" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether the schema tests run: always in CI (`CI=true`), where a missing `xmllint` fails them, and elsewhere only
    /// when it is installed (as `PostgresServerProcess.shouldRun`).
    static var shouldRun: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || executable != nil
    }

    /// What `xmllint --noout --schema` said of a document: its exit status (0 valid, 3 invalid, 1 not XML) and its
    /// output.
    struct Result {
        let status: Int32
        let output: String
    }

    /// Writes `xml` to a new temporary folder as `name` and validates it with `xmllint --noout --nonet --schema`.
    static func validate(_ xml: String, name: String = "walk.gpx") throws -> Result {
        let xmllint = try #require(executable, "xmllint is not installed: run scripts/ensure-deps.sh (sudo apt-get install libxml2-utils)")
        let schema = try #require(Bundle.module.url(forResource: "gpx-1.1", withExtension: "xsd"), "the test bundle has no gpx-1.1.xsd")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-gpx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try Data(xml.utf8).write(to: file)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: xmllint)
        process.arguments = ["--noout", "--nonet", "--schema", schema.path, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }
}

@Suite("GPXDocument against the GPX 1.1 schema (xmllint)", .enabled(if: XMLLint.shouldRun))
struct GPXSchemaTests {
    static let start = 1_714_557_600.0  // 2024-05-01T10:00:00Z

    /// A walk as the journal writes one: a named track with elevations (some missing, some negative), GPS and
    /// dead-reckoned points with fractional-second times, and photo waypoints with links, names full of markup
    /// characters and non-ASCII text.
    static var walk: GPXDocument {
        var track: [RoutePoint] = []
        for index in 0..<240 {
            let time = start + Double(index) * 4.375  // 4.375 s apart: .375, .750, .125, ... fractions
            let coordinate = GeoCoordinate(latitude: 47.3769 + Double(index) * 0.000_09, longitude: 8.5417 + Double(index) * 0.000_045)
            let elevation: Double? = index % 17 == 5 ? nil : 408.25 + Double(index % 30) * 0.33 - (index > 200 ? 420 : 0)
            track.append(
                RoutePoint(
                    time: time, coordinate: coordinate, elevation: elevation, source: index % 9 == 0 ? .deadReckoning : .gps,
                    distance: Double(index) * 11.2))
        }
        let waypoints: [GPXDocument.Waypoint] = [
            .init(
                coordinate: GeoCoordinate(latitude: 47.3778, longitude: 8.5421), elevation: 409.5, time: start + 43.75,
                name: "Grossmünster & \"Wasserkirche\" <view from the 'Limmat'>",
                description: "100 m along the walk. © Jürg Müller, CC BY-SA 4.0",
                link: "https://commons.wikimedia.org/wiki/File:Z%C3%BCrich_Grossm%C3%BCnster.jpg?a=1&b=2", linkText: "The photo's page"),
            .init(
                coordinate: GeoCoordinate(latitude: 47.3787, longitude: 8.5426), time: start + 87.5, name: "東京タワー 🥾 Ωμέγα",
                description: "200 m along the walk. CC0", link: "https://www.flickr.com/photos/someone/1234567890/"),
            .init(coordinate: GeoCoordinate(latitude: 47.3796, longitude: 8.5431), time: start + 131.001, name: "Photo 3"),
        ]
        return GPXDocument(
            name: "Walk of phone-1 on 2024-05-01 — Zürich <old town> & lake", description: "Recorded by StepCompass (2676 m).",
            time: start, track: track, waypoints: waypoints)
    }

    @Test("a realistic walk: elevations, fractional-second times, waypoints with links, markup and non-ASCII names")
    func realisticWalk() throws {
        let xml = Self.walk.xml()
        #expect(xml.contains(".375Z</time>"))
        #expect(xml.contains("&amp;") && xml.contains("&lt;") && xml.contains("&quot;") && xml.contains("&apos;"))
        let result = try XMLLint.validate(xml)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(
        "the edge cases: an empty track, no metadata, longitude 180, the poles, creator and names to escape",
        arguments: [
            GPXDocument(track: []),
            GPXDocument(time: GPXSchemaTests.start, track: []),
            GPXDocument(
                creator: "A&B \"<x>\" 'y'", name: "Tom & Jerry's <walk> \"quoted\"\u{1} é\tend", track: [],
                waypoints: [
                    .init(
                        coordinate: GeoCoordinate(latitude: 1, longitude: 2), time: 0, name: "<&>", description: "line 1\nline 2",
                        link: "https://example.org/?a=1&b=2", linkText: "<b>")
                ]),
            GPXDocument(
                name: "Date line",
                track: [
                    RoutePoint(time: -0.5, coordinate: GeoCoordinate(latitude: 0, longitude: 180), elevation: nil, source: .gps, distance: 0),
                    RoutePoint(
                        time: 1.999_9, coordinate: GeoCoordinate(latitude: -0.000_000_01, longitude: 179.999_999_99), elevation: -0.004,
                        source: .gps, distance: 1),
                    RoutePoint(time: 2, coordinate: GeoCoordinate(latitude: 90, longitude: -180), elevation: -12.3, source: .gps, distance: 2),
                    RoutePoint(
                        time: 3, coordinate: GeoCoordinate(latitude: -90, longitude: -179.999_999_96), elevation: 8_848.86,
                        source: .deadReckoning, distance: 3),
                ], waypoints: [.init(coordinate: GeoCoordinate(latitude: 0, longitude: 180), time: 4, name: "180° E")]),
        ])
    func edgeCases(document: GPXDocument) throws {
        let result = try XMLLint.validate(document.xml())
        #expect(result.status == 0, "\(result.output)")
    }

    /// A document using every element and attribute of the schema in its order, as other programs write them:
    /// the schema is complete enough for real GPX files.
    static let everything = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Another program" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ext="urn:example:extension"
             xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
          <metadata>
            <name>All of it</name>
            <desc>Every element</desc>
            <author><name>Someone</name><email id="someone" domain="example.org"/><link href="https://example.org/"/></author>
            <copyright author="Someone"><year>2024</year><license>https://creativecommons.org/licenses/by/4.0/</license></copyright>
            <link href="https://example.org/a"><text>A</text><type>text/html</type></link>
            <link href="https://example.org/b"/>
            <time>2024-05-01T10:00:00.123+02:00</time>
            <keywords>walk, test</keywords>
            <bounds minlat="-90" minlon="-180" maxlat="90" maxlon="179.9999999"/>
            <extensions><ext:anything ext:attribute="1"><ext:nested/></ext:anything></extensions>
          </metadata>
          <wpt lat="47.1" lon="8.5">
            <ele>400.5</ele><time>2024-05-01T10:00:00Z</time><magvar>359.99</magvar><geoidheight>48</geoidheight>
            <name>W</name><cmt>c</cmt><desc>d</desc><src>GPS</src><link href="a"/><link href="b"><text>b</text></link>
            <sym>Flag, Blue</sym><type>photo</type><fix>dgps</fix><sat>12</sat><hdop>0.8</hdop><vdop>1.1</vdop><pdop>1.4</pdop>
            <ageofdgpsdata>3.5</ageofdgpsdata><dgpsid>1023</dgpsid><extensions><ext:x/></extensions>
          </wpt>
          <rte>
            <name>R</name><cmt>c</cmt><desc>d</desc><src>s</src><link href="r"/><number>1</number><type>t</type>
            <extensions><ext:x/></extensions>
            <rtept lat="47.1" lon="8.5"><name>1</name></rtept><rtept lat="47.2" lon="8.6"><fix>none</fix></rtept>
          </rte>
          <rte/>
          <trk>
            <name>T</name><cmt>c</cmt><desc>d</desc><src>s</src><link href="t"/><number>0</number><type>walk</type>
            <extensions><ext:x/></extensions>
            <trkseg><trkpt lat="47.1" lon="8.5"><ele>-3</ele><time>2024-05-01T10:00:01.5Z</time></trkpt><extensions><ext:x/></extensions></trkseg>
            <trkseg/>
          </trk>
          <trk/>
          <extensions><ext:x/></extensions>
        </gpx>
        """

    @Test("a document with every element of GPX 1.1 in order validates")
    func everyElement() throws {
        let result = try XMLLint.validate(Self.everything)
        #expect(result.status == 0, "\(result.output)")
    }

    /// The schema is not vacuous: each change below breaks one of its rules, and xmllint says so.
    @Test(
        "documents breaking the schema's rules fail validation",
        arguments: [
            ("a wpt child out of order", "<ele>400.5</ele><time>2024-05-01T10:00:00Z</time>", "<time>2024-05-01T10:00:00Z</time><ele>400.5</ele>"),
            ("name before time in a wpt", "<time>2024-05-01T10:00:00Z</time><magvar>", "<name>X</name><time>2024-05-01T10:00:00Z</time><magvar>"),
            ("latitude 91", #"<wpt lat="47.1" lon="8.5">"#, #"<wpt lat="91" lon="8.5">"#),
            ("longitude 180", #"<trkpt lat="47.1" lon="8.5">"#, #"<trkpt lat="47.1" lon="180">"#),
            ("magvar 360", "<magvar>359.99</magvar>", "<magvar>360</magvar>"),
            ("an unknown fix", "<fix>dgps</fix>", "<fix>3D</fix>"),
            ("dgpsid 1024", "<dgpsid>1023</dgpsid>", "<dgpsid>1024</dgpsid>"),
            ("a negative sat count", "<sat>12</sat>", "<sat>-1</sat>"),
            ("a time that is not xsd:dateTime", "<time>2024-05-01T10:00:01.5Z</time>", "<time>2024-05-01 10:00:01</time>"),
            ("an elevation that is not a decimal", "<ele>-3</ele>", "<ele>1e3</ele>"),
            ("version 1.0", #"version="1.1""#, #"version="1.0""#),
            ("no creator", #"creator="Another program" "#, ""),
            (
                "a track after the trailing extensions", "  <extensions><ext:x/></extensions>\n</gpx>",
                "  <extensions><ext:x/></extensions>\n  <trk/>\n</gpx>"
            ),
            ("a waypoint after a track", "  <trk/>\n", "  <trk/>\n  <wpt lat=\"0\" lon=\"0\"/>\n"),
            ("a link without href", #"<link href="https://example.org/b"/>"#, "<link/>"),
            ("an element of GPX in extensions", "<extensions><ext:x/></extensions>\n  </wpt>", "<extensions><name>x</name></extensions>\n  </wpt>"),
            ("an unknown GPX element", "<keywords>walk, test</keywords>", "<keywords>walk, test</keywords><tags>x</tags>"),
            ("a copyright without author", #"<copyright author="Someone">"#, "<copyright>"),
            ("bounds without maxlon", #" maxlon="179.9999999""#, ""),
        ])
    func invalidDocuments(change: String, original: String, replacement: String) throws {
        #expect(Self.everything.contains(original), "the test's original text for \(change) is not in the document")
        let broken = Self.everything.replacingOccurrences(of: original, with: replacement)
        let result = try XMLLint.validate(broken)
        #expect(result.status == 3, "\(change): xmllint exited with \(result.status): \(result.output)")
        #expect(result.output.contains("fails to validate"), "\(change): \(result.output)")
    }

    @Test("GPXDocument's output with a waypoint's time moved before its ele, or a latitude of 91, fails")
    func brokenExport() throws {
        let xml = Self.walk.xml()
        let outOfOrder = xml.replacingOccurrences(
            of: "    <ele>409.5</ele>\n    <time>2024-05-01T10:00:43.750Z</time>\n    <name>",
            with: "    <time>2024-05-01T10:00:43.750Z</time>\n    <ele>409.5</ele>\n    <name>")
        #expect(outOfOrder != xml)
        #expect(try XMLLint.validate(outOfOrder).status == 3)
        let polar = xml.replacingOccurrences(of: #"<wpt lat="47.3778000""#, with: #"<wpt lat="91.0000000""#)
        #expect(polar != xml)
        #expect(try XMLLint.validate(polar).status == 3)
    }
}
