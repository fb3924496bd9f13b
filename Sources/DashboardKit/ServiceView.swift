/// One service's status line: `compass: online since 10:15:30Z`.
public struct ServiceView: Sendable, Hashable, Codable {
    public var service: String
    public var state: String
    public var version: String?
    public var text: String

    public init(service: String, report: ServiceStatusReport) {
        self.service = service
        state = report.state
        version = report.version
        var text = "\(service): \(report.state)"
        if report.state == "online", let startedAt = report.startedAt { text += " since \(startedAt)" }
        self.text = text
    }
}
