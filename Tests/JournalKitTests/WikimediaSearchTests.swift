import Foundation
import JournalKit
import Testing

@Suite("WikimediaSearch: the geosearch query and the MediaWiki response")
struct WikimediaSearchTests {
    func parse(_ json: String) throws -> [PhotoCandidate] {
        try WikimediaSearch.parse(Data(json.utf8))
    }

    func error(_ json: String) -> PhotoSearchError? {
        do {
            _ = try WikimediaSearch.parse(Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    func isMalformed(_ json: String) -> Bool {
        if case .malformed? = error(json) { true } else { false }
    }

    /// Formatversion 1: pages keyed by id, in no particular order; `index` is the search's order.
    let version1 = #"""
        {"batchcomplete":"","query":{"pages":{
          "555":{"pageid":555,"ns":6,"title":"File:Second place.png","index":2,
            "coordinates":[{"lat":52.5205,"lon":13.4051,"primary":"","globe":"earth"}],
            "imagerepository":"local",
            "imageinfo":[{"size":"2048","width":"1600","height":"1200","url":"//upload.wikimedia.org/a/ab/Second_place.png",
              "descriptionurl":"//commons.wikimedia.org/wiki/File:Second_place.png","mime":"image/png",
              "extmetadata":{"DateTimeOriginal":{"value":"2019-05-04"}}}]},
          "123":{"pageid":123,"ns":6,"title":"File:Foo bar.jpg","index":1,
            "coordinates":[{"lat":52.52,"lon":13.405,"primary":"","globe":"earth"}],
            "imagerepository":"local",
            "imageinfo":[{"size":123456,"width":4000,"height":3000,
              "thumburl":"https://upload.wikimedia.org/wikipedia/commons/thumb/a/a1/Foo_bar.jpg/640px-Foo_bar.jpg",
              "thumbwidth":640,"thumbheight":480,
              "url":"https://upload.wikimedia.org/wikipedia/commons/a/a1/Foo_bar.jpg",
              "descriptionurl":"https://commons.wikimedia.org/wiki/File:Foo_bar.jpg","mime":"image/jpeg",
              "extmetadata":{
                "Artist":{"value":"<a href=\"//commons.wikimedia.org/wiki/User:X\" title=\"User:X\">Jane &amp; John&#39;s\n  <b>Photo</b>&nbsp;Club</a> &#233;t&#xE9;","source":"commons-desc-page"},
                "LicenseShortName":{"value":"CC BY-SA 4.0"},
                "LicenseUrl":{"value":"https://creativecommons.org/licenses/by-sa/4.0"},
                "DateTimeOriginal":{"value":"2019-05-04 12:34:56"},
                "ObjectName":{"value":"Foo bar"}}}]},
          "777":{"pageid":777,"ns":6,"title":"File:Map.svg","index":0,
            "imageinfo":[{"url":"https://upload.wikimedia.org/x/Map.svg","thumburl":"https://upload.wikimedia.org/x/640px-Map.svg.png",
              "descriptionurl":"https://commons.wikimedia.org/wiki/File:Map.svg","mime":"image/svg+xml"}]},
          "888":{"pageid":888,"ns":6,"title":"File:No info.jpg","index":3},
          "999":{"pageid":999,"ns":6,"title":"File:No url.jpg","index":4,"imageinfo":[{"mime":"image/jpeg"}]},
          "42":{"pageid":"42","ns":6,"title":"File:Without index.webp",
            "imageinfo":[{"url":"https://upload.wikimedia.org/c/Without_index.webp","descriptionurl":"https://commons.wikimedia.org/wiki/File:Without_index.webp","mime":"image/webp",
              "extmetadata":{"Artist":{"value":"<span></span>"},"DateTimeOriginal":{"value":"<time class=\"dtstart\" datetime=\"2020-02-29\">29 February 2020</time>"}}}]},
          "41":{"pageid":41,"ns":6,"title":"File:Also without index.gif",
            "imageinfo":[{"url":"https://upload.wikimedia.org/c/Also.gif","descriptionurl":"https://commons.wikimedia.org/wiki/File:Also.gif","mime":"image/gif",
              "extmetadata":{"DateTimeOriginal":{"value":"taken some time in the 1950s"}}}]}
        }}}
        """#

    @Test("the query items, in order, with the coordinate to 6 decimals")
    func query() {
        let items = WikimediaSearch.queryItems(near: GeoCoordinate(latitude: 52.52, longitude: -0.1278), radius: 300)
        #expect(
            items.map(\.name) == [
                "action", "format", "generator", "ggscoord", "ggsradius", "ggslimit", "ggsnamespace", "prop", "iiprop",
                "iiurlwidth", "iiextmetadatafilter",
            ])
        #expect(
            items.map(\.value) == [
                "query", "json", "geosearch", "52.520000|-0.127800", "300", "20", "6", "imageinfo|coordinates",
                "url|extmetadata|size|mime", "640", "Artist|LicenseShortName|LicenseUrl|DateTimeOriginal|ObjectName",
            ])
    }

    @Test("the radius is clamped to 10...10 000 m")
    func radiusClamped() {
        func radius(_ metres: Int) -> String? {
            WikimediaSearch.queryItems(near: GeoCoordinate(latitude: 0, longitude: 0), radius: metres).first { $0.name == "ggsradius" }?.value
        }
        #expect(radius(1) == "10")
        #expect(radius(50_000) == "10000")
        #expect(radius(2500) == "2500")
        let items = WikimediaSearch.queryItems(near: GeoCoordinate(latitude: 0, longitude: 0), radius: 100, limit: 5, thumbnailWidth: 320)
        #expect(items.first { $0.name == "ggslimit" }?.value == "5")
        #expect(items.first { $0.name == "iiurlwidth" }?.value == "320")
    }

    @Test("formatversion 1: pages in index order, SVG and pages without image info or URL skipped")
    func version1Order() throws {
        let photos = try parse(version1)
        // Index 0 is the SVG (skipped), 1 Foo bar, 2 Second place, 3 and 4 have no usable image info,
        // then the two without an index by page id: 41 before 42.
        #expect(photos.map(\.id) == ["wikimedia:123", "wikimedia:555", "wikimedia:41", "wikimedia:42"])
        #expect(photos.allSatisfy { $0.source == .wikimedia })
    }

    @Test("a full page: ObjectName title, HTML stripped from the artist, licence, thumbnail, coordinate, time")
    func fullPage() throws {
        let photo = try #require(try parse(version1).first)
        #expect(photo.title == "Foo bar")
        #expect(photo.author == "Jane & John's Photo Club été")
        #expect(photo.license == "CC BY-SA 4.0")
        #expect(photo.licenseURL == "https://creativecommons.org/licenses/by-sa/4.0")
        #expect(photo.pageURL == "https://commons.wikimedia.org/wiki/File:Foo_bar.jpg")
        #expect(photo.imageURL == "https://upload.wikimedia.org/wikipedia/commons/thumb/a/a1/Foo_bar.jpg/640px-Foo_bar.jpg")
        #expect(photo.coordinate == GeoCoordinate(latitude: 52.52, longitude: 13.405))
        // 2019-05-04 12:34:56 UTC = 1 556 973 296 s.
        #expect(photo.taken == 1_556_973_296)
        #expect(photo.width == 640)
        #expect(photo.height == 480)
    }

    @Test("a sparse page: title from the file name, default licence, protocol-relative URLs, string numbers")
    func sparsePage() throws {
        let photos = try parse(version1)
        let photo = try #require(photos.first { $0.id == "wikimedia:555" })
        #expect(photo.title == "Second place")
        #expect(photo.author == nil)
        #expect(photo.license == "See the file page")
        #expect(photo.licenseURL == nil)
        #expect(photo.pageURL == "https://commons.wikimedia.org/wiki/File:Second_place.png")
        #expect(photo.imageURL == "https://upload.wikimedia.org/a/ab/Second_place.png")
        #expect(photo.width == 1600)
        #expect(photo.height == 1200)
        // 2019-05-04 = 1 556 928 000 s.
        #expect(photo.taken == 1_556_928_000)

        let timeElement = try #require(photos.first { $0.id == "wikimedia:42" })
        #expect(timeElement.author == nil)
        #expect(timeElement.title == "Without index")
        #expect(timeElement.coordinate == nil)
        // <time datetime="2020-02-29">: 2020-02-29 = 1 582 934 400 s.
        #expect(timeElement.taken == 1_582_934_400)
        #expect(photos.first { $0.id == "wikimedia:41" }?.taken == nil)
    }

    @Test("formatversion 2: pages as an array")
    func version2() throws {
        let photos = try parse(
            #"""
            {"batchcomplete":true,"query":{"pages":[
              {"pageid":2,"ns":6,"title":"File:B.jpeg","index":2,"imageinfo":[{"url":"https://u/B.jpeg","descriptionurl":"https://c/B","mime":"image/jpeg"}]},
              {"pageid":1,"ns":6,"title":"File:A.JPG","index":1,"imageinfo":[{"url":"https://u/A.JPG","descriptionurl":"https://c/A","mime":"IMAGE/JPEG",
                "extmetadata":{"DateTimeOriginal":{"value":"2019-05-04T12:34:56"},"Artist":{"value":"Plain Name"}}}]}
            ]}}
            """#)
        #expect(photos.map(\.id) == ["wikimedia:1", "wikimedia:2"])
        #expect(photos[0].title == "A")
        #expect(photos[0].author == "Plain Name")
        #expect(photos[0].taken == 1_556_973_296)
        #expect(photos[1].imageURL == "https://u/B.jpeg")
    }

    @Test("no query (nothing near) gives no photos")
    func empty() throws {
        #expect(try parse(#"{"batchcomplete":""}"#).isEmpty)
        #expect(try parse(#"{"batchcomplete":"","query":{"pages":{}}}"#).isEmpty)
        #expect(try parse(#"{"batchcomplete":true,"query":{"pages":[]}}"#).isEmpty)
        #expect(try parse(#"{"batchcomplete":"","query":[]}"#).isEmpty)
    }

    @Test("an error answer is a service error, retryable for rate limits, maxlag and read-only mode")
    func errors() {
        #expect(
            error(#"{"error":{"code":"ratelimited","info":"You've exceeded your rate limit.","*":"..."},"servedby":"mw1"}"#)
                == .serviceError(code: "ratelimited", message: "You've exceeded your rate limit.", retryable: true))
        #expect(
            error(#"{"error":{"code":"maxlag","info":"Waiting for a database server: 6 seconds lagged."}}"#)
                == .serviceError(code: "maxlag", message: "Waiting for a database server: 6 seconds lagged.", retryable: true))
        #expect(
            error(#"{"error":{"code":"readonly","info":"The wiki is in read-only mode."}}"#)
                == .serviceError(code: "readonly", message: "The wiki is in read-only mode.", retryable: true))
        #expect(
            error(#"{"error":{"code":"invalidcoord","info":"Invalid coordinate provided."}}"#)
                == .serviceError(code: "invalidcoord", message: "Invalid coordinate provided.", retryable: false))
    }

    @Test("garbage, truncated or non-object bodies are malformed, never a crash")
    func malformed() {
        #expect(isMalformed("<html><body>502 Bad Gateway</body></html>"))
        #expect(isMalformed(""))
        #expect(isMalformed(String(version1.prefix(300))))
        #expect(isMalformed("[1,2,3]"))
        #expect(isMalformed("\"just a string\""))
        #expect(isMalformed(#"{"query":"nope"}"#))
        #expect(isMalformed(#"{"query":{"pages":"nope"}}"#))
        let description = error("<html><body>502 Bad Gateway</body></html>")?.description
        #expect(description == "the response is not JSON: <html><body>502 Bad Gateway</body></html>")
    }

    @Test("pages that are not objects or have no page id are skipped")
    func oddPages() throws {
        let photos = try parse(
            #"""
            {"query":{"pages":[1, "x", {"ns":6,"title":"File:No id.jpg","imageinfo":[{"url":"https://u/x.jpg"}]},
              {"pageid":5,"title":"File:No mime.jpg","imageinfo":[{"url":"https://u/5.jpg"}]},
              {"pageid":6,"title":"File:Café 100%.jpg","imageinfo":[{"url":"https://u/6.jpg"}]}]}}
            """#)
        #expect(photos.map(\.id) == ["wikimedia:5", "wikimedia:6"])
        // Without descriptionurl the page URL is built from the title, %-encoded where a path needs it.
        #expect(photos.first?.pageURL == "https://commons.wikimedia.org/wiki/File:No_mime.jpg")
        #expect(photos.last?.pageURL == "https://commons.wikimedia.org/wiki/File:Caf%C3%A9_100%25.jpg")
        #expect(photos.last?.title == "Café 100%")
    }
}
