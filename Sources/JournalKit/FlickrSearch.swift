public import Foundation

/// Flickr's `flickr.photos.search` by location: the query, the licences shown, and the parsing of the answer.
///
/// The request goes to `https://api.flickr.com/services/rest/` with
/// ``queryItems(apiKey:near:radiusKilometres:perPage:minimumUploadDate:)``.
public enum FlickrSearch {
    /// The licences a photo may have to be shown (with attribution): every licence Flickr lists except 0,
    /// All Rights Reserved.
    public static let displayableLicenses: [Int] = Array(1...16)

    /// Flickr's licence ids with their short names and deeds, as `flickr.photos.licenses.getInfo` lists them.
    private static let licenses: [Int: (name: String, url: String?)] = [
        1: ("CC BY-NC-SA 2.0", "https://creativecommons.org/licenses/by-nc-sa/2.0/"),
        2: ("CC BY-NC 2.0", "https://creativecommons.org/licenses/by-nc/2.0/"),
        3: ("CC BY-NC-ND 2.0", "https://creativecommons.org/licenses/by-nc-nd/2.0/"),
        4: ("CC BY 2.0", "https://creativecommons.org/licenses/by/2.0/"),
        5: ("CC BY-SA 2.0", "https://creativecommons.org/licenses/by-sa/2.0/"),
        6: ("CC BY-ND 2.0", "https://creativecommons.org/licenses/by-nd/2.0/"),
        7: ("No known copyright restrictions", "https://www.flickr.com/commons/usage/"),
        8: ("United States Government Work", "https://www.usa.gov/government-works"),
        9: ("CC0 1.0 (Public Domain Dedication)", "https://creativecommons.org/publicdomain/zero/1.0/"),
        10: ("Public Domain Mark 1.0", "https://creativecommons.org/publicdomain/mark/1.0/"),
        11: ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/"),
        12: ("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/"),
        13: ("CC BY-ND 4.0", "https://creativecommons.org/licenses/by-nd/4.0/"),
        14: ("CC BY-NC 4.0", "https://creativecommons.org/licenses/by-nc/4.0/"),
        15: ("CC BY-NC-SA 4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/"),
        16: ("CC BY-NC-ND 4.0", "https://creativecommons.org/licenses/by-nc-nd/4.0/"),
    ]

    /// The short name and deed URL of a Flickr licence id; nil for 0 (All Rights Reserved) and unknown ids.
    public static func license(_ id: Int) -> (name: String, url: String?)? {
        licenses[id]
    }

    /// The query string, in order, for public, safe, geotagged photos (not screenshots) within `radiusKilometres`
    /// (clamped to 0.01...31.9 km) of `near`, with a displayable licence, uploaded since `minimumUploadDate`
    /// (seconds since 1970; Flickr answers geo queries without such a limit with the last 12 hours only),
    /// `perPage` of them (clamped to 1...500), as JSON without a callback.
    public static func queryItems(
        apiKey: String, near: GeoCoordinate, radiusKilometres: Double, perPage: Int = 50, minimumUploadDate: Int = 946_684_800
    ) -> [(name: String, value: String)] {
        let radius = radiusKilometres.isFinite ? min(31.9, max(0.01, radiusKilometres)) : 31.9
        return [
            ("method", "flickr.photos.search"),
            ("api_key", apiKey),
            ("lat", DecimalText.fixed(near.latitude, places: 6)),
            ("lon", DecimalText.fixed(near.longitude, places: 6)),
            ("radius", DecimalText.fixed(radius, places: 3)),
            ("radius_units", "km"),
            ("safe_search", "1"),
            ("content_type", "1"),
            ("media", "photos"),
            ("geo_context", "2"),
            ("has_geo", "1"),
            ("license", displayableLicenses.map(String.init).joined(separator: ",")),
            ("min_upload_date", String(minimumUploadDate)),
            ("extras", "url_z,license,owner_name,date_taken,geo"),
            ("per_page", String(min(500, max(1, perPage)))),
            ("format", "json"),
            ("nojsoncallback", "1"),
        ]
    }

