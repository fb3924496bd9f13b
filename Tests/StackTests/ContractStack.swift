import AsyncHTTPClient
import BusTesting
import Foundation
import NIOCore
import NIOHTTP1

/// The eight services built from this tree (the bin folder of the other stack tests), each run as its own compose user
/// against a ``SecureBroker``, with the journal's photos from `stepcompass-buslab photo-server` (a local stand-in for
/// Wikimedia Commons): their data, caches and logs in one temporary folder, their HTTP ports drawn below the ephemeral
/// range by the broker helper's free-port reservation (so no other test of this process is given them).
final class ContractStack {
    /// Every long-running service, in the order they start: the walker (`sensors`) last, once the services that read
    /// it run.
    static let executables =
        ServiceExecutable.allServices.filter { $0.service != "sensors" } + ServiceExecutable.allServices.filter { $0.service == "sensors" }
    /// Their names in the contract (`position`, …).
    static let services = executables.map(\.service)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// An HTTP answer.
    struct Reply {
        let status: Int
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    }

    let folder: URL
    private(set) var processes: [String: ChildProcess] = [:]
    private(set) var photoServer: ChildProcess?
    private(set) var dashboardPort = 0
    private(set) var bridgePort = 0
    private(set) var photoPort = 0

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-stack-contract-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The journal's photo cache, which the dashboard serves under `/journal/photos/`.
    var journalPhotos: URL { ServiceExecutable.journalPhotos(in: folder) }

    /// Removes the folder (logs included) unless `KEEP=1` asks to keep it.
    func remove() {
        if ProcessInfo.processInfo.environment["KEEP"] == "1" {
            print("stack contract: logs and data kept in \(folder.path)")
        } else {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The end of a service's log, for failure messages.
    func logTail(_ service: String) -> String {
        let log = (service == "photo-server" ? photoServer : processes[service])?.output ?? ""
        return "\(service) log: …\(log.suffix(600))"
    }

    /// Starts the photo server, then every service as the compose stack runs it: its user and password, its
    /// arguments (its data in ``folder``), `LOG_LEVEL=notice`, and the bridge with the push token the broker's
    /// entrypoint generated.
    func start(on broker: SecureBroker) async throws {
        (photoServer, photoPort) = try await launchListening("photo-server") { port in
            try await ChildProcess(
                executable: ServiceExecutable(name: "stepcompass-buslab").path, arguments: ["photo-server", "--port", "\(port)"],
                outputFile: self.folder.appendingPathComponent("photo-server.log"))
        }
        for executable in Self.executables {
            let service = executable.service
            let launch = { (port: Int) in
                try await executable.start(
                    port: broker.port, prefix: "stepcompass", clientID: "contract-check-\(service)", arguments: self.arguments(service),
                    folder: self.folder, httpPort: port, username: service, password: broker.password(service),
                    environment: ["LOG_LEVEL": "notice", "TOKEN": service == "bridge" ? broker.bridgeToken : ""],
                    outputFile: self.folder.appendingPathComponent("\(service).log"))
            }
            switch service {
            case "dashboard": (processes[service], dashboardPort) = try await launchListening(service, launch)
            case "bridge": (processes[service], bridgePort) = try await launchListening(service, launch)
            default: processes[service] = try await launch(0)
            }
        }
    }

    /// What a service needs beyond ``ServiceExecutable/testArguments(in:httpPort:)``.
    private func arguments(_ service: String) -> [String] {
        switch service {
        case "sensors": return ["--speed", "4"]
        case "dashboard": return ["--journal-cache-dir", journalPhotos.path]
        case "bridge": return ["--http-host", "127.0.0.1"]
        case "activity": return ["--publish-interval-ms", "200"]
        case "journal":
            // No --auto: the walk is started and stopped by command (a photo point every 20 m: several in the run).
            return ["--photo-every", "20", "--wikimedia-url", "http://127.0.0.1:\(photoPort)/w/api.php"]
        default: return []
        }
    }

    /// Starts a process that listens on a port reserved for it, and waits until it accepts connections there. When it
    /// exits first because another program took the port between the check and its bind, it starts again on another.
    private func launchListening(_ name: String, _ launch: (Int) async throws -> ChildProcess) async throws -> (ChildProcess, Int) {
        for attempt in 1...5 {
            let port = try MosquittoBrokerProcess.freePort()
            let process = try await launch(port)
            var looks = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while process.isRunning, !MosquittoBrokerProcess.canConnect(port: port), ContinuousClock.now < deadline || looks < 500 {
                looks += 1
                try await Task.sleep(for: .milliseconds(20))
            }
            if process.isRunning, MosquittoBrokerProcess.canConnect(port: port) { return (process, port) }
            let exited = !process.isRunning
            let output = process.output
            process.signal(SIGKILL)
            _ = await process.waitForExit()
            guard exited else { throw Failure(description: "\(name) did not accept connections on port \(port) within 60 s: \(output.suffix(600))") }
            guard output.contains("in use"), attempt < 5 else { throw Failure(description: "\(name) exited at start: \(output.suffix(600))") }
        }
        throw Failure(description: "\(name): no free port in 5 tries")
    }

    // MARK: HTTP

    func dashboard(get path: String) async throws -> Reply {
        try await Self.request("http://127.0.0.1:\(dashboardPort)\(path)")
    }

    func dashboard(post path: String, json: String) async throws -> Reply {
        try await Self.request("http://127.0.0.1:\(dashboardPort)\(path)", method: .POST, body: Data(json.utf8), contentType: "application/json")
    }

    func bridge(post path: String, body: Data, contentType: String = "application/json") async throws -> Reply {
        try await Self.request("http://127.0.0.1:\(bridgePort)\(path)", method: .POST, body: body, contentType: contentType)
    }

    private static func request(_ url: String, method: HTTPMethod = .GET, body: Data? = nil, contentType: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let contentType { request.headers.add(name: "content-type", value: contentType) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), body: Data(bytes.readableBytesView))
    }
}
