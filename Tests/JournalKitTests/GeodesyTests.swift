import JournalKit
import Testing

@Suite("Geodesy: haversine distances and local offsets")
struct GeodesyTests {
    let berlin = GeoCoordinate(latitude: 52.52, longitude: 13.405)

    @Test("one degree along a meridian is R·π/180 = 111 195.08 m")
    func oneDegree() {
        // 6 371 008.8 m × 0.0174532925 = 111 195.080 m.
        let metres = Geodesy.distance(GeoCoordinate(latitude: 10, longitude: 5), GeoCoordinate(latitude: 11, longitude: 5))
        #expect(abs(metres - 111_195.080) < 0.001)
        #expect(Geodesy.distance(berlin, berlin) == 0)
    }

    @Test("antipodes give π·R = 20 015 114.44 m, never NaN")
    func antipodes() {
        let metres = Geodesy.distance(GeoCoordinate(latitude: 0, longitude: 0), GeoCoordinate(latitude: 0, longitude: 180))
        #expect(!metres.isNaN)
        #expect(abs(metres - 20_015_114.442) < 0.01)
        let poles = Geodesy.distance(GeoCoordinate(latitude: 90, longitude: 0), GeoCoordinate(latitude: -90, longitude: 37))
        #expect(abs(poles - 20_015_114.442) < 0.01)
    }

    @Test("across the antimeridian the short way: 179.9° to -179.9° on the equator is 0.2° = 22 239.02 m")
    func antimeridianDistance() {
        let metres = Geodesy.distance(GeoCoordinate(latitude: 0, longitude: 179.9), GeoCoordinate(latitude: 0, longitude: -179.9))
        #expect(abs(metres - 22_239.016) < 0.01)
    }

    @Test("offsets: 1 000 m north is 0.0089932°, 1 000 m east at 60° N is twice that in longitude")
    func offsets() {
        let start = GeoCoordinate(latitude: 60, longitude: 10)
        let north = Geodesy.offset(start, north: 1000, east: 0)
        #expect(abs(north.latitude - 60.008_993_204) < 1e-9)
        #expect(north.longitude == 10)
        // cos 60° = 0.5, so 1 000 m spans 1 000 / (R · 0.5) rad = 0.0179864°.
        let east = Geodesy.offset(start, north: 0, east: 1000)
        #expect(abs(east.longitude - 10.017_986_407) < 1e-9)
        #expect(east.latitude == 60)
        let back = Geodesy.offset(north, north: -1000, east: 0)
        #expect(abs(back.latitude - 60) < 1e-12)
    }

    @Test("an offset measures back as its length: 300 m north and 400 m east is 500 m away (to a centimetre)")
    func offsetRoundTrip() {
        let moved = Geodesy.offset(berlin, north: 300, east: 400)
        #expect(abs(Geodesy.distance(berlin, moved) - 500) < 0.01)
        let far = Geodesy.offset(berlin, north: -2000, east: 1500)
        #expect(abs(Geodesy.distance(berlin, far) - 2500) < 0.5)
    }

    @Test("an offset over the antimeridian wraps the longitude into -180..<180")
    func offsetWraps() {
        // 1 000 m east on the equator is 0.0089932°: 179.999 + 0.0089932 = 180.0079932, that is -179.9920068.
        let wrapped = Geodesy.offset(GeoCoordinate(latitude: 0, longitude: 179.999), north: 0, east: 1000)
        #expect(abs(wrapped.longitude - -179.992_006_796) < 1e-8)
        #expect(wrapped.isValid)
        let west = Geodesy.offset(GeoCoordinate(latitude: 0, longitude: -179.999), north: 0, east: -1000)
        #expect(abs(west.longitude - 179.992_006_796) < 1e-8)
        #expect(Geodesy.offset(GeoCoordinate(latitude: 0, longitude: 180), north: 0, east: 0).longitude == -180)
    }

    @Test("an offset at a pole changes only the latitude, clamped to ±90")
    func offsetAtPole() {
        let pole = Geodesy.offset(GeoCoordinate(latitude: 90, longitude: 0), north: 100, east: 100)
        #expect(pole.latitude == 90)
        #expect(pole.longitude == 0)
        #expect(pole.isValid)
    }

    @Test("interpolation is linear and crosses the antimeridian the short way")
    func interpolation() {
        let a = GeoCoordinate(latitude: 10, longitude: 20)
        let b = GeoCoordinate(latitude: 20, longitude: 40)
        #expect(Geodesy.interpolate(a, b, fraction: 0) == a)
        #expect(Geodesy.interpolate(a, b, fraction: 0.25) == GeoCoordinate(latitude: 12.5, longitude: 25))

        let east = GeoCoordinate(latitude: 10, longitude: 179)
        let west = GeoCoordinate(latitude: 20, longitude: -179)
        // The short way is 2° of longitude: a quarter is 179.5°, three quarters 180.5° = -179.5°.
        #expect(Geodesy.interpolate(east, west, fraction: 0.25) == GeoCoordinate(latitude: 12.5, longitude: 179.5))
        #expect(Geodesy.interpolate(east, west, fraction: 0.75) == GeoCoordinate(latitude: 17.5, longitude: -179.5))
        #expect(Geodesy.interpolate(west, east, fraction: 0.75) == GeoCoordinate(latitude: 12.5, longitude: 179.5))
    }

    @Test("wrapLongitude maps 180 to -180 and keeps in-range values")
    func wrap() {
        #expect(Geodesy.wrapLongitude(180) == -180)
        #expect(Geodesy.wrapLongitude(190) == -170)
        #expect(Geodesy.wrapLongitude(-190) == 170)
        #expect(Geodesy.wrapLongitude(540) == -180)
        #expect(Geodesy.wrapLongitude(13.405) == 13.405)
        #expect(Geodesy.wrapLongitude(-180) == -180)
    }
}
