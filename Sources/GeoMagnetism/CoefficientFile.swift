/// The parsed contents of a WMM `.COF` coefficient file.
///
/// The format, as NOAA publishes it in `WMM.COF`:
///
/// ```
///     2025.0            WMM-2025        11/13/2024
///   1  0  -29351.8       0.0       12.0        0.0
///   ...
///  12 12      -0.7       0.2       -0.1       -0.1
/// 999999999999999999999999999999999999999999999999
/// 999999999999999999999999999999999999999999999999
/// ```
///
/// The header holds the epoch, the model name and the release date; the CIRES `wmm` repository's copy adds the
/// release date as a decimal year (`2024.866`) before the date, so the header is read as whitespace-separated
/// fields, never by column. Each further line is `n m g h ġ ḣ` in nT and nT/yr; the first line starting with
/// `9999` ends the data.
struct CoefficientFile: Sendable, Equatable {
    /// The highest degree this implementation synthesises; WMM files stop at 12.
    static let maximumDegree = 12

    /// The model epoch as a decimal year, e.g. `2025.0`.
    var epoch: Double
    /// The model name from the header, e.g. `WMM-2025`.
    var modelName: String
    /// The release date as written in the header, e.g. `11/13/2024`.
    var releaseDate: String
    /// The highest degree present, 1...12.
    var degree: Int
    /// Main-field coefficients g and h (nT) and their secular variation ġ and ḣ (nT/yr),
    /// indexed `n * (n + 1) / 2 + m`, as in NOAA's C library; index 0 (n = 0) is unused.
    var g: [Double]
    var h: [Double]
    var gDot: [Double]
    var hDot: [Double]

    /// Parses the text of a coefficient file.
    ///
    /// - Throws: ``GeoMagnetismError/malformedHeader``, ``GeoMagnetismError/malformedCoefficients`` or
    ///   ``GeoMagnetismError/truncatedFile``, with the offending line number in the detail.
    init(parsing text: String) throws(GeoMagnetismError) {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated()
            .map { (number: $0.offset + 1, fields: $0.element.split(whereSeparator: \.isWhitespace)) }
            .filter { !$0.fields.isEmpty }[...]

        guard let header = lines.popFirst() else {
            throw GeoMagnetismError.truncatedFile.with("the coefficient file is empty")
        }
        (epoch, modelName, releaseDate) = try Self.parseHeader(header.fields, line: header.number)

        let count = Self.index(n: Self.maximumDegree, m: Self.maximumDegree) + 1
        var g = [Double](repeating: 0, count: count)
        var h = g
        var gDot = g
        var hDot = g
        var seen = [Bool](repeating: false, count: count)
        var highestDegree = 0
        var endMarkerFound = false

        for line in lines {
            if line.fields[0].hasPrefix("9999") {
                endMarkerFound = true
                break
            }
            let fields = line.fields
            if fields.count < 6, line.number == lines.last?.number {
                throw GeoMagnetismError.truncatedFile.with(
                    "the coefficient file ends in the middle of line \(line.number), before its 9999... end marker"
                )
            }
            guard fields.count == 6, let n = Int(fields[0]), let m = Int(fields[1]) else {
                throw GeoMagnetismError.malformedCoefficients.with(
                    "line \(line.number): expected 6 fields `n m g h gdot hdot`, found \"\(fields.joined(separator: " "))\""
                )
            }
            guard (1...Self.maximumDegree).contains(n), (0...n).contains(m) else {
                throw GeoMagnetismError.malformedCoefficients.with(
                    "line \(line.number): degree \(n) and order \(m) are not 1 <= n <= \(Self.maximumDegree), 0 <= m <= n"
                )
            }
            let values = fields[2...].map { Double($0) }
            guard values.allSatisfy({ $0?.isFinite == true }) else {
                throw GeoMagnetismError.malformedCoefficients.with(
                    "line \(line.number): coefficients \"\(fields[2...].joined(separator: " "))\" are not all numbers"
                )
            }
            let i = Self.index(n: n, m: m)
            guard !seen[i] else {
                throw GeoMagnetismError.malformedCoefficients.with("line \(line.number): term n=\(n) m=\(m) repeated")
            }
            seen[i] = true
            (g[i], h[i], gDot[i], hDot[i]) = (values[0]!, values[1]!, values[2]!, values[3]!)
            highestDegree = max(highestDegree, n)
        }

        guard endMarkerFound else {
            throw GeoMagnetismError.truncatedFile.with(
                "the coefficient file ends without its 9999... end marker after \(seen.filter { $0 }.count) terms"
            )
        }
        guard highestDegree > 0 else {
            throw GeoMagnetismError.malformedCoefficients.with("the coefficient file holds no coefficients")
        }
        for n in 1...highestDegree {
            for m in 0...n where !seen[Self.index(n: n, m: m)] {
                throw GeoMagnetismError.malformedCoefficients.with(
                    "term n=\(n) m=\(m) is missing (degree \(highestDegree) needs all \(highestDegree * (highestDegree + 3) / 2) terms)"
                )
            }
        }
        self.degree = highestDegree
        self.g = g
        self.h = h
        self.gDot = gDot
        self.hDot = hDot
    }

    /// The position of term (n, m) in the coefficient arrays, the layout of NOAA's C library.
    static func index(n: Int, m: Int) -> Int {
        n * (n + 1) / 2 + m
    }

    private static func parseHeader(
        _ fields: [Substring],
        line: Int
    ) throws(GeoMagnetismError) -> (epoch: Double, name: String, releaseDate: String) {
        let text = fields.joined(separator: " ")
        guard (3...4).contains(fields.count) else {
            throw GeoMagnetismError.malformedHeader.with(
                "line \(line): expected `epoch model-name release-date`, found \"\(text)\""
            )
        }
        guard let epoch = Double(fields[0]), epoch.isFinite, (1900...2200).contains(epoch) else {
            throw GeoMagnetismError.malformedHeader.with("line \(line): \"\(fields[0])\" is not an epoch year")
        }
        let name = String(fields[1])
        guard name.first?.isLetter == true, Double(name) == nil else {
            throw GeoMagnetismError.malformedHeader.with("line \(line): \"\(name)\" is not a model name")
        }
        // CIRES's copies insert the release date as a decimal year (e.g. 2024.866) before the date itself.
        if fields.count == 4, Double(fields[2])?.isFinite != true {
            throw GeoMagnetismError.malformedHeader.with(
                "line \(line): \"\(fields[2])\" is not a release year in \"\(text)\""
            )
        }
        if let year = name.split(separator: "-").last.flatMap({ Int($0) }), Double(year) != epoch.rounded(.down) {
            throw GeoMagnetismError.malformedHeader.with(
                "line \(line): model name \(name) does not match epoch \(fields[0])"
            )
        }
        return (epoch, name, String(fields[fields.count - 1]))
    }
}
