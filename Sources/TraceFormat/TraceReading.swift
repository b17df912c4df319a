/// What reading a trace file produced: the trace (when the file could be read at all) and every
/// problem found, in line order.
public struct TraceReading: Sendable {
  /// The trace, holding every line that could be used; nil when the file could not be read or
  /// has no usable header.
  public var trace: Trace?
  /// Errors and warnings, in line order.
  public var diagnostics: [TraceDiagnostic]

  /// Makes a result.
  public init(trace: Trace?, diagnostics: [TraceDiagnostic]) {
    self.trace = trace
    self.diagnostics = diagnostics
  }

  /// Whether any diagnostic is an error.
  public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

  /// Whether any diagnostic is a warning.
  public var hasWarnings: Bool { diagnostics.contains { $0.severity == .warning } }
}
