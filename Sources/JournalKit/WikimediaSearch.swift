public import Foundation

/// Wikimedia Commons geosearch: the query for files near a point and the parsing of the MediaWiki answer.
///
/// The request goes to `https://commons.wikimedia.org/w/api.php` with ``queryItems(near:radius:limit:thumbnailWidth:)``;
/// ``parse(_:)`` reads both the `formatversion=1` (pages keyed by id) and `formatversion=2` (pages as an array) forms.
public enum WikimediaSearch {
    /// The image types kept (what a browser shows); SVG, TIFF, PDF and video files are skipped.
    static let displayableMIMETypes: Set<String> = ["image/jpeg", "image/png", "image/webp", "image/gif"]

    /// The query string, in order, for files (namespace 6) within `radius` metres (clamped to 10...10000) of
    /// `near`, at most `limit` of them (clamped to 1...500), with a thumbnail `thumbnailWidth` pixels wide and the
    /// metadata attribution needs.
    public static func queryItems(
        near: GeoCoordinate, radius: Int, limit: Int = 20, thumbnailWidth: Int = 640
    ) -> [(name: String, value: String)] {
        [
            ("action", "query"),
            ("format", "json"),
            ("generator", "geosearch"),
            ("ggscoord", DecimalText.fixed(near.latitude, places: 6) + "|" + DecimalText.fixed(near.longitude, places: 6)),
            ("ggsradius", String(min(10_000, max(10, radius)))),
            ("ggslimit", String(min(500, max(1, limit)))),
            ("ggsnamespace", "6"),
            ("prop", "imageinfo|coordinates"),
            ("iiprop", "url|extmetadata|size|mime"),
            ("iiurlwidth", String(max(1, thumbnailWidth))),
            ("iiextmetadatafilter", "Artist|LicenseShortName|LicenseUrl|DateTimeOriginal|ObjectName"),
        ]
    }

