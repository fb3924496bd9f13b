import Foundation

/// The project's broker tuning (`Config/mosquitto/stepcompass.conf`), minus the lines the test broker
/// sets itself (listener, persistence, logging).
enum ProjectBrokerConfiguration {
    static var tuning: String {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Config/mosquitto/stepcompass.conf")
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return !["listener", "persistence", "persistence_location", "log_dest", "allow_anonymous", "password_file", "acl_file"]
                .contains { trimmed.hasPrefix($0 + " ") }
        }.joined(separator: "\n")
    }
}
