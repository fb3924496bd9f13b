import PhoneFormats
import StepCompassContract
import Testing

@Suite("gpsd")
struct GPSDTests {
    @Test("3D TPV fix")
    func fix3D() throws {
        let line =
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2024-05-01T12:34:56.789Z","ept":0.005,"lat":46.498293369,"lon":7.567411672,"altHAE":1343.127,"altMSL":1290.5,"epx":15.319,"epy":17.054,"epv":124.484,"track":10.3797,"speed":0.091,"climb":-0.085,"eps":34.11}"#
        let report = try GPSDReport.decode(line: line)
        guard case .fix(let fix) = report else {
            Issue.record("expected a fix, got \(report)")
            return
        }
        #expect(abs(fix.timestamp - 1_714_566_896.789) < 1e-6)
        #expect(fix.latitude == 46.498293369 && fix.longitude == 7.567411672)
        #expect(fix.altitude == 1343.127)
        #expect(fix.horizontalAccuracy == 17.054)
        #expect(fix.verticalAccuracy == 124.484)
        #expect(fix.speed == 0.091 && fix.course == 10.3797)
    }

    @Test("2D fix has no altitude; eph wins over epx/epy; legacy alt")
    func fix2D() throws {
        let report = try GPSDReport.decode(
            line: #"{"class":"TPV","mode":2,"time":"2024-05-01T12:34:56Z","lat":1,"lon":2,"alt":50,"eph":7.5,"epx":3,"epy":4}"#)
        #expect(report == .fix(LocationSample(timestamp: 1_714_566_896, latitude: 1, longitude: 2, horizontalAccuracy: 7.5)))
        let legacy = try GPSDReport.decode(line: #"{"class":"TPV","mode":3,"time":"2024-05-01T14:34:56+02:00","lat":1,"lon":2,"alt":50}"#)
        #expect(legacy == .fix(LocationSample(timestamp: 1_714_566_896, latitude: 1, longitude: 2, altitude: 50)))
    }

    @Test("mode 0 and 1 mean no fix")
    func noFix() throws {
        #expect(
            try GPSDReport.decode(line: #"{"class":"TPV","device":"/dev/ttyACM0","mode":1,"time":"2024-05-01T12:34:56.000Z"}"#)
                == .noFix(time: 1_714_566_896))
        #expect(try GPSDReport.decode(line: #"{"class":"TPV","mode":0}"#) == .noFix(time: nil))
    }

    @Test("other classes are recognised and ignored", arguments: ["VERSION", "DEVICES", "WATCH", "SKY", "GST"])
    func ignored(className: String) throws {
        #expect(try GPSDReport.decode(line: #"{"class":"\#(className)","release":"3.25"}"#) == .ignored(className))
    }

    @Test(
        "bad reports give a reason",
        arguments: [
            ("", "line is empty"),
            ("garbage", "body is not JSON: "),
            (#"{"mode":3}"#, "class is missing"),
            (#"{"class":"TPV","mode":3,"lat":1,"lon":2}"#, "TPV with a fix has no time"),
            (#"{"class":"TPV","mode":3,"time":"yesterday","lat":1,"lon":2}"#, "time is not an ISO 8601 timestamp"),
            (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:34:56Z","lon":2}"#, "lat is missing"),
        ])
    func bad(line: String, reason: String) {
        #expect {
            try GPSDReport.decode(line: line)
        } throws: { error in
            (error as? PhoneFormatError)?.reason.hasPrefix(reason) == true
        }
    }

    @Test("watch command and line splitting")
    func stream() {
        #expect(GPSDReport.watchCommand == #"?WATCH={"enable":true,"json":true}"#)
        var buffer = GPSDLineBuffer()
        #expect(buffer.append(Array("{\"class\":\"VERSION\"}\r\n{\"cla".utf8)) == [#"{"class":"VERSION"}"#])
        #expect(buffer.append(Array("ss\":\"SKY\"}\n".utf8)) == [#"{"class":"SKY"}"#])
    }

    @Test("ISO 8601 formatting with milliseconds")
    func iso() {
        #expect(Timestamp.format(secondsSince1970: 1_714_566_896.789) == "2024-05-01T12:34:56.789Z")
        #expect(Timestamp.format(secondsSince1970: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.secondsSince1970("2000-02-29T23:59:59.5Z") == 951_868_799.5)
        #expect(Timestamp.secondsSince1970("2024-13-01T00:00:00Z") == nil)
    }
}