    /// The photos of a `flickr.photos.search` response, in Flickr's order.
    ///
    /// Whitespace around the body is ignored, and a JSONP body (`jsonFlickrApi({...});`) is unwrapped. Ids,
    /// counts, coordinates, sizes and licences are read whether they come as numbers or strings. Photos without an
    /// id, without a displayable licence, or without any way to build an image URL are skipped.
    /// - Throws: ``PhotoSearchError/invalidKey(_:)`` for error 100; ``PhotoSearchError/serviceError(code:message:retryable:)``
    ///   for other `"stat":"fail"` answers (retryable for 105 service unavailable and 10 search unavailable);
    ///   ``PhotoSearchError/malformed(_:)`` for a body that is not JSON, has no `stat` or no `photos`.
    public static func parse(_ data: Data) throws(PhotoSearchError) -> [PhotoCandidate] {
        let json = try decode(data)
        switch json["stat"]?.string {
        case "fail":
            let code = json["code"]?.int
            let message = json["message"]?.nonEmptyString ?? "no details"
            switch code {
            case 100?: throw .invalidKey(message)
            case 105?, 10?: throw .serviceError(code: String(code ?? 0), message: message, retryable: true)
            default: throw .serviceError(code: code.map(String.init) ?? json["code"]?.nonEmptyString ?? "unknown", message: message, retryable: false)
            }
        case "ok":
            break
        default:
            throw .malformed("the Flickr response has no \"stat\":\"ok\" or \"fail\": \(PhotoSearchError.preview(data))")
        }
        guard let photos = json["photos"], photos.object != nil else {
            throw .malformed("the Flickr response has no photos object: \(PhotoSearchError.preview(data))")
        }
        let list: [JSONValue]
        switch photos["photo"] {
        case nil, .null?: list = []
        case .array(let elements)?: list = elements
        default: throw .malformed("the Flickr response's photo list is not an array")
        }
        return list.compactMap(candidate)
    }

    /// The body as a JSON object, a JSONP wrapper removed.
    private static func decode(_ data: Data) throws(PhotoSearchError) -> JSONValue {
        var body = Substring(decoding: data, as: UTF8.self)
        body = body.drop(while: \.isWhitespace)
        while let last = body.last, last.isWhitespace { body.removeLast() }
        let prefix = "jsonFlickrApi("
        if body.hasPrefix(prefix) {
            body = body.dropFirst(prefix.count)
            if body.hasSuffix(";") { body.removeLast() }
            while let last = body.last, last.isWhitespace { body.removeLast() }
            guard body.hasSuffix(")") else {
                throw .malformed("the Flickr response is truncated JSONP: \(PhotoSearchError.preview(data))")
            }
            body.removeLast()
        }
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: Data(body.utf8))
        } catch {
            throw PhotoSearchError.notJSON(data)
        }
        guard json.object != nil else {
            throw .malformed("the Flickr response is not a JSON object: \(PhotoSearchError.preview(data))")
        }
        return json
    }

    /// One photo as a candidate, nil when it cannot be shown.
    private static func candidate(_ photo: JSONValue) -> PhotoCandidate? {
        guard photo.object != nil, let id = photo["id"]?.nonEmptyString,
            let licenseID = photo["license"]?.int, displayableLicenses.contains(licenseID),
            let license = license(licenseID)
        else { return nil }

        // Only http(s) addresses are downloaded or linked (a mangled answer must not become a link).
        let built = photo["server"]?.nonEmptyString.flatMap { server in
            photo["secret"]?.nonEmptyString.map { "https://live.staticflickr.com/\(server)/\(id)_\($0)_z.jpg" }
        }
        guard let imageURL = photo["url_z"]?.nonEmptyString.flatMap(WebAddress.http) ?? built.flatMap(WebAddress.http) else { return nil }
        let owner = photo["owner"]?.nonEmptyString
        guard
            let pageURL = (owner.map { "https://www.flickr.com/photos/\($0)/\(id)" }).flatMap(WebAddress.http)
                ?? WebAddress.http("https://www.flickr.com/photo.gne?id=\(id)")
        else { return nil }

        var coordinate: GeoCoordinate?
        if let latitude = photo["latitude"]?.double, let longitude = photo["longitude"]?.double,
            !(latitude == 0 && longitude == 0)
        {
            let candidate = GeoCoordinate(latitude: latitude, longitude: longitude)
            if candidate.isValid { coordinate = candidate }
        }

        return PhotoCandidate(
            id: "flickr:\(id)",
            source: .flickr,
            title: photo["title"]?.string.map { HTMLText.collapseWhitespace(HTMLText.decodeEntities($0)) }
                .flatMap { $0.isEmpty ? nil : $0 } ?? "Untitled",
            author: photo["ownername"]?.nonEmptyString ?? owner,
            license: license.name,
            licenseURL: license.url,
            pageURL: pageURL,
            imageURL: imageURL,
            coordinate: coordinate,
            taken: photo["datetaken"]?.string.flatMap(UTCTime.parse),
            width: photo["width_z"]?.int,
            height: photo["height_z"]?.int
        )
    }
}
