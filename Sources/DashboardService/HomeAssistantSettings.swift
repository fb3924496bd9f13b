public import Configuration
import Foundation
import HomeAssistantKit
import HomeAssistantService
import ServiceRuntime

/// The dashboard's Home Assistant settings: `home.assistant` (bool, `--home-assistant`), `home.assistant.prefix`
/// (the discovery prefix, default `homeassistant`), `home.assistant.idle.hours` (a walker silent this long is removed,
/// default 720: 30 days).
struct HomeAssistantSettings {
    let enabled: Bool
    let prefix: String
    let idleHours: Double

    init(config: ConfigReader) throws(DashboardServiceError) {
        enabled = config.bool(forKey: "home.assistant", default: false)
        prefix = config.string(forKey: "home.assistant.prefix", default: "homeassistant").trimmingCharacters(in: .whitespaces)
        idleHours = config.number(forKey: "home.assistant.idle.hours", default: 720)
        guard !prefix.isEmpty, !prefix.contains("+"), !prefix.contains("#"), !prefix.hasSuffix("/") else {
            throw DashboardServiceError.invalidConfiguration(
                "'home.assistant.prefix' is '\(prefix.prefix(60))'; expected a topic such as homeassistant")
        }
        guard idleHours > 0, idleHours.isFinite else {
            throw DashboardServiceError.invalidConfiguration("'home.assistant.idle.hours' is \(idleHours); expected more than 0")
        }
    }

    /// The discovery publisher, when enabled.
    func publisher(context: BusServiceContext) -> HomeAssistantPublisher? {
        guard enabled else { return nil }
        let discovery = HomeAssistantDiscovery(discoveryPrefix: prefix, topicPrefix: context.topics.prefix, version: StepCompassVersion.current)
        return HomeAssistantPublisher(discovery: discovery, context: context, idleTimeout: .milliseconds(Int64(idleHours * 3_600_000)))
    }
}
