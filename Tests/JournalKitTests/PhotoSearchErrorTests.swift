import Foundation
import Testing

@testable import JournalKit

@Suite("PhotoSearchError: descriptions and retry hints")
struct PhotoSearchErrorTests {
    @Test("descriptions say what happened in plain words")
    func descriptions() {
        #expect(
            PhotoSearchError.invalidKey("Invalid API Key (Key has invalid format)").description
                == "the Flickr API key is not valid: Invalid API Key (Key has invalid format)")
        #expect(
            PhotoSearchError.serviceError(code: "105", message: "Service currently unavailable", retryable: true).description
                == "the photo service answered with error 105: Service currently unavailable (temporary)")
        #expect(
            PhotoSearchError.serviceError(code: "112", message: "Method not found", retryable: false).description
                == "the photo service answered with error 112: Method not found")
        #expect(PhotoSearchError.malformed("the response is not JSON: <html>").description == "the response is not JSON: <html>")
    }

    @Test("retryable: temporary service errors and malformed bodies, not a bad key")
    func retryable() {
        #expect(!PhotoSearchError.invalidKey("x").isRetryable)
        #expect(PhotoSearchError.serviceError(code: "maxlag", message: "", retryable: true).isRetryable)
        #expect(!PhotoSearchError.serviceError(code: "badvalue", message: "", retryable: false).isRetryable)
        #expect(PhotoSearchError.malformed("x").isRetryable)
    }

    @Test("a not-JSON error quotes at most 100 characters of the body, whitespace collapsed")
    func preview() {
        let body = "<html>\n  <body>" + String(repeating: "x", count: 500) + "</body></html>"
        let description = PhotoSearchError.notJSON(Data(body.utf8)).description
        #expect(description.hasPrefix("the response is not JSON: <html> <body>xxx"))
        #expect(description.count == "the response is not JSON: ".count + 100 + 1)
        #expect(description.hasSuffix("…"))
        #expect(PhotoSearchError.notJSON(Data()).description == "the response is not JSON: (an empty body)")
    }
}
