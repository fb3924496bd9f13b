/// The photo services the journal can ask.
public enum PhotoSourceKind: String, Sendable, Hashable, Codable, CaseIterable {
    case wikimedia, flickr
}

/// A photo a search returned, with what its attribution needs.
public struct PhotoCandidate: Sendable, Hashable, Codable {
    /// Unique across sources: `wikimedia:<pageid>` or `flickr:<id>`.
    public var id: String
    public var source: PhotoSourceKind
    public var title: String
    /// The author as plain text (HTML stripped); nil when the service gives none.
    public var author: String?
    /// The licence's short name, such as `CC BY-SA 4.0` or `Public domain`.
    public var license: String
    public var licenseURL: String?
    /// The photo's page (the attribution link).
    public var pageURL: String
    /// The image to download (a 640-pixel-wide rendition where the service offers one).
    public var imageURL: String
    /// Where it was taken, when the service says.
    public var coordinate: GeoCoordinate?
    /// When it was taken, seconds since 1970, when the service says.
    public var taken: Double?
    public var width: Int?
    public var height: Int?

    public init(
        id: String, source: PhotoSourceKind, title: String, author: String?, license: String, licenseURL: String?,
        pageURL: String, imageURL: String, coordinate: GeoCoordinate?, taken: Double?, width: Int?, height: Int?
    ) {
        self.id = id
        self.source = source
        self.title = title
        self.author = author
        self.license = license
        self.licenseURL = licenseURL
        self.pageURL = pageURL
        self.imageURL = imageURL
        self.coordinate = coordinate
        self.taken = taken
        self.width = width
        self.height = height
    }
}
