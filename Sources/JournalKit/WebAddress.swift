import Foundation

/// Web addresses as the photo services give them, checked before anyone downloads or links them.
enum WebAddress {
    /// `text` as an absolute http(s) URL with a host (`//host/path` becomes `https://host/path`); nil for anything
    /// else (another scheme such as `javascript:`, a relative path, a mangled scheme, spaces).
    static func http(_ text: String) -> String? {
        let absolute = text.hasPrefix("//") ? "https:" + text : text
        guard let url = URL(string: absolute), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        return absolute
    }
}
