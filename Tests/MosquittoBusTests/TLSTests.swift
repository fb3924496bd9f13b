import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import Testing

/// TLS with a CA file, against a real mosquitto TLS listener and certificates made for the test.
/// The openssl command, if installed.
let opensslPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite("TLS", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests && opensslPath != nil))
struct TLSTests {
    /// A throwaway CA and a server certificate for 127.0.0.1, made with the openssl command.
    static func makeCertificates() async throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let openssl = try #require(opensslPath)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=StepCompass test CA",
                "-keyout", "ca.key", "-out", "ca.crt",
            ],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                "-extfile", "san.cnf", "-out", "server.crt",
            ],
        ]
        try "subjectAltName=IP:127.0.0.1\n".write(to: folder.appendingPathComponent("san.cnf"), atomically: true, encoding: .utf8)
        for arguments in steps {
            let process = try await ChildProcess(
                executable: openssl,
                arguments: arguments.map {
                    ["ca.key", "ca.crt", "server.key", "server.csr", "server.crt", "san.cnf"].contains($0)
                        ? folder.appendingPathComponent($0).path : $0
                })
            #expect(await process.waitForExit(timeout: .seconds(30)) == 0, "openssl \(arguments.first ?? ""): \(process.output)")
        }
        return folder
    }

    @Test("a client with the CA file connects over TLS; one without TLS cannot")
    func tlsWithCAFile() async throws {
        let certificates = try await Self.makeCertificates()
        let tlsPort = try MosquittoBrokerProcess.freePort()
        let configuration = """
            listener \(tlsPort) 127.0.0.1
            cafile \(certificates.appendingPathComponent("ca.crt").path)
            certfile \(certificates.appendingPathComponent("server.crt").path)
            keyfile \(certificates.appendingPathComponent("server.key").path)
            """
        try await withBroker(configuration: configuration) { _ in
            let secure = MosquittoConfiguration(
                host: "127.0.0.1", port: tlsPort, clientID: "tls-client",
                tls: .init(caFile: certificates.appendingPathComponent("ca.crt").path), cleanStart: true)
            let bus = try MosquittoBus(configuration: secure, logger: Logger(label: "test.tls"))
            try await bus.connect(timeout: .seconds(10))
            let echo = try await bus.subscribe(to: "tls/echo")
            try await bus.publish(BusMessage(topic: "tls/echo", text: "over TLS", qos: .atLeastOnce))
            #expect(await echo.next(timeout: .seconds(5))?.text == "over TLS")
            await bus.disconnect()

            let plain = MosquittoConfiguration(
                host: "127.0.0.1", port: tlsPort, clientID: "plain-client", cleanStart: true,
                reconnectDelay: .milliseconds(50))
            let plainBus = try MosquittoBus(configuration: plain, logger: Logger(label: "test.plain"))
            await #expect(throws: BusError.self) { try await plainBus.connect(timeout: .seconds(1)) }
            await plainBus.disconnect()
        }
    }

    @Test("a CA file that does not exist is a clear error at configuration time")
    func missingCAFile() throws {
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: 8883, clientID: "tls-missing", tls: .init(caFile: "/nonexistent/ca.crt"))
        #expect(throws: MosquittoError.self) { _ = try MosquittoBus(configuration: configuration, logger: Logger(label: "t")) }
    }
}
