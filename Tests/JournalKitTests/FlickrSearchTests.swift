import Foundation
import JournalKit
import Testing

@Suite("FlickrSearch: licences, the search query and the response")
struct FlickrSearchTests {
    func parse(_ json: String) throws -> [PhotoCandidate] {
        try FlickrSearch.parse(Data(json.utf8))
    }

    func error(_ json: String) -> PhotoSearchError? {
        do {
            _ = try FlickrSearch.parse(Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    func isMalformed(_ json: String) -> Bool {
        if case .malformed? = error(json) { true } else { false }
    }

    /// Numbers and strings mixed as Flickr sends them; photo 3 has licence 0, photo 4 none, photo 5 no id,
    /// photo 6 no url_z (built from server and secret), photo 7 no url_z and no secret.
    let body = #"""
        {"photos":{"page":1,"pages":"3207","perpage":100,"total":"320662","photo":[
          {"id":"2777191844","owner":"51035734193@N01","secret":"653a19d017","server":"3059","farm":4,"title":"FAIL",
           "ispublic":1,"isfriend":0,"isfamily":0,"license":"4","ownername":"someone","datetaken":"2008-08-09 13:41:05",
           "datetakengranularity":"0","datetakenunknown":"0","latitude":"52.520008","longitude":13.404954,"accuracy":"16",
           "context":0,"place_id":"x","woeid":"1","geo_is_public":1,
           "url_z":"https://live.staticflickr.com/3059/2777191844_653a19d017_z.jpg","height_z":480,"width_z":"640"},
          {"id":1234567890,"owner":"12@N02","secret":"abc","server":3,"title":"  Tom &amp; Jerry  ","license":12,
           "ownername":"","datetaken":"0000-00-00 00:00:00","latitude":0,"longitude":0,
           "url_z":"https://live.staticflickr.com/3/1234567890_abc_z.jpg","height_z":"427","width_z":640},
          {"id":"3","owner":"x","secret":"s","server":"1","title":"all rights reserved","license":"0","url_z":"https://x/3.jpg"},
          {"id":"4","owner":"x","secret":"s","server":"1","title":"no licence","url_z":"https://x/4.jpg"},
          {"owner":"x","secret":"s","server":"1","title":"no id","license":"4","url_z":"https://x/5.jpg"},
          {"id":"6","owner":"99@N00","secret":"f00d","server":"65535","title":"","license":"9","latitude":"-33.8568","longitude":"151.2153"},
          {"id":"7","owner":"x","server":"1","title":"no secret","license":"4"}
        ]},"stat":"ok"}
        """#

    @Test("licence names and deeds; nil for All Rights Reserved and unknown ids")
    func licenses() throws {
        #expect(FlickrSearch.displayableLicenses == Array(1...16))
        #expect(FlickrSearch.license(0) == nil)
        #expect(FlickrSearch.license(17) == nil)
        #expect(FlickrSearch.license(-1) == nil)
        let byNC = try #require(FlickrSearch.license(1))
        #expect(byNC.name == "CC BY-NC-SA 2.0")
        #expect(byNC.url == "https://creativecommons.org/licenses/by-nc-sa/2.0/")
        #expect(FlickrSearch.license(4)?.name == "CC BY 2.0")
        #expect(FlickrSearch.license(7)?.name == "No known copyright restrictions")
        #expect(FlickrSearch.license(9)?.name == "CC0 1.0 (Public Domain Dedication)")
        #expect(FlickrSearch.license(10)?.url == "https://creativecommons.org/publicdomain/mark/1.0/")
        #expect(FlickrSearch.license(16)?.name == "CC BY-NC-ND 4.0")
        for id in FlickrSearch.displayableLicenses {
            #expect(FlickrSearch.license(id) != nil)
        }
    }

    @Test("the query items, in order")
    func query() {
        let items = FlickrSearch.queryItems(apiKey: "KEY", near: GeoCoordinate(latitude: 52.52, longitude: 13.405), radiusKilometres: 0.3)
        #expect(
            items.map(\.name) == [
                "method", "api_key", "lat", "lon", "radius", "radius_units", "safe_search", "content_type", "media", "geo_context",
                "has_geo", "license", "min_upload_date", "extras", "per_page", "format", "nojsoncallback",
            ])
        #expect(
            items.map(\.value) == [
                "flickr.photos.search", "KEY", "52.520000", "13.405000", "0.300", "km", "1", "1", "photos", "2", "1",
                "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "946684800", "url_z,license,owner_name,date_taken,geo", "50", "json", "1",
            ])
    }

    @Test("the radius is clamped to 0.01...31.9 km")
    func radius() {
        func radius(_ kilometres: Double) -> String? {
            FlickrSearch.queryItems(apiKey: "k", near: GeoCoordinate(latitude: 0, longitude: 0), radiusKilometres: kilometres)
                .first { $0.name == "radius" }?.value
        }
        #expect(radius(0) == "0.010")
        #expect(radius(100) == "31.900")
        #expect(radius(1.23456) == "1.235")
        let items = FlickrSearch.queryItems(
            apiKey: "k", near: GeoCoordinate(latitude: -33.8568, longitude: 151.2153), radiusKilometres: 1, perPage: 10,
            minimumUploadDate: 1_700_000_000)
        #expect(items.first { $0.name == "per_page" }?.value == "10")
        #expect(items.first { $0.name == "min_upload_date" }?.value == "1700000000")
        #expect(items.first { $0.name == "lat" }?.value == "-33.856800")
    }

    @Test("photos in Flickr's order, the undisplayable and unusable ones skipped")
    func order() throws {
        let photos = try parse(body)
        #expect(photos.map(\.id) == ["flickr:2777191844", "flickr:1234567890", "flickr:6"])
        #expect(photos.allSatisfy { $0.source == .flickr })
    }

    @Test("a complete photo, strings and numbers mixed")
    func complete() throws {
        let photo = try #require(try parse(body).first)
        #expect(photo.title == "FAIL")
        #expect(photo.author == "someone")
        #expect(photo.license == "CC BY 2.0")
        #expect(photo.licenseURL == "https://creativecommons.org/licenses/by/2.0/")
        #expect(photo.pageURL == "https://www.flickr.com/photos/51035734193@N01/2777191844")
        #expect(photo.imageURL == "https://live.staticflickr.com/3059/2777191844_653a19d017_z.jpg")
        #expect(photo.coordinate == GeoCoordinate(latitude: 52.520008, longitude: 13.404954))
        // 2008-08-09 13:41:05 UTC = 1 218 289 265 s.
        #expect(photo.taken == 1_218_289_265)
        #expect(photo.width == 640)
        #expect(photo.height == 480)
    }

    @Test("numeric ids, an empty owner name, 0,0 coordinates and a zero date")
    func oddValues() throws {
        let photo = try parse(body)[1]
        #expect(photo.id == "flickr:1234567890")
        #expect(photo.title == "Tom & Jerry")
        #expect(photo.author == "12@N02")
        #expect(photo.license == "CC BY-SA 4.0")
        #expect(photo.coordinate == nil)
        #expect(photo.taken == nil)
        #expect(photo.width == 640)
        #expect(photo.height == 427)
    }

    @Test("without url_z the image URL is built from server, id and secret")
    func builtURL() throws {
        let photo = try parse(body)[2]
        #expect(photo.imageURL == "https://live.staticflickr.com/65535/6_f00d_z.jpg")
        #expect(photo.pageURL == "https://www.flickr.com/photos/99@N00/6")
        #expect(photo.title == "Untitled")
        #expect(photo.license == "CC0 1.0 (Public Domain Dedication)")
        #expect(photo.coordinate == GeoCoordinate(latitude: -33.8568, longitude: 151.2153))
        #expect(photo.width == nil)
    }

    @Test("a JSONP body is unwrapped, with or without the semicolon, whitespace around it ignored")
    func jsonp() throws {
        #expect(try parse("jsonFlickrApi(\(body))").count == 3)
        #expect(try parse("\n  jsonFlickrApi(\(body));\n").count == 3)
        #expect(try parse("jsonFlickrApi(\(body)) ;").count == 3)
        #expect(
            error(#"jsonFlickrApi({"stat":"fail","code":100,"message":"Invalid API Key (Key has invalid format)"})"#)
                == .invalidKey("Invalid API Key (Key has invalid format)"))
        #expect(isMalformed(#"jsonFlickrApi({"stat":"ok","photos":{"photo":[]}}"#))
        #expect(isMalformed("jsonFlickrApi("))
    }

    @Test("empty results")
    func empty() throws {
        #expect(try parse(#"{"photos":{"page":1,"pages":0,"perpage":50,"total":0,"photo":[]},"stat":"ok"}"#).isEmpty)
        #expect(try parse(#"{"photos":{"page":1,"pages":0,"perpage":50,"total":"0"},"stat":"ok"}"#).isEmpty)
    }

    @Test("stat fail: 100 is an invalid key, 105 and 10 are temporary, others are not")
    func failures() {
        #expect(
            error(#"{"stat":"fail","code":100,"message":"Invalid API Key (Key has invalid format)"}"#)
                == .invalidKey("Invalid API Key (Key has invalid format)"))
        #expect(
            error(#"{"stat":"fail","code":"105","message":"Service currently unavailable"}"#)
                == .serviceError(code: "105", message: "Service currently unavailable", retryable: true))
        #expect(
            error(#"{"stat":"fail","code":10,"message":"Sorry, the Flickr search API is not currently available."}"#)
                == .serviceError(code: "10", message: "Sorry, the Flickr search API is not currently available.", retryable: true))
        #expect(
            error(#"{"stat":"fail","code":3,"message":"Parameterless searches have been disabled."}"#)
                == .serviceError(code: "3", message: "Parameterless searches have been disabled.", retryable: false))
        #expect(error(#"{"stat":"fail"}"#) == .serviceError(code: "unknown", message: "no details", retryable: false))
        #expect(
            error(#"{"stat":"fail","code":100,"message":"Invalid API Key (Key has invalid format)"}"#)?.description
                == "the Flickr API key is not valid: Invalid API Key (Key has invalid format)")
    }

    @Test("garbage, truncated bodies and missing stat are malformed, never a crash")
    func malformed() {
        #expect(isMalformed(""))
        #expect(isMalformed("   \n"))
        #expect(isMalformed("<html><head><title>503 Service Unavailable</title></head></html>"))
        #expect(isMalformed(String(body.prefix(200))))
        #expect(isMalformed(#"{"photos":{"photo":[]}}"#))
        #expect(isMalformed(#"{"photos":{"photo":[]},"stat":"maybe"}"#))
        #expect(isMalformed(#"{"stat":"ok"}"#))
        #expect(isMalformed(#"{"stat":"ok","photos":{"photo":{}}}"#))
        #expect(isMalformed("[]"))
        #expect(isMalformed("null"))
        #expect(isMalformed(String(decoding: [0xFF, 0xFE, 0x00, 0x7B], as: UTF8.self)))
    }
}
