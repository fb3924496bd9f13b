extension Topics {
    /// A topic's kind, for metric labels: the service topic (`services/status`, `errors`, `markers/nearest`,
    /// `replies`), or the device topic's suffix (`imu`, `cmd/walk`, `journal/photo`) with the device left out; `other`
    /// for anything else. The kinds are few whatever the number of devices, as a Prometheus label needs.
    public func kind(of topic: String) -> String {
        guard topic.hasPrefix(prefix + "/") else { return "other" }
        let parts = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        switch parts.first {
        case "services": return parts.count == 3 ? "services/\(parts[2])" : "other"
        case "errors": return "errors"
        case "markers": return parts.count == 2 ? "markers/\(parts[1])" : "other"
        default: break
        }
        // `activity`, `journal` and `replies` are not reserved device names: a device's own topic comes first.
        if let (_, suffix) = parseDeviceTopic(topic) { return suffix.rawValue }
        switch parts.first {
        case "replies": return "replies"
        case let root? where (root == "activity" || root == "journal") && parts.count == 2: return "\(root)/\(parts[1])"
        default: return "other"
        }
    }
}
