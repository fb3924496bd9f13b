import ArgumentParser
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import StepCompassContract
import StepCompassTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `stepcompass-buslab device-flood`: one message from each of N distinct device ids through a private mosquitto to
/// the real compass or position service, and the service's memory before and after.
///
/// The service's memory must stay bounded whatever the number of ids (`--max-devices`): the report gives its RSS
/// (`VmRSS` of `/proc/PID/status`) before and after the flood and its peak (`VmHWM`), and from its metrics the
/// devices tracked, evicted and refused, the messages rejected and the error reports the rate limit left out.
struct DeviceFlood: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-flood",
        abstract: "Send one message from each of N distinct device ids to the real service and report its memory.",
        discussion: """
            Starts a private mosquitto on a free port and stepcompass-compass or stepcompass-position against it (with \
            --metrics-port), publishes one IMU sample (compass) or steps message (position) per device id \
            (flood-1 ... flood-N, QoS 0, at --rate messages a second), waits until the service has handled them all \
            (its message handling count), and prints the service's RSS before and after, its peak RSS, and the \
            devices tracked, evicted and refused, the messages rejected and the error reports received. Exit code 3 \
            when the service tracks more devices than --max-devices allows or did not handle every message.
            """)

    enum Target: String, ExpressibleByArgument, CaseIterable, Sendable {
        case compass, position

        /// The kind of the messages sent (the `kind` label of the handling metric).
        var kind: String { self == .compass ? "imu" : "steps" }
    }

    @Option(help: "The service: compass or position.") var service: Target = .compass
    @Option(help: "Distinct device ids, one message each.") var ids = 1_000_000
    @Option(help: "Messages a second offered.") var rate = 20_000.0
    @Option(help: "The service's --max-devices (default: its own default).") var maxDevices: Int?
    @Option(help: "Path of the service's executable (default: next to this executable).") var executable: String?
    @Option(help: "Seconds to wait for the service to handle every message after the last is sent.") var timeout = 300.0
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func validate() throws {
        guard ids >= 1, ids <= 100_000_000 else { throw ValidationError("--ids must be 1...100000000") }
        guard rate > 0 else { throw ValidationError("--rate must be positive") }
        if let maxDevices, maxDevices < 1 { throw ValidationError("--max-devices must be at least 1") }
    }

    var executablePath: String { BridgeUnderTest.executablePath(executable, executable: "stepcompass-\(service.rawValue)") }

    func run() async throws {
        try BridgeUnderTest.requireExecutable(executablePath, service: service.rawValue)
        try await PrivateBroker.measure(configuration: "max_queued_messages 2000000") { broker in
            try await measure(port: broker.port)
        }
    }

    private func measure(port: Int) async throws -> Bool {
        let prefix = "stepcompass"
        let metricsPort = try MosquittoBrokerProcess.freePort()
        var arguments: [String] = []
        if let maxDevices { arguments += ["--max-devices", "\(maxDevices)"] }
        let serviceUnderTest = try await BridgeUnderTest.start(
            path: executablePath, arguments: arguments, port: port, prefix: prefix, label: "device-flood", service: service.rawValue,
            environment: ["METRICS_PORT": "\(metricsPort)"])
        let child = serviceUnderTest.process
        defer { child.signal(SIGKILL) }
        let errors = try await serviceUnderTest.probe.subscribe(to: try TopicFilter("\(prefix)/errors/\(service.rawValue)"), qos: .atMostOnce)
        let reports = LockedValue((count: 0, first: ""))
        let reading = Task {
            for await report in errors {
                let text = String(decoding: report.payload, as: UTF8.self)
                reports.withLock { state in
                    state.count += 1
                    if state.first.isEmpty { state.first = text }
                }
            }
        }
        try await Task.sleep(for: .seconds(1))
        let before = (rss: ProcessMemory.residentKiB(pid: child.pid) ?? 0, peak: ProcessMemory.peakKiB(pid: child.pid) ?? 0)
        let metricsBefore = Self.scrape(port: metricsPort)

        // One message per id, written as ready-made MQTT packets a hundredth of a second's worth at a time.
        let publisher = try await RawMQTTClient.onThread("device-flood-connect") {
            try RawMQTTClient(port: port, clientID: "device-flood-publisher")
        }
        let (ids, rate, target) = (ids, rate, service)
        let started = Date()
        try await RawMQTTClient.onThread("device-flood-publish") {
            let chunk = max(1, Int(rate / 100))
            var packets: [UInt8] = []
            packets.reserveCapacity(chunk * 160)
            var next = 0
            let start = Date().timeIntervalSince1970
            while next < ids {
                let due = start + Double(next) / rate
                let wait = due - Date().timeIntervalSince1970
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                // One payload for the whole chunk: its timestamp is the chunk's.
                let payload = Array(Self.payload(target, timestamp: Timestamp.format(Date())).utf8)
                packets.removeAll(keepingCapacity: true)
                for index in next..<min(ids, next + chunk) {
                    let topic = Array("\(prefix)/flood-\(index + 1)/\(target.kind)".utf8)
                    RawMQTTClient.appendPublish(topic: topic, payload: payload, to: &packets)
                }
                try publisher.send(packets)
                next = min(ids, next + chunk)
            }
        }
        let sendSeconds = Date().timeIntervalSince(started)

        // Wait until the service has handled every message (or stops making progress).
        let handledBefore = metricsBefore.value("stepcompass_message_handling_seconds_count", ["kind": target.kind]) ?? 0
        var handled = 0.0
        var lastProgress = Date()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let now = (Self.scrape(port: metricsPort).value("stepcompass_message_handling_seconds_count", ["kind": target.kind]) ?? 0) - handledBefore
            if now > handled {
                handled = now
                lastProgress = Date()
            }
            if handled >= Double(ids) || Date().timeIntervalSince(lastProgress) > 30 || !child.isRunning { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let handleSeconds = Date().timeIntervalSince(started)
        try await Task.sleep(for: .seconds(1))  // the last error reports
        let after = (rss: ProcessMemory.residentKiB(pid: child.pid) ?? 0, peak: ProcessMemory.peakKiB(pid: child.pid) ?? 0)
        let metrics = Self.scrape(port: metricsPort)
        reading.cancel()
        let received = reports.withLock { $0 }

        let tracked = Int(metrics.value("stepcompass_devices_tracked") ?? 0)
        // The services' own default (ServiceRuntime's `DeviceTable.defaultCapacity`, which this target does not
        // import): keep the two the same.
        let limit = maxDevices ?? 100_000
        let figures = Figures(
            service: service.rawValue, ids: ids, maxDevices: limit, sendSeconds: sendSeconds, handleSeconds: handleSeconds,
            handled: Int(handled), rssBeforeKiB: before.rss, rssAfterKiB: after.rss, peakKiB: after.peak, tracked: tracked,
            evicted: Int(metrics.value("stepcompass_devices_evicted_total") ?? 0),
            refused: Int(metrics.value("stepcompass_devices_refused_total") ?? 0),
            rejected: Int(metrics.value("stepcompass_rejected_inputs_total", ["kind": target.kind]) ?? 0),
            reportsDropped: Int(metrics.value("stepcompass_error_reports_dropped_total") ?? 0),
            reportsReceived: received.count, firstReport: received.first, serviceAlive: child.isRunning)
        print(json ? figures.json : figures.text)

        _ = try? await RawMQTTClient.onThread("device-flood-disconnect") { publisher.disconnect() }
        await serviceUnderTest.stop()
        return figures.serviceAlive && tracked <= limit && figures.handled >= ids
    }

    /// The payload of one flood message: a flat device's IMU sample, or a steps count.
    static func payload(_ target: Target, timestamp: String) -> String {
        switch target {
        case .compass: #"{"timestamp":"\#(timestamp)","accel":[0.0,0.0,9.80665],"mag":[0.0,21.0,-44.0]}"#
        case .position: #"{"steps":12,"timestamp":"\#(timestamp)"}"#
        }
    }

    /// The service's `GET /metrics`, read with a plain HTTP/1.0 request (empty when it cannot be read).
    static func scrape(port: Int) -> PrometheusText {
        guard let fd = try? connectLoopback(port: port) else { return PrometheusText("") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            response.append(contentsOf: buffer[0..<count])
        }
        return PrometheusText(String(decoding: response, as: UTF8.self))
    }
}