    /// The photos of a MediaWiki `action=query` response, in the search's order (`index`, nearest first).
    ///
    /// A response without `query` (nothing near) gives no photos. Pages without an image URL, or whose MIME type
    /// is given and is not JPEG, PNG, WebP or GIF, are skipped.
    /// - Throws: ``PhotoSearchError/serviceError(code:message:retryable:)`` for an `error` answer (retryable for
    ///   rate limits, `maxlag` and read-only mode); ``PhotoSearchError/malformed(_:)`` for a body that is not a
    ///   JSON object or whose `query` has the wrong shape.
    public static func parse(_ data: Data) throws(PhotoSearchError) -> [PhotoCandidate] {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw PhotoSearchError.notJSON(data)
        }
        guard json.object != nil else {
            throw .malformed("the Wikimedia response is not a JSON object: \(PhotoSearchError.preview(data))")
        }
        if let error = json["error"] {
            let code = error["code"]?.nonEmptyString ?? "unknown"
            let message = error["info"]?.nonEmptyString ?? "no details"
            let lowered = code.lowercased()
            let retryable = ["ratelimit", "maxlag", "readonly"].contains { lowered.contains($0) }
            throw .serviceError(code: code, message: message, retryable: retryable)
        }
        guard let query = json["query"], query != .null, query != .array([]) else { return [] }
        guard query.object != nil else {
            throw .malformed("the Wikimedia response's query is not an object: \(PhotoSearchError.preview(data))")
        }
        let pages: [JSONValue]
        switch query["pages"] {
        case nil, .null?: pages = []
        case .object(let members)?: pages = Array(members.values)
        case .array(let elements)?: pages = elements
        default: throw .malformed("the Wikimedia response's pages are neither an object nor an array")
        }
        let ordered = pages.compactMap { page -> (index: Int, pageID: Int, candidate: PhotoCandidate)? in
            guard let candidate = candidate(page), let pageID = page["pageid"]?.int else { return nil }
            return (page["index"]?.int ?? Int.max, pageID, candidate)
        }
        return
            ordered
            .sorted { ($0.index, $0.pageID) < ($1.index, $1.pageID) }
            .map(\.candidate)
    }

    /// One page as a candidate, nil when it cannot be shown.
    private static func candidate(_ page: JSONValue) -> PhotoCandidate? {
        guard page.object != nil, let pageID = page["pageid"]?.int,
            let info = page["imageinfo"]?.array?.first, info.object != nil,
            let url = info["url"]?.nonEmptyString
        else { return nil }
        if let mime = info["mime"]?.nonEmptyString, !displayableMIMETypes.contains(mime.lowercased()) { return nil }

        let metadata = info["extmetadata"]
        func meta(_ name: String) -> String? { metadata?[name]?["value"]?.string }

        let fileTitle = page["title"]?.nonEmptyString
        let title = meta("ObjectName").flatMap(HTMLText.plainText) ?? fileTitle.map(titleFromFileName) ?? "File \(pageID)"
        // Only http(s) addresses are downloaded or linked (a mangled answer must not become a link).
        guard let imageURL = info["thumburl"]?.nonEmptyString.flatMap(WebAddress.http) ?? WebAddress.http(url) else { return nil }
        let pageURL =
            info["descriptionurl"]?.nonEmptyString.flatMap(WebAddress.http)
            ?? fileTitle.map(commonsPageURL).flatMap(WebAddress.http) ?? "https://commons.wikimedia.org/wiki/?curid=\(pageID)"

        var coordinate: GeoCoordinate?
        if let first = page["coordinates"]?.array?.first, let latitude = first["lat"]?.double, let longitude = first["lon"]?.double {
            let candidate = GeoCoordinate(latitude: latitude, longitude: longitude)
            if candidate.isValid { coordinate = candidate }
        }

        return PhotoCandidate(
            id: "wikimedia:\(pageID)",
            source: .wikimedia,
            title: title,
            author: meta("Artist").flatMap(HTMLText.plainText),
            license: meta("LicenseShortName").flatMap(HTMLText.plainText) ?? "See the file page",
            licenseURL: meta("LicenseUrl").flatMap(HTMLText.plainText).flatMap(WebAddress.http),
            pageURL: pageURL,
            imageURL: imageURL,
            coordinate: coordinate,
            taken: meta("DateTimeOriginal").flatMap(takenTime),
            width: info["thumbwidth"]?.int ?? info["width"]?.int,
            height: info["thumbheight"]?.int ?? info["height"]?.int
        )
    }

    /// `File:Foo bar.jpg` as `Foo bar`: the namespace prefix and the file extension removed.
    static func titleFromFileName(_ fileTitle: String) -> String {
        var name = Substring(fileTitle)
        if name.hasPrefix("File:") { name = name.dropFirst(5) }
        if let dot = name.lastIndex(of: "."), dot > name.startIndex {
            let fileExtension = name[name.index(after: dot)...]
            if (1...5).contains(fileExtension.count), fileExtension.allSatisfy({ $0.isLetter || $0.isNumber }) {
                name = name[..<dot]
            }
        }
        let trimmed = String(name).trimmingWhitespace()
        return trimmed.isEmpty ? fileTitle : trimmed
    }

    /// The file page of a `File:` title, for a response without `descriptionurl`.
    private static func commonsPageURL(_ fileTitle: String) -> String {
        // RFC 3986 path characters stay (so `File:` keeps its colon, as Commons writes it); the rest is %-encoded.
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/".utf8)
        var path = ""
        for byte in fileTitle.replacingOccurrences(of: " ", with: "_").utf8 {
            if allowed.contains(byte) {
                path.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                path += (byte < 16 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            }
        }
        return "https://commons.wikimedia.org/wiki/" + path
    }

    /// `DateTimeOriginal` as seconds since 1970 (UTC): tried as written (tags stripped), then the `datetime`
    /// attribute of a `<time>` element, then the first 19 and 10 characters (a date with a trailing note).
    static func takenTime(_ value: String) -> Double? {
        var attempts: [String] = []
        if let text = HTMLText.plainText(value) {
            attempts.append(text)
            attempts.append(String(text.prefix(19)))
            attempts.append(String(text.prefix(10)))
        }
        if let range = value.range(of: "datetime=\"") {
            attempts.insert(String(value[range.upperBound...].prefix { $0 != "\"" }), at: min(1, attempts.count))
        }
        for attempt in attempts {
            if let time = UTCTime.parse(attempt) { return time }
        }
        return nil
    }
}
