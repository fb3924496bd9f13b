import JournalKit
import Testing

@Suite("PhotoChooser: the nearest photo the walk does not show yet")
struct PhotoChooserTests {
    func candidate(_ id: String) -> PhotoCandidate {
        PhotoCandidate(
            id: id, source: .wikimedia, title: id, author: nil, license: "CC0", licenseURL: nil,
            pageURL: "https://example.org/\(id)", imageURL: "https://example.org/\(id).jpg", coordinate: nil, taken: nil,
            width: nil, height: nil
        )
    }

    @Test("the first candidate not used, in the services' order")
    func firstUnused() {
        let candidates = ["wikimedia:1", "flickr:2", "wikimedia:3"].map(candidate)
        #expect(PhotoChooser.choose(candidates, excluding: []) == candidates[0])
        #expect(PhotoChooser.choose(candidates, excluding: ["wikimedia:1"]) == candidates[1])
        #expect(PhotoChooser.choose(candidates, excluding: ["wikimedia:1", "flickr:2"]) == candidates[2])
    }

    @Test("nil when every candidate is used or there are none")
    func none() {
        let candidates = ["wikimedia:1", "flickr:2"].map(candidate)
        #expect(PhotoChooser.choose(candidates, excluding: ["wikimedia:1", "flickr:2", "flickr:9"]) == nil)
        #expect(PhotoChooser.choose([], excluding: []) == nil)
    }
}
