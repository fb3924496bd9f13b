import DashboardKit
import Testing

@Suite("DisplayText: the words a person reads")
struct DisplayTextTests {
    @Test(
        "Heading in whole degrees with the cardinal, as the specification writes it",
        arguments: [
            (270.0, "Heading: 270° W"), (0.0, "Heading: 0° N"), (359.6, "Heading: 0° N"), (22.4, "Heading: 22° N"),
            (22.5, "Heading: 23° NE"), (337.5, "Heading: 338° N"), (180.49, "Heading: 180° S"), (90.5, "Heading: 91° E"),
        ])
    func heading(value: Double, expected: String) {
        #expect(DisplayText.heading(value) == expected)
    }

    @Test("The published cardinal wins over the computed one, and an unknown heading says so")
    func headingCardinalAndUnknown() {
        #expect(DisplayText.heading(300, cardinal: "NW") == "Heading: 300° NW")
        #expect(DisplayText.heading(nil) == "Heading: —")
        #expect(DisplayText.heading(.nan) == "Heading: —")
    }

    @Test(
        "Position in tenths of a metre with a typographic minus and never –0.0",
        arguments: [
            (12.34, -4.46, "Position: (12.3 m, –4.5 m)"), (0, 0, "Position: (0.0 m, 0.0 m)"),
            (-0.04, 0.05, "Position: (0.0 m, 0.1 m)"), (1234.56, -0.96, "Position: (1,234.6 m, –1.0 m)"),
        ])
    func position(x: Double, y: Double, expected: String) {
        #expect(DisplayText.position(x: x, y: y) == expected)
    }

    @Test("Steps, distances in miles, elevation in metres and feet")
    func numbers() {
        #expect(DisplayText.steps(123) == "Steps: 123")
        #expect(DisplayText.steps(12_345) == "Steps: 12,345")
        #expect(DisplayText.steps(nil) == "Steps: —")
        #expect(DisplayText.miles(1.234) == "1.23 mi")
        #expect(DisplayText.miles(0.5) == "0.50 mi")
        #expect(DisplayText.elevationMetres(519.4) == "Elevation: 519 m")
        #expect(DisplayText.elevationFeet(519.4) == "Elevation: 1,704 ft")
        #expect(DisplayText.elevationMetres(-12.6) == "Elevation: –13 m")
    }

    @Test("Coordinates with hemispheres, and an OpenStreetMap link with plain decimals")
    func coordinates() {
        #expect(DisplayText.coordinate(latitude: 48.137434, longitude: 11.575490) == "48.13743° N, 11.57549° E")
        #expect(DisplayText.coordinate(latitude: -33.8688, longitude: -70.5) == "33.86880° S, 70.50000° W")
        #expect(
            DisplayText.mapURL(latitude: -33.8688, longitude: 151.2093)
                == "https://www.openstreetmap.org/?mlat=-33.868800&mlon=151.209300#map=17/-33.868800/151.209300")
    }

    @Test("Signed deviations and declinations")
    func signed() {
        #expect(DisplayText.signedDegrees(12.4) == "+12°")
        #expect(DisplayText.signedDegrees(-3.6) == "–4°")
        #expect(DisplayText.signedDegrees(0.2) == "0°")
        #expect(DisplayText.declination(3.14) == "Declination: 3.1° E")
        #expect(DisplayText.declination(-10.06) == "Declination: 10.1° W")
        #expect(DisplayText.bearing(45) == "45° NE")
    }
}
