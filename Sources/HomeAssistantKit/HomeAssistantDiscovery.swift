public import Foundation

/// Home Assistant MQTT *device-based* discovery for a StepCompass walker: one Home Assistant device per walker,
/// with sensors that read the contract's retained topics (`position`, `heading`, `bearing-lock`, `activity`).
///
/// The config goes to `<discovery prefix>/device/stepcompass_<device>/config`, retained. It follows Home Assistant's
/// rules: the `o` (origin) block, a `p` (platform) and a stable `unique_id` for every component, entity names that do
/// not repeat the device name (Home Assistant adds it), and availability from the retained status of the service that
/// produces each reading (`online`/`offline`).
public struct HomeAssistantDiscovery: Sendable {
    /// Where Home Assistant listens (`homeassistant` by default).
    public let discoveryPrefix: String
    /// The contract's topic root (`stepcompass`).
    public let topicPrefix: String
    /// The version reported in the device and origin blocks.
    public let version: String

    public init(discoveryPrefix: String = "homeassistant", topicPrefix: String = "stepcompass", version: String) {
        self.discoveryPrefix = discoveryPrefix
        self.topicPrefix = topicPrefix
        self.version = version
    }

    /// Home Assistant's birth and last-will topic: `online` means it (re)started and wants the configs again.
    public var statusTopic: String { "\(discoveryPrefix)/status" }

    /// `stepcompass_<device>`, with only the characters Home Assistant allows in an object id (`[a-zA-Z0-9_-]`).
    public static func objectID(_ device: String) -> String {
        "stepcompass_"
            + String(
                device.unicodeScalars.map { scalar -> Character in
                    switch scalar {
                    case "a"..."z", "A"..."Z", "0"..."9", "_", "-": Character(scalar)
                    default: "_"
                    }
                })
    }

    /// The retained config topic of a device.
    public func configTopic(device: String) -> String {
        "\(discoveryPrefix)/device/\(Self.objectID(device))/config"
    }

    /// The device's discovery config, as JSON with sorted keys.
    public func config(device: String) -> Data {
        let object = Self.objectID(device)
        var components: [String: [String: Any]] = [:]
        for sensor in Self.sensors {
            var component: [String: Any] = [
                "p": sensor.platform,
                "name": sensor.name,
                "unique_id": "\(object)_\(sensor.key)",
                "state_topic": "\(topicPrefix)/\(device)/\(sensor.topic)",
                "value_template": sensor.template,
                "availability": [
                    [
                        "topic": "\(topicPrefix)/services/\(sensor.service)/status",
                        "value_template": "{{ value_json.state }}",
                        "payload_available": "online",
                        "payload_not_available": "offline",
                    ]
                ],
            ]
            for (key, value) in sensor.extra { component[key] = value }
            components["\(object)_\(sensor.key)"] = component
        }
        let config: [String: Any] = [
            "dev": [
                "ids": [object],
                "name": device,
                "mf": "StepCompass",
                "mdl": "Pedestrian navigation",
                "sw": version,
            ],
            "o": ["name": "StepCompass", "sw": version, "url": "https://github.com/stepcompass/stepcompass"],
            "cmps": components,
            "qos": 1,
        ]
        return (try? JSONSerialization.data(withJSONObject: config, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// One reading of a walker.
    struct Sensor {
        let key: String
        let platform: String
        let name: String
        let topic: String
        let service: String
        let template: String
        let extra: [String: Any]
    }

    /// The readings: steps, heading, cardinal, distance, position, calibration, the bearing lock, the step history.
    static var sensors: [Sensor] {
        [
            Sensor(
                key: "steps", platform: "sensor", name: "Steps", topic: "position", service: "position",
                template: "{{ value_json.steps }}",
                extra: ["state_class": "total_increasing", "unit_of_measurement": "steps", "icon": "mdi:shoe-print"]),
            Sensor(
                key: "distance", platform: "sensor", name: "Distance", topic: "position", service: "position",
                template: "{{ value_json.distance }}",
                extra: ["device_class": "distance", "state_class": "total_increasing", "unit_of_measurement": "m"]),
            Sensor(
                key: "position_x", platform: "sensor", name: "Position north", topic: "position", service: "position",
                template: "{{ value_json.x }}",
                extra: ["device_class": "distance", "state_class": "measurement", "unit_of_measurement": "m", "icon": "mdi:arrow-up"]),
            Sensor(
                key: "position_y", platform: "sensor", name: "Position east", topic: "position", service: "position",
                template: "{{ value_json.y }}",
                extra: ["device_class": "distance", "state_class": "measurement", "unit_of_measurement": "m", "icon": "mdi:arrow-right"]),
            Sensor(
                key: "heading", platform: "sensor", name: "Heading", topic: "heading", service: "compass",
                template: "{{ value_json.heading }}",
                extra: ["state_class": "measurement", "unit_of_measurement": "°", "icon": "mdi:compass"]),
            Sensor(
                key: "cardinal", platform: "sensor", name: "Cardinal direction", topic: "heading", service: "compass",
                template: "{{ value_json.cardinal }}",
                extra: ["device_class": "enum", "options": ["N", "NE", "E", "SE", "S", "SW", "W", "NW"], "icon": "mdi:compass-rose"]),
            Sensor(
                key: "calibration", platform: "sensor", name: "Compass calibration", topic: "heading", service: "compass",
                template: "{{ value_json.calibration }}",
                extra: [
                    "device_class": "enum", "options": ["uncalibrated", "calibrating", "calibrated", "needsCalibration"],
                    "entity_category": "diagnostic",
                ]),
            Sensor(
                key: "bearing_deviation", platform: "sensor", name: "Bearing deviation", topic: "bearing-lock", service: "compass",
                template: "{{ value_json.deviation if value_json.locked else None }}",
                extra: ["state_class": "measurement", "unit_of_measurement": "°", "icon": "mdi:angle-acute"]),
            Sensor(
                key: "bearing_exceeded", platform: "binary_sensor", name: "Off bearing", topic: "bearing-lock", service: "compass",
                template: "{{ 'ON' if value_json.locked and value_json.exceeded else 'OFF' }}",
                extra: ["device_class": "problem", "payload_on": "ON", "payload_off": "OFF"]),
            Sensor(
                key: "steps_today", platform: "sensor", name: "Steps today", topic: "activity", service: "activity",
                template: "{{ value_json.today }}",
                extra: ["state_class": "total_increasing", "unit_of_measurement": "steps", "icon": "mdi:walk"]),
            Sensor(
                key: "steps_week", platform: "sensor", name: "Steps this week", topic: "activity", service: "activity",
                template: "{{ value_json.weekTotal }}",
                extra: ["state_class": "measurement", "unit_of_measurement": "steps", "icon": "mdi:calendar-week"]),
            Sensor(
                key: "cadence", platform: "sensor", name: "Cadence", topic: "activity", service: "activity",
                template: "{{ value_json.cadence }}",
                extra: ["state_class": "measurement", "unit_of_measurement": "steps/min", "icon": "mdi:metronome"]),
        ]
    }
}
