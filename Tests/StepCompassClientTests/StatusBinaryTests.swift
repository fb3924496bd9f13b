import Bus
import BusTesting
import Foundation
import Testing

/// `stepcompass status`, `devices` and `forget`, the real binary against a real broker.
@Suite("The stepcompass binary: status, devices and forget on a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct StatusBinaryTests {
    private func requireBinary() throws {
        try #require(
            StepCompassExecutable.exists,
            "\(StepCompassExecutable.path) is missing: build it with `swift build --build-tests` (or --product stepcompass)")
    }

    private static let services = ["sensors", "compass", "position", "markers", "dashboard", "bridge", "activity", "journal"]

    private func status(_ service: String, _ state: String) -> BusMessage {
        BusMessage(
            topic: "s1/services/\(service)/status",
            text: #"{"state":"\#(state)","service":"\#(service)","version":"0.1.0","startedAt":"2026-11-22T08:00:00.000Z"}"#,
            qos: .atLeastOnce, retain: true)
    }

    @Test("status: every service online exits 0 with mosquitto's own line; one offline exits 1; --json")
    func status() async throws {
        try requireBinary()
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let services = try await harness.makeClient(id: "services-status", cleanStart: true, will: nil)
            for service in Self.services { try await services.publish(status(service, "online")) }
            let all = try await StepCompassExecutable.run(["status"], port: broker.port, prefix: "s1")
            #expect(all.status == 0, "\(all.output)")
            let lines = all.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "service    state   version  up since (UTC)       uptime")
            for service in Self.services {
                #expect(lines.contains { $0.hasPrefix(service) && $0.contains("online  0.1.0    2026-11-22 08:00:00") }, "\(service)")
            }
            #expect(lines.contains("8 of 8 services online"))
            // mosquitto's $SYS tree: its version, uptime and the clients connected (the stand-in and the client).
            let brokerLine = try #require(lines.first { $0.hasPrefix("broker: ") })
            #expect(brokerLine.hasPrefix("broker: mosquitto version "), "\(brokerLine)")
            #expect(brokerLine.contains(", up "), "\(brokerLine)")

            try await services.publish(status("compass", "offline"))
            let some = try await StepCompassExecutable.run(["status"], port: broker.port, prefix: "s1")
            #expect(some.status == 1, "\(some.output)")
            #expect(some.output.contains("compass    offline  0.1.0    —"))
            #expect(some.output.contains("7 of 8 services online; offline: compass"))

            let json = try await StepCompassExecutable.run(["status", "--json"], port: broker.port, prefix: "s1")
            #expect(json.status == 1)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            #expect(object["allOnline"] as? Bool == false)
            #expect((object["broker"] as? [String: Any])?["readable"] as? Bool == true)
            await services.close()
        }
    }

    @Test("status on a broker whose ACL keeps $SYS from the user: the statuses, and a line that says so")
    func sysForbidden() async throws {
        try requireBinary()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-acl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let acl = folder.appendingPathComponent("acl")
        try "topic readwrite s2/#\n".write(to: acl, atomically: true, encoding: .utf8)
        try await withBroker(configuration: "acl_file \(acl.path)") { broker in
            let harness = MosquittoHarness(port: broker.port)
            let services = try await harness.makeClient(id: "services-acl", cleanStart: true, will: nil)
            try await services.publish(
                BusMessage(
                    topic: "s2/services/compass/status",
                    text: #"{"state":"online","service":"compass","version":"0.1.0","startedAt":"2026-11-22T08:00:00.000Z"}"#,
                    qos: .atLeastOnce, retain: true))
            let run = try await StepCompassExecutable.run(["status"], port: broker.port, prefix: "s2")
            await services.close()
            #expect(run.status == 1, "\(run.output)")
            #expect(run.output.contains("compass    online      0.1.0"), "\(run.output)")
            // mosquitto 2.0 grants the $SYS subscription and delivers nothing; a broker that refuses it is said so too.
            let brokerLine = run.output.split(separator: "\n").first { $0.hasPrefix("broker: ") }
            #expect(
                brokerLine?.hasPrefix("broker: not allowed to read $SYS") == true
                    || brokerLine?.hasPrefix("broker: no $SYS messages") == true, "\(run.output)")
        }
    }

    @Test("devices lists the retained devices; forget asks first, then with --yes clears them and sends cmd/forget")
    func devicesAndForget() async throws {
        try requireBinary()
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let services = try await harness.makeClient(id: "services-forget", cleanStart: true, will: nil)
            for (topic, payload) in [
                ("s3/walker-1/heading", #"{"timestamp":"2026-11-22T10:15:31.000Z","status":"ok","heading":10}"#),
                ("s3/walker-1/position", #"{"timestamp":"2026-11-22T10:15:30.250Z","x":1,"y":2,"steps":10}"#),
                ("s3/walker-1/permissions", #"{"motion":"authorized"}"#),
                ("s3/phone-2/permissions", #"{"motion":"denied"}"#),
            ] {
                try await services.publish(BusMessage(topic: topic, text: payload, qos: .atLeastOnce, retain: true))
            }
            let devices = try await StepCompassExecutable.run(["devices", "--json"], port: broker.port, prefix: "s3")
            #expect(devices.status == 0, "\(devices.output)")
            #expect(
                devices.output == #"{"devices":[{"device":"phone-2","lastSeen":null,"topics":["permissions"]},"#
                    + #"{"device":"walker-1","lastSeen":"2026-11-22T10:15:31.000Z","topics":["permissions","heading","position"]}]}"# + "\n")
            let table = try await StepCompassExecutable.run(["devices"], port: broker.port, prefix: "s3")
            #expect(table.status == 0)
            #expect(table.output.contains("walker-1  2026-11-22 10:15:31 ("), "\(table.output)")

            // Without --yes and nobody to answer (standard input is /dev/null): nothing is sent.
            let commands = try await services.subscribe(to: TopicFilter("s3/+/cmd/forget"))
            let unconfirmed = try await StepCompassExecutable.run(["forget", "walker-1"], port: broker.port, prefix: "s3")
            #expect(unconfirmed.status == 1)
            #expect(
                unconfirmed.output
                    == "Forget walker-1 (remove it from Home Assistant; clear its retained permissions, heading, position)? [y/N] \nnot forgotten (answer y, or pass --yes)\n"
            )

            let forgot = try await StepCompassExecutable.run(["forget", "walker-1", "--yes"], port: broker.port, prefix: "s3")
            #expect(forgot.status == 0, "\(forgot.output)")
            #expect(
                forgot.output == """
                    sent {} on s3/walker-1/cmd/forget (the dashboard's Home Assistant discovery, when on, removes its device)
                    cleared s3/walker-1/permissions
                    cleared s3/walker-1/heading
                    cleared s3/walker-1/position
                    forgot walker-1: 3 retained messages cleared

                    """)
            let command = await commands.next(timeout: .seconds(5))
            #expect(command?.topic == "s3/walker-1/cmd/forget")
            #expect(command?.text == "{}")
            await services.close()

            let after = try await StepCompassExecutable.run(["devices", "--json"], port: broker.port, prefix: "s3")
            #expect(after.output == #"{"devices":[{"device":"phone-2","lastSeen":null,"topics":["permissions"]}]}"# + "\n")
            let invalid = try await StepCompassExecutable.run(["forget", "bad.id", "--yes"], port: broker.port, prefix: "s3")
            #expect(invalid.status == 64)
        }
    }
}

