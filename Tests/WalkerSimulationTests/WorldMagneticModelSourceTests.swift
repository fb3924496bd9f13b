import Foundation
import GeoMagnetism
import Testing
import WalkerSimulation

@Suite("The World Magnetic Model as the field source")
struct WorldMagneticModelSourceTests {
    @Test("The adapter gives the WMM field in µT, and the simulated compass finds true north with the WMM declination")
    func wmm() throws {
        let model = try WorldMagneticModel.wmm2025()
        var configuration = WalkerConfiguration.ideal()
        configuration.route = .straight(heading: 200)
        configuration.truthRate = 50
        let date = configuration.startDate
        let field = try model.geomagneticField(
            latitude: configuration.startLatitude, longitude: configuration.startLongitude,
            altitude: configuration.startAltitude, date: date)
        let reference = try model.field(
            latitude: configuration.startLatitude, longitude: configuration.startLongitude,
            altitude: configuration.startAltitude, date: date)
        #expect(abs(field.north * 1_000 - reference.north) < 1e-6)
        #expect(abs(field.down * 1_000 - reference.down) < 1e-6)
        // Munich: about 21 µT north, 44 µT down, declination about +4°.
        #expect(abs(field.north - 21) < 1.5 && abs(field.down - 44) < 2)

        var walker = try WalkerSimulator(configuration: configuration, fieldSource: model)
        let events = walker.advance(to: 15)
        let truth = try #require(events.truthSamples.last)
        let sample = try #require(events.imuSamples.last)
        let heading = ReferenceCompass.compass(ReferenceCompass.magneticHeading(accel: sample.accel, mag: sample.mag) + reference.declination)
        #expect(abs(ReferenceCompass.angleDifference(heading, truth.heading)) < 0.5)

        // Past the model's five years the adapter extrapolates instead of failing.
        let later = try model.geomagneticField(
            latitude: 48, longitude: 11, altitude: 0,
            date: Date(timeIntervalSince1970: 1_956_528_000))  // 2032
        #expect(abs(later.north - field.north) < 1)
    }
}
