import Foundation
import NIOHTTP1

/// A local stand-in for the photo services the journal asks: the MediaWiki API of Wikimedia Commons
/// (`/w/api.php?action=query&generator=geosearch...`) and Flickr's REST API (`/services/rest/?method=
/// flickr.photos.search...`), answering in their real shapes with photos made up around the asked point, and the
/// images themselves (`/images/ID.png`, small PNGs).
///
/// The photos near a place are the same every time it is asked (they come from a 0.001° grid cell), so a walker back
/// at a place meets the same results, as with the real services. Flickr answers `{"stat":"fail","code":100}` to the
/// key `invalid`. For tests, `make run` (offline) and the journal's benchmark; never a real service.
public struct LocalPhotoAPI: Sendable {
    /// The server's base URL, for the image and page links in the answers.
    public let baseURL: String
    /// Photos per answer.
    public let photosPerAnswer: Int

    public init(baseURL: String, photosPerAnswer: Int = 5) {
        self.baseURL = baseURL
        self.photosPerAnswer = photosPerAnswer
    }

    /// The answer to a request path (with its query).
    public func reply(to path: String) -> TestHTTPServer.Reply {
        let components = URLComponents(string: path)
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        switch components?.path ?? "" {
        case "/w/api.php":
            return json(wikimedia(query))
        case "/services/rest", "/services/rest/":
            return json(flickr(query))
        case let image where image.hasPrefix("/images/"):
            let id = UInt64(image.dropFirst("/images/".count).prefix { $0.isNumber }) ?? 0
            let colour = id &* 0x9E37_79B9_7F4A_7C15
            return .respond(
                status: .ok, headers: [("Content-Type", "image/png")],
                body: TinyPNG.image(
                    red: UInt8(truncatingIfNeeded: colour >> 8), green: UInt8(truncatingIfNeeded: colour >> 24),
                    blue: UInt8(truncatingIfNeeded: colour >> 40)))
        default:
            return .status(.notFound)
        }
    }

    /// The ids of the photos near a point: from its 0.001° cell.
    func photoIDs(latitude: Double, longitude: Double) -> [UInt64] {
        let cellLatitude = UInt64(bitPattern: Int64((latitude * 1_000).rounded()) + 1_000_000)
        let cellLongitude = UInt64(bitPattern: Int64((longitude * 1_000).rounded()) + 1_000_000)
        let cell = (cellLatitude &* 4_000_037 &+ cellLongitude) % 100_000_000
        return (0..<UInt64(photosPerAnswer)).map { cell * 100 + $0 + 1 }
    }

    private func coordinate(_ text: String?) -> (Double, Double)? {
        guard let parts = text?.split(separator: "|"), parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else { return nil }
        return (lat, lon)
    }

    private func wikimedia(_ query: [String: String]) -> String {
        guard query["action"] == "query", let (lat, lon) = coordinate(query["ggscoord"]) else {
            return #"{"error":{"code":"badquery","info":"ggscoord is required"}}"#
        }
        var pages: [String] = []
        for (index, id) in photoIDs(latitude: lat, longitude: lon).enumerated() {
            let plat = lat + Double(index) * 0.0001
            pages.append(
                """
                "\(id)":{"pageid":\(id),"ns":6,"title":"File:Local photo \(id).png","index":\(index + 1),\
                "coordinates":[{"lat":\(plat),"lon":\(lon),"primary":"","globe":"earth"}],"imagerepository":"local",\
                "imageinfo":[{"size":1234,"width":640,"height":480,"thumburl":"\(baseURL)/images/\(id).png","thumbwidth":64,\
                "thumbheight":48,"url":"\(baseURL)/images/\(id).png","descriptionurl":"\(baseURL)/wiki/File:Local_photo_\(id).png",\
                "mime":"image/png","extmetadata":{"Artist":{"value":"<a href=\\"\(baseURL)/wiki/User:Local\\">Local photographer</a>"},\
                "LicenseShortName":{"value":"CC BY-SA 4.0"},"LicenseUrl":{"value":"https://creativecommons.org/licenses/by-sa/4.0"},\
                "DateTimeOriginal":{"value":"2024-05-04 12:34:56"},"ObjectName":{"value":"Local photo \(id)"}}}]}
                """)
        }
        return #"{"batchcomplete":"","query":{"pages":{"# + pages.joined(separator: ",") + "}}}"
    }

    private func flickr(_ query: [String: String]) -> String {
        guard query["method"] == "flickr.photos.search" else {
            return #"{"stat":"fail","code":112,"message":"Method \"\#(query["method"] ?? "")\" not found"}"#
        }
        guard let key = query["api_key"], !key.isEmpty, key != "invalid" else {
            return #"{"stat":"fail","code":100,"message":"Invalid API Key (Key has invalid format)"}"#
        }
        guard let lat = Double(query["lat"] ?? ""), let lon = Double(query["lon"] ?? "") else {
            return #"{"stat":"fail","code":3,"message":"Parameterless searches have been disabled. Please use flickr.photos.getRecent instead."}"#
        }
        let photos = photoIDs(latitude: lat, longitude: lon).map { id in
            """
            {"id":"\(id)","owner":"12345@N01","secret":"abc","server":"1","farm":1,"title":"Local photo \(id)","ispublic":1,\
            "isfriend":0,"isfamily":0,"license":"4","ownername":"Local photographer","datetaken":"2024-05-04 12:34:56",\
            "latitude":"\(lat)","longitude":\(lon),"accuracy":"16","url_z":"\(baseURL)/images/\(id).png","height_z":48,"width_z":"64"}
            """
        }
        return #"{"photos":{"page":1,"pages":1,"perpage":50,"total":"\#(photos.count)","photo":["# + photos.joined(separator: ",")
            + #"]},"stat":"ok"}"#
    }

    private func json(_ text: String) -> TestHTTPServer.Reply {
        .respond(status: .ok, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(text.utf8))
    }
}