/// Shell completion scripts, generated by swift-argument-parser from the built binary.
@Suite("The stepcompass binary: shell completion scripts")
struct CompletionScriptTests {
    @Test("--generate-completion-script bash|zsh|fish knows the commands, the new ones included")
    func completions() async throws {
        try #require(
            StepCompassExecutable.exists,
            "\(StepCompassExecutable.path) is missing: build it with `swift build --build-tests` (or --product stepcompass)")
        for shell in ["bash", "zsh", "fish"] {
            // No broker is contacted: the port is never used.
            let run = try await StepCompassExecutable.run(["--generate-completion-script", shell], port: 1, prefix: "c")
            #expect(run.status == 0, "\(shell): \(run.output.prefix(300))")
            for command in ["status", "devices", "forget", "watch", "walks"] {
                #expect(run.output.contains(command), "\(shell) completion lacks \(command)")
            }
        }
        let bash = try await StepCompassExecutable.run(["--generate-completion-script", "bash"], port: 1, prefix: "c")
        #expect(bash.output.contains("-F _stepcompass stepcompass"), "\(bash.output.prefix(300))")
        for command in ["status", "devices", "forget"] {
            #expect(bash.output.contains("_stepcompass_\(command)() {"), "bash completion has no function for \(command)")
        }
        #expect(bash.output.contains("--yes"), "forget's --yes is completed")
    }
}
