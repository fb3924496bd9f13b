public import CompassKit
public import ServiceRuntime

extension CalibrationMessage {
    /// The message as the compass writes it: every field, from the compass's own types.
    public init(
        state: CalibrationState, quality: Double, coverage: Double, hardIron: Vector3, softIron: Matrix3,
        fieldStrength: Double?, expectedFieldStrength: Double?, message: String
    ) {
        self.init(
            state: state.rawValue, quality: quality, coverage: coverage, hardIron: SIMD3(hardIron.x, hardIron.y, hardIron.z),
            softIron: [softIron.row0, softIron.row1, softIron.row2].map { SIMD3($0.x, $0.y, $0.z) },
            fieldStrength: fieldStrength, expectedFieldStrength: expectedFieldStrength, message: message)
    }

    /// ``state`` when it is one of the contract's states.
    public var calibrationState: CalibrationState? { CalibrationState(rawValue: state) }

    /// ``hardIron`` as the compass's vector.
    public var hardIronVector: Vector3? { hardIron.map { Vector3($0.x, $0.y, $0.z) } }

    /// ``softIron`` as the compass's matrix, when it has three rows.
    public var softIronMatrix: Matrix3? {
        guard let rows = softIron, rows.count == 3 else { return nil }
        let vectors = rows.map { Vector3($0.x, $0.y, $0.z) }
        return Matrix3(rows: vectors[0], vectors[1], vectors[2])
    }
}