/// What one flood measured.
struct Figures: Encodable {
    var service: String
    var ids: Int
    var maxDevices: Int
    var sendSeconds: Double
    var handleSeconds: Double
    var handled: Int
    var rssBeforeKiB: Int
    var rssAfterKiB: Int
    var peakKiB: Int
    var tracked: Int
    var evicted: Int
    var refused: Int
    var rejected: Int
    var reportsDropped: Int
    var reportsReceived: Int
    var firstReport: String
    var serviceAlive: Bool

    private func mebibytes(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1_024) }

    var text: String {
        """
        device-flood \(service): \(ids) ids sent in \(String(format: "%.1f", sendSeconds)) s, \(handled) handled after \
        \(String(format: "%.1f", handleSeconds)) s
          RSS before \(mebibytes(rssBeforeKiB)), after \(mebibytes(rssAfterKiB)), peak \(mebibytes(peakKiB))
          devices tracked \(tracked) (--max-devices \(maxDevices)), evicted \(evicted), refused \(refused)
          messages rejected \(rejected); error reports received \(reportsReceived), left out by the rate limit \(reportsDropped)
          first report: \(firstReport.prefix(300))
          service \(serviceAlive ? "still running" : "NOT RUNNING")
        """
    }

    /// One JSON object with the fields above, keys sorted.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
