import Foundation
import JournalKit
import StepCompassTesting
import Testing

/// Broken variants of real-shaped Wikimedia and Flickr answers: the parsers return candidates or throw
/// ``PhotoSearchError``, never crash; whatever they return is usable (an id, an http(s) image and page URL).
@Suite("Photo search parsers fuzzed with mutated answers")
struct PhotoSearchFuzzTests {
    static let wikimedia =
        #"{"batchcomplete":"","query":{"pages":{"123":{"pageid":123,"ns":6,"title":"File:Foo bar.jpg","index":1,"coordinates":[{"lat":52.5,"lon":13.4}],"imageinfo":[{"size":10,"width":800,"height":600,"thumburl":"https://upload.wikimedia.org/a/640px-Foo.jpg","thumbwidth":640,"thumbheight":480,"url":"https://upload.wikimedia.org/a/Foo.jpg","descriptionurl":"https://commons.wikimedia.org/wiki/File:Foo_bar.jpg","mime":"image/jpeg","extmetadata":{"Artist":{"value":"<a href=\"//x\">Jo &amp; Co</a>"},"LicenseShortName":{"value":"CC BY-SA 4.0"},"DateTimeOriginal":{"value":"2019-05-04 12:34:56"}}}]}}}}"#
    static let flickr =
        #"{"photos":{"page":1,"pages":"3","perpage":100,"total":"250","photo":[{"id":"2777191844","owner":"5@N01","secret":"653a","server":"3059","farm":4,"title":"In the street","license":"4","ownername":"Jo","datetaken":"2008-08-09 13:41:05","latitude":"52.520008","longitude":13.404954,"url_z":"https://live.staticflickr.com/3059/2777191844_653a_z.jpg","height_z":480,"width_z":"640"}]},"stat":"ok"}"#

    /// An absolute http(s) URL with a host.
    static func isWeb(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host?.isEmpty == false
    }

    @Test("Wikimedia and Flickr answers: candidates or PhotoSearchError, never a crash or an unusable candidate")
    func mutatedAnswers() {
        var mutator = JSONMutator(seed: 21)
        var parsed = 0
        for _ in 0..<4_000 {
            for (seed, parse) in [(Self.wikimedia, WikimediaSearch.parse), (Self.flickr, FlickrSearch.parse)]
                as [(String, (Data) throws(PhotoSearchError) -> [PhotoCandidate])]
            {
                let body = Data(mutator.mutate(Array(seed.utf8)))
                guard let candidates = try? parse(body) else { continue }
                parsed += 1
                for candidate in candidates {
                    #expect(!candidate.id.isEmpty)
                    #expect(Self.isWeb(candidate.imageURL), "\(candidate.imageURL) from \(String(decoding: body, as: UTF8.self))")
                    #expect(Self.isWeb(candidate.pageURL), "\(candidate.pageURL)")
                    if let license = candidate.licenseURL { #expect(Self.isWeb(license), "\(license)") }
                }
            }
        }
        #expect(parsed > 100, "the mutations never kept an answer readable: the property was not exercised")
    }
}
