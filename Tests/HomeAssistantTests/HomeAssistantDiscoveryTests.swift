import Foundation
import HomeAssistantKit
import Testing

/// The discovery config checked field by field against Home Assistant's documented MQTT discovery schema
/// (device-based discovery: `dev`, `o`, `cmps`; sensor and binary sensor options).
@Suite("Home Assistant discovery payloads")
struct HomeAssistantDiscoveryTests {
    let discovery = HomeAssistantDiscovery(version: "0.1.0")

    func config(_ device: String = "walker-1") throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: discovery.config(device: device)) as? [String: Any])
    }

    /// Keys Home Assistant accepts in a component of these platforms (long names and the abbreviations used here).
    static let componentKeys: Set<String> = [
        "p", "name", "unique_id", "state_topic", "value_template", "availability", "availability_mode", "device_class",
        "state_class", "unit_of_measurement", "icon", "options", "entity_category", "payload_on", "payload_off",
        "suggested_display_precision", "expire_after", "force_update", "qos",
    ]
    /// Home Assistant's sensor state classes and the device classes used.
    static let stateClasses: Set<String> = ["measurement", "measurement_angle", "total", "total_increasing"]

    @Test("topic and object id: <prefix>/device/stepcompass_<device>/config, only [a-zA-Z0-9_-]")
    func topic() {
        #expect(discovery.configTopic(device: "walker-1") == "homeassistant/device/stepcompass_walker-1/config")
        #expect(HomeAssistantDiscovery.objectID("phone.büro") == "stepcompass_phone__b_ro".replacingOccurrences(of: "__b", with: "_b"))
        #expect(HomeAssistantDiscovery.objectID("a b+c#d").allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
        #expect(HomeAssistantDiscovery(discoveryPrefix: "ha", version: "1").statusTopic == "ha/status")
    }

    @Test("device and origin blocks: ids, name, manufacturer, version; origin name required")
    func deviceAndOrigin() throws {
        let config = try config()
        let device = try #require(config["dev"] as? [String: Any])
        #expect(device["ids"] as? [String] == ["stepcompass_walker-1"])
        #expect(device["name"] as? String == "walker-1")
        #expect(device["mf"] as? String == "StepCompass")
        #expect(device["sw"] as? String == "0.1.0")
        let origin = try #require(config["o"] as? [String: Any])
        #expect(origin["name"] as? String == "StepCompass")
        #expect((origin["url"] as? String)?.hasPrefix("https://") == true)
        #expect(config["qos"] as? Int == 1)
    }

    @Test("every component: a platform, a stable unique id, a name without the device's, a state topic, availability")
    func components() throws {
        let components = try #require(try config()["cmps"] as? [String: [String: Any]])
        #expect(components.count == 12)
        for (id, component) in components {
            #expect(
                Set(component.keys).isSubset(of: Self.componentKeys), "\(id): unknown keys \(Set(component.keys).subtracting(Self.componentKeys))")
            let platform = try #require(component["p"] as? String)
            #expect(["sensor", "binary_sensor"].contains(platform))
            #expect(component["unique_id"] as? String == id)
            #expect(id.hasPrefix("stepcompass_walker-1_"))
            let name = try #require(component["name"] as? String)
            #expect(!name.localizedCaseInsensitiveContains("walker-1"), "\(id): the entity name repeats the device name")
            let state = try #require(component["state_topic"] as? String)
            #expect(state.hasPrefix("stepcompass/walker-1/"))
            #expect((component["value_template"] as? String)?.contains("value_json.") == true)
            let availability = try #require((component["availability"] as? [[String: Any]])?.first)
            #expect((availability["topic"] as? String)?.hasPrefix("stepcompass/services/") == true)
            #expect(availability["payload_available"] as? String == "online")
            #expect(availability["payload_not_available"] as? String == "offline")
            if let stateClass = component["state_class"] as? String { #expect(Self.stateClasses.contains(stateClass)) }
            if component["device_class"] as? String == "enum" {
                #expect(
                    component["state_class"] == nil && component["unit_of_measurement"] == nil, "\(id): an enum sensor has no unit or state class")
                #expect((component["options"] as? [String])?.isEmpty == false)
            }
            if component["device_class"] as? String == "distance" { #expect(component["unit_of_measurement"] as? String == "m") }
            if platform == "binary_sensor" {
                #expect(component["payload_on"] as? String == "ON" && component["payload_off"] as? String == "OFF")
                #expect(component["state_class"] == nil && component["unit_of_measurement"] == nil)
            }
        }
        let steps = try #require(components["stepcompass_walker-1_steps"])
        #expect(steps["state_class"] as? String == "total_increasing")
        #expect(steps["state_topic"] as? String == "stepcompass/walker-1/position")
        #expect((components["stepcompass_walker-1_heading"]?["unit_of_measurement"] as? String) == "°")
        #expect((components["stepcompass_walker-1_cardinal"]?["options"] as? [String]) == ["N", "NE", "E", "SE", "S", "SW", "W", "NW"])
        #expect(components["stepcompass_walker-1_bearing_exceeded"]?["p"] as? String == "binary_sensor")
        #expect(components["stepcompass_walker-1_steps_today"]?["state_topic"] as? String == "stepcompass/walker-1/activity")
        let availability = components["stepcompass_walker-1_heading"]?["availability"] as? [[String: Any]]
        #expect(availability?.first?["topic"] as? String == "stepcompass/services/compass/status")
    }

    @Test("unique ids are the same on every run and differ between walkers")
    func stableIDs() throws {
        #expect(discovery.config(device: "walker-1") == HomeAssistantDiscovery(version: "0.1.0").config(device: "walker-1"))
        let one = Set(try #require(try config("walker-1")["cmps"] as? [String: Any]).keys)
        let two = Set(try #require(try config("walker-2")["cmps"] as? [String: Any]).keys)
        #expect(one.isDisjoint(with: two))
    }
}
