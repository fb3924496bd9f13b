import ArgumentParser
import BusTesting
import Foundation

/// `stepcompass-buslab photo-server`: a local stand-in for Wikimedia Commons and Flickr, for offline runs (`make run`)
/// and the journal's load test. Never a real photo service: its photos are small generated images.
struct PhotoServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo-server",
        abstract: "Serve a local stand-in for the Wikimedia Commons and Flickr photo APIs (generated photos), for offline runs.",
        discussion: """
            Answers /w/api.php (MediaWiki geosearch with imageinfo) and /services/rest/ (flickr.photos.search; the key \
            'invalid' is refused) in the real services' shapes, with photos made up around the asked point, and the \
            images at /images/ID.png. Point the journal at it: stepcompass-journal --wikimedia-url \
            http://127.0.0.1:PORT/w/api.php (or --flickr-url http://127.0.0.1:PORT/services/rest/ with any \
            --flickr-key). Stop with Ctrl-C.
            """)

    @Option(help: "Port to listen on.") var port = 8095
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(name: .customLong("latency-ms"), help: "Delay of every answer, in milliseconds (a server far away).") var latencyMilliseconds: Int64 = 0
    @Option(name: .customLong("photos"), help: "Photos per search answer.") var photos = 5

    func run() async throws {
        let latency = latencyMilliseconds
        let count = photos
        let base = "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
        let server = try await TestHTTPServer.start(host: host, port: port) { request, _ in
            let reply = LocalPhotoAPI(baseURL: base, photosPerAnswer: count).reply(to: request.path)
            return latency > 0 ? .delayed(milliseconds: latency, reply) : reply
        }
        print("photo-server: listening on \(server.baseURL) (Wikimedia: \(base)/w/api.php, Flickr: \(base)/services/rest/), latency \(latency) ms")
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3_600))
        }
    }
}
