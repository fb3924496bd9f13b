import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The whole stack's real executables, each with `--metrics-port`, scraped by Debian's real `prometheus`: every
/// target is up, and a few series say what the stack is doing (the simulator publishing IMU samples, the compass
/// receiving them, everyone connected to the broker).
@Suite("Prometheus scrapes every service", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests && PrometheusProcess.shouldRun))
struct PrometheusScrapeTests {
    static let services = ServiceExecutable.allServices

    @Test("every service's /metrics is up in Prometheus; traffic, connection and rejection series have sensible values")
    func scrape() async throws {
        try await withBroker { broker in
            let prefix = "stepcompass"
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            var processes: [ChildProcess] = []
            var targets: [String: Int] = [:]
            for service in Self.services {
                let port = try MosquittoBrokerProcess.freePort()
                targets[service.service] = port
                var arguments = ["--metrics-port", "\(port)"]
                if service.service == "sensors" { arguments += ["--devices", "2"] }
                processes.append(
                    try await service.start(port: broker.port, prefix: prefix, clientID: "prom-\(service.service)", arguments: arguments))
            }
            defer { for process in processes { process.signal(SIGKILL) } }
            let prometheus = try await PrometheusProcess.launch(targets: targets, folder: folder)
            defer { prometheus.process.signal(SIGKILL) }

            // Every target up (Prometheus scrapes every second).
            var health: [String: String] = [:]
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                health = await prometheus.targetHealth()
                if health.count == targets.count, health.values.allSatisfy({ $0 == "up" }) { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(health.count == targets.count && health.values.allSatisfy { $0 == "up" }, "targets: \(health)\n\(prometheus.process.output)")

            // Series with values that say what the stack does.
            func value(_ query: String) async -> Double? {
                let until = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < until {
                    if let value = await prometheus.query(query), value > 0 { return value }
                    try? await Task.sleep(for: .milliseconds(500))
                }
                return await prometheus.query(query)
            }
            #expect(await value(#"sum(stepcompass_messages_published_total{service="sensors",kind="imu"})"#) ?? 0 > 100)
            #expect(await value(#"sum(stepcompass_messages_received_total{service="compass",kind="imu"})"#) ?? 0 > 100)
            #expect(await value(#"sum(stepcompass_messages_published_total{service="position",kind="position"})"#) ?? 0 >= 1)
            #expect(await value(#"count(stepcompass_mqtt_connected == 1)"#) == Double(targets.count))
            #expect(await value(#"count(count by (service) (stepcompass_service_info))"#) == Double(targets.count))
            // Handling time by kind, devices tracked, the services' own series, the subscriptions' backlog.
            #expect(await value(#"sum(stepcompass_message_handling_seconds_count{service="compass",kind="imu"})"#) ?? 0 > 100)
            #expect(await value(#"stepcompass_devices_tracked{service="compass"}"#) == 2)
            #expect(await value(#"sum(stepcompass_compass_headings_published_total)"#) ?? 0 >= 1)
            #expect(await value(#"sum(stepcompass_position_batches_applied_total)"#) ?? 0 >= 1)
            #expect(await value(#"sum(stepcompass_markers_in_service)"#) ?? 0 > 0)
            #expect(await value(#"sum(stepcompass_bridge_detected_steps_total)"#) ?? 0 > 0)
            #expect(await value(#"sum(stepcompass_message_handling_seconds_count{service="activity",kind="steps"})"#) ?? 0 >= 1)
            #expect(await value(#"stepcompass_devices_tracked{service="journal"}"#) == 2)
            #expect(await value(#"count(stepcompass_subscription_buffered_messages)"#) == Double(targets.count))
            #expect(await prometheus.query(#"sum(stepcompass_subscription_dropped_messages_total)"#) == 0)
            let publisher = try MosquittoBus(
                configuration: MosquittoConfiguration(host: "127.0.0.1", port: broker.port, clientID: "prom-bad", cleanStart: true),
                logger: Logger(label: "test.prometheus"))
            try await publisher.connect()
            try await publisher.publish(BusMessage(topic: "\(prefix)/walker-1/cmd/walk", text: "not json", qos: .atLeastOnce))
            #expect(await value(#"sum(stepcompass_rejected_inputs_total{service="journal",kind="cmd/walk"})"#) == 1)
            await publisher.disconnect()
            for process in processes { process.signal(SIGTERM) }
            for process in processes { _ = await process.waitForExit(timeout: .seconds(15)) }
        }
    }
}

/// Debian's `prometheus` on a free loopback port, scraping `targets` every second, its data in `folder`.
struct PrometheusProcess {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    let process: ChildProcess
    let port: Int

    static var binary: String? {
        ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Always in CI (where a missing binary fails the test), elsewhere when installed.
    static var shouldRun: Bool { ProcessInfo.processInfo.environment["CI"] == "true" || binary != nil }

    static func launch(targets: [String: Int], folder: URL) async throws -> PrometheusProcess {
        guard let binary else {
            throw Missing(description: "prometheus is not installed (apt-get install prometheus; make test installs it as root)")
        }
        let jobs = targets.sorted { $0.key < $1.key }.map { service, port in
            """
              - job_name: \(service)
                scrape_interval: 1s
                static_configs:
                  - targets: ['127.0.0.1:\(port)']
            """
        }.joined(separator: "\n")
        let configuration = folder.appendingPathComponent("prometheus.yml")
        try "global:\n  scrape_interval: 1s\nscrape_configs:\n\(jobs)\n".write(to: configuration, atomically: true, encoding: .utf8)
        let port = try MosquittoBrokerProcess.freePort()
        let process = try await ChildProcess(
            executable: binary,
            arguments: [
                "--config.file=\(configuration.path)", "--storage.tsdb.path=\(folder.appendingPathComponent("tsdb").path)",
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
            ])
        return PrometheusProcess(process: process, port: port)
    }

    private func get(_ path: String) async -> [String: Any]? {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)"),
            let (data, _) = try? await URLSession.shared.data(from: url)
        else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// Each job's health (`up`, `down`, `unknown`).
    func targetHealth() async -> [String: String] {
        guard let data = await get("/api/v1/targets")?["data"] as? [String: Any],
            let active = data["activeTargets"] as? [[String: Any]]
        else { return [:] }
        var health: [String: String] = [:]
        for target in active {
            if let job = (target["labels"] as? [String: Any])?["job"] as? String { health[job] = target["health"] as? String }
        }
        return health
    }

    /// The value of an instant query with one result; nil when it has none.
    func query(_ expression: String) async -> Double? {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        guard let data = await get("/api/v1/query?query=\(encoded)")?["data"] as? [String: Any],
            let result = (data["result"] as? [[String: Any]])?.first,
            let pair = result["value"] as? [Any], pair.count == 2, let text = pair[1] as? String
        else { return nil }
        return Double(text)
    }
}
