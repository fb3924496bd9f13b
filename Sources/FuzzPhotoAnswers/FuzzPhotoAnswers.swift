import Foundation
import FuzzSupport
import JournalKit

/// libFuzzer target: the photo services' answers the journal reads: a Wikimedia Commons geosearch, a Flickr
/// `flickr.photos.search` (JSON or JSONP), and the `Retry-After` header of a refusal.
///
/// Properties: parsing never traps and only throws `PhotoSearchError`; every candidate is usable (an id of its
/// source, http(s) image and page addresses with a host, a licence address that is one too, a valid coordinate and
/// a finite time when given) and the chooser picks one of them; a `Retry-After` is a wait of zero or more seconds,
/// and the back-off made from it stays within its caps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count) { bytes in
        PhotoProperties.answer(bytes)
        PhotoProperties.retryAfter(String(decoding: bytes, as: UTF8.self))
    }
}

enum PhotoProperties {
    static func answer(_ bytes: [UInt8]) {
        let data = Data(bytes)
        for (source, parse) in [("wikimedia", WikimediaSearch.parse), ("flickr", FlickrSearch.parse)]
            as [(String, (Data) throws(PhotoSearchError) -> [PhotoCandidate])]
        {
            let candidates: [PhotoCandidate]
            do {
                candidates = try parse(data)
            } catch {
                _ = error.isRetryable
                _ = error.description
                continue
            }
            for candidate in candidates { usable(candidate, source: source) }
            if let chosen = PhotoChooser.choose(candidates, excluding: []) {
                Fuzz.require(candidates.contains(chosen), "\(source): the chooser picked \(chosen.id), which is not a candidate")
            }
        }
    }

    static func usable(_ candidate: PhotoCandidate, source: String) {
        Fuzz.require(candidate.id.hasPrefix("\(source):") && candidate.id.count > source.count + 1, "\(source): the id '\(candidate.id)'")
        Fuzz.require(isWeb(candidate.imageURL), "\(source): the image address '\(candidate.imageURL)'")
        Fuzz.require(isWeb(candidate.pageURL), "\(source): the page address '\(candidate.pageURL)'")
        if let license = candidate.licenseURL { Fuzz.require(isWeb(license), "\(source): the licence address '\(license)'") }
        if let coordinate = candidate.coordinate { Fuzz.require(coordinate.isValid, "\(source): the coordinate \(coordinate)") }
        if let taken = candidate.taken { Fuzz.require(taken.isFinite, "\(source): taken at \(taken)") }
        Fuzz.require(!candidate.title.isEmpty && !candidate.license.isEmpty, "\(source): an empty title or licence")
    }

    /// An absolute http(s) URL with a host (what the journal downloads and links).
    static func isWeb(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host?.isEmpty == false
    }

    static func retryAfter(_ header: String) {
        guard let seconds = RetryAfter.seconds(header, now: 1_732_270_530) else { return }
        Fuzz.require(seconds >= 0, "Retry-After '\(header.prefix(100))' is \(seconds) s")
        let policy = RetryPolicy()
        for attempts in [0, 1, 5, 100] {
            let delay = policy.delay(afterAttempts: attempts, retryAfter: seconds)
            Fuzz.require(
                delay.isFinite && delay >= 0 && delay <= max(policy.maximum, 3_600),
                "a back-off of \(delay) s after \(attempts) attempts and Retry-After \(seconds) s")
        }
    }
}
