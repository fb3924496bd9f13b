import PhoneFormats
import Testing

@Suite("OwnTracks")
struct OwnTracksTests {
    @Test("location message: vel km/h becomes m/s")
    func location() throws {
        let body =
            #"{"_type":"location","tid":"al","lat":48.8584,"lon":2.2945,"alt":35,"acc":12,"vac":4,"vel":18,"cog":270,"tst":1700000000,"batt":81,"conn":"m","t":"u"}"#
        let fix = try #require(try OwnTracksMessage.decode(body))
        #expect(
            fix
                == LocationSample(
                    timestamp: 1_700_000_000, latitude: 48.8584, longitude: 2.2945, altitude: 35, horizontalAccuracy: 12, verticalAccuracy: 4,
                    speed: 5, course: 270))
    }

    @Test("minimal location")
    func minimal() throws {
        let fix = try #require(try OwnTracksMessage.decode(#"{"_type":"location","lat":1.5,"lon":-2.5,"tst":1700000001}"#))
        #expect(fix.altitude == nil && fix.speed == nil && fix.horizontalAccuracy == nil)
    }

    @Test(
        "other types are ignored",
        arguments: [
            #"{"_type":"transition","event":"enter","tst":1700000000}"#,
            #"{"_type":"lwt","tst":1700000000}"#,
            #"{"_type":"waypoint","desc":"home","lat":1,"lon":2,"rad":50,"tst":1}"#,
            #"{"_type":"card","name":"Alice"}"#,
        ])
    func ignored(body: String) throws {
        #expect(try OwnTracksMessage.decode(body) == nil)
    }

    @Test(
        "bad bodies give a reason",
        arguments: [
            ("nope", "body is not JSON: "),
            ("[]", "body is not a JSON object"),
            (#"{"lat":1}"#, "_type is missing"),
            (#"{"_type":"location","lon":2,"tst":1}"#, "lat is missing"),
            (#"{"_type":"location","lat":"1","lon":2,"tst":1}"#, "lat is not a number (a string)"),
            (#"{"_type":"location","lat":1,"lon":2}"#, "tst is missing"),
            (#"{"_type":"location","lat":1,"lon":200,"tst":1}"#, "lon is out of range (200.0)"),
        ])
    func bad(body: String, reason: String) {
        #expect {
            try OwnTracksMessage.decode(body)
        } throws: { error in
            (error as? PhoneFormatError)?.reason.hasPrefix(reason) == true
        }
    }

    @Test("topic gives a stable device id")
    func topic() {
        #expect(OwnTracksMessage.deviceID(topic: "owntracks/alice/phone") == "alice-phone")
        #expect(OwnTracksMessage.deviceID(topic: "owntracks/alice/phone/event") == "alice-phone")
        #expect(OwnTracksMessage.deviceID(topic: "owntracks/bob smith/Pixel 7") == "bob-smith-Pixel-7")
        #expect(OwnTracksMessage.deviceID(topic: "sensors/alice/phone") == nil)
    }
}
