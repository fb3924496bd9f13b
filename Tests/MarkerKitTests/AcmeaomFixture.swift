import MarkerKit

/// The assignment's `locations.json` (11 features, Alpha to Kilo) and the three nearest of each
/// at R = 3958.8 miles, copied as literals so the tests need no reference files.
enum AcmeaomFixture {
    /// The document byte for byte in content (member order mixed, as in the original).
    static let document = #"""
        {
          "type": "FeatureCollection",
          "features": [
            {
              "type": "Feature",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  149.98458041136354,
                  -34.98520411042454
                ]
              },
              "properties": {
                "name": "Alpha"
              },
              "id": "2298eb8d-255e-4198-a20c-cc9c2eac0cf7"
            },
            {
              "type": "Feature",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  -67.09898354941409,
                  45.042099781891125
                ]
              },
              "properties": {
                "name": "Bravo"
              },
              "id": "a3a2d144-4d0e-4bec-9773-4566f74846ba"
            },
            {
              "type": "Feature",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  -115.42362,
                  -57.98449
                ]
              },
              "properties": {
                "name": "Charlie"
              },
              "id": "84e0c359-1e8a-434a-963a-613771dbe2c9"
            },
            {
              "type": "Feature",
              "properties": {
                "name": "Delta"
              },
              "id": "50a5f829-0955-4c66-82b0-61b0606309e9",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  81.9140625,
                  56.75272287205736
                ]
              }
            },
            {
              "type": "Feature",
              "properties": {
                "name": "Echo"
              },
              "id": "2abca2a7-d768-4db2-95e2-09002df94362",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  29.179687499999996,
                  -37.99616267972812
                ]
              }
            },
            {
              "type": "Feature",
              "properties": {
                "name": "Foxtrot"
              },
              "id": "6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  -130.4296875,
                  -4.915832801313164
                ]
              }
            },
            {
              "type": "Feature",
              "properties": {
                "name": "Golf"
              },
              "id": "14147ae6-0852-4a46-92e4-8fcc037562b1",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  -108.984375,
                  38.8225909761771
                ]
              }
            },
            {
              "type": "Feature",
              "properties": {
                "name": "Hotel"
              },
              "id": "d8010c95-e91b-4f53-b687-5c9e368ab582",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  70.6640625,
                  -30.44867367928756
                ]
              }
            },
            {
              "type": "Feature",
              "properties": {
                "name": "India"
              },
              "id": "83c49015-d46b-4636-9e06-644c8e7e9c88",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  117.7734375,
                  68.39918004344189
                ]
              }
            },
            {
              "type": "Feature",
              "properties": {
                "name": "Juliett"
              },
              "id": "1dbca7db-05fa-419f-9654-a7587eaaf5a7",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  -3.515625,
                  30.14512718337613
                ]
              }
            },
            {
              "type": "Feature",
              "properties": {
                "name": "Kilo"
              },
              "id": "633fdb3a-f696-4227-bc33-a5cfb80f90a9",
              "geometry": {
                "type": "Point",
                "coordinates": [
                  -40.078125,
                  -39.368279149160124
                ]
              }
            }
          ]
        }

        """#

    static let markers: [Marker] = [
        Marker(id: "2298eb8d-255e-4198-a20c-cc9c2eac0cf7", name: "Alpha", latitude: -34.98520411042454, longitude: 149.98458041136354),
        Marker(id: "a3a2d144-4d0e-4bec-9773-4566f74846ba", name: "Bravo", latitude: 45.042099781891125, longitude: -67.09898354941409),
        Marker(id: "84e0c359-1e8a-434a-963a-613771dbe2c9", name: "Charlie", latitude: -57.98449, longitude: -115.42362),
        Marker(id: "50a5f829-0955-4c66-82b0-61b0606309e9", name: "Delta", latitude: 56.75272287205736, longitude: 81.9140625),
        Marker(id: "2abca2a7-d768-4db2-95e2-09002df94362", name: "Echo", latitude: -37.99616267972812, longitude: 29.179687499999996),
        Marker(id: "6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5", name: "Foxtrot", latitude: -4.915832801313164, longitude: -130.4296875),
        Marker(id: "14147ae6-0852-4a46-92e4-8fcc037562b1", name: "Golf", latitude: 38.8225909761771, longitude: -108.984375),
        Marker(id: "d8010c95-e91b-4f53-b687-5c9e368ab582", name: "Hotel", latitude: -30.44867367928756, longitude: 70.6640625),
        Marker(id: "83c49015-d46b-4636-9e06-644c8e7e9c88", name: "India", latitude: 68.39918004344189, longitude: 117.7734375),
        Marker(id: "1dbca7db-05fa-419f-9654-a7587eaaf5a7", name: "Juliett", latitude: 30.14512718337613, longitude: -3.515625),
        Marker(id: "633fdb3a-f696-4227-bc33-a5cfb80f90a9", name: "Kilo", latitude: -39.368279149160124, longitude: -40.078125),
    ]
    /// name → the three nearest as (name, miles at R = 3958.8, two decimals).
    static let expectedNearest3: [String: [(String, String)]] = [
        "Alpha": [("Charlie", "4364.49"), ("Hotel", "4496.21"), ("Foxtrot", "5434.71")],
        "Bravo": [("Golf", "2170.30"), ("Juliett", "3534.55"), ("India", "4594.76")],
        "Charlie": [("Kilo", "3461.27"), ("Foxtrot", "3755.20"), ("Alpha", "4364.49")],
        "Delta": [("India", "1364.84"), ("Juliett", "4336.13"), ("Bravo", "5178.47")],
        "Echo": [("Hotel", "2406.15"), ("Kilo", "3639.96"), ("Juliett", "5159.40")],
        "Foxtrot": [("Golf", "3318.47"), ("Charlie", "3755.20"), ("Bravo", "5196.31")],
        "Golf": [("Bravo", "2170.30"), ("Foxtrot", "3318.47"), ("India", "4647.94")],
        "Hotel": [("Echo", "2406.15"), ("Alpha", "4496.21"), ("Kilo", "5879.95")],
        "India": [("Delta", "1364.84"), ("Bravo", "4594.76"), ("Golf", "4647.94")],
        "Juliett": [("Bravo", "3534.55"), ("Delta", "4336.13"), ("India", "5005.66")],
        "Kilo": [("Charlie", "3461.27"), ("Echo", "3639.96"), ("Juliett", "5346.73")],
    ]
}
