import PhoneFormats
import StepCompassContract
import Testing

@Suite("Device ids")
struct DeviceIDTests {
    @Test("valid ids pass through unchanged")
    func passThrough() {
        #expect(DeviceID.sanitized("pixel_7-a") == "pixel_7-a")
        #expect(DeviceID.isValid("pixel_7-a"))
    }

    @Test("other characters become one dash and dashes are trimmed")
    func replaceCollapseTrim() {
        #expect(DeviceID.sanitized("  Kelvin's iPhone (2)  ") == "Kelvin-s-iPhone-2")
        #expect(DeviceID.sanitized("3f2a4b1c-9d8e-4f00-a1b2-c3d4e5f6a7b8") == "3f2a4b1c-9d8e-4f00-a1b2-c3d4e5f6a7b8")
        #expect(DeviceID.sanitized("grüße/ü") == "gr-e")
        #expect(OwnTracksMessage.deviceID(topic: "owntracks/alice/phone") == "alice-phone")
    }

    @Test("empty, reserved and long inputs get a stable hash")
    func hashed() {
        let empty = DeviceID.sanitized("///")
        #expect(empty.hasPrefix("device-"))
        #expect(empty == DeviceID.sanitized("///"))
        #expect(DeviceID.sanitized("") != empty)

        for reserved in ["markers", "services", "errors", "simulation", "Markers"] {
            let id = DeviceID.sanitized(reserved)
            #expect(id != reserved)
            #expect(id.hasPrefix(reserved + "-"))
            #expect(DeviceID.isValid(id))
        }
        #expect(!DeviceID.isValid("markers"))

        let long = String(repeating: "abcdefghij", count: 10)
        let id = DeviceID.sanitized(long)
        #expect(id.count == 64)
        #expect(id == DeviceID.sanitized(long))
        #expect(id != DeviceID.sanitized(long + "x"))
    }

    @Test("every output is valid", arguments: ["", " ", "a", "ä", "--x--", "errors", String(repeating: "é", count: 100), "user/device#1", "🙂🙂"])
    func alwaysValid(input: String) {
        let id = DeviceID.sanitized(input)
        #expect(DeviceID.isValid(id), "\(input) → \(id)")
        #expect(DeviceID.sanitized(input) == id)
    }

    @Test("FNV-1a matches the reference values")
    func fnv() {
        #expect(DeviceID.fnv1aHex("") == "811c9dc5")
        #expect(DeviceID.fnv1aHex("a") == "e40c292c")
    }
}
