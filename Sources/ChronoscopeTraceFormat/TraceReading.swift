/// What reading a trace file produced: the trace (when the file could be read at all) and every
/// problem found, in line order.
public struct TraceReading: Sendable {
  /// The trace, holding every line that could be used; nil when the file could not be read or
  /// has no usable header.
  public var trace: Trace?
  /// Errors and warnings, in line order; after ``TraceReader/maximumDiagnostics`` the rest are
  /// only counted.
  public var diagnostics: [TraceDiagnostic]
  /// Why the file is not a chronoscope trace at all, when it is not ("the first line is not a
  /// JSON object (…)"): better said once than as an error per line. ``diagnostics`` says it too.
  public var notATrace: String?
  /// How the recording ended, when that is worth a warning, whatever the number of other
  /// diagnostics (also in ``diagnostics`` while they are within their limit): first the missing
  /// end marker, or what explains it — a crash, a stop by a signal, a failed write — then a final
  /// line cut off mid-write, then the recorder's `dropped` lines in line order. Empty for a
  /// trace that closed with nothing dropped. A report shows these first: they say whether the
  /// rest can be trusted.
  package var fate: [TraceDiagnostic] = []
  /// ``fate`` without the recorder's `dropped` lines: the missing end marker or what explains
  /// it, and a final line cut off mid-write — what a command that counts the drops itself
  /// (`export`) repeats.
  package var ending: [TraceDiagnostic] = []
  /// How many errors were found, those beyond ``diagnostics`` included.
  public var errorCount: Int
  /// How many warnings were found, those beyond ``diagnostics`` included.
  public var warningCount: Int

  /// Makes a result; the counts default to those of `diagnostics`.
  public init(
    trace: Trace?, diagnostics: [TraceDiagnostic], notATrace: String? = nil,
    errorCount: Int? = nil, warningCount: Int? = nil
  ) {
    self.trace = trace
    self.diagnostics = diagnostics
    self.notATrace = notATrace
    self.errorCount = errorCount ?? diagnostics.count { $0.severity == .error }
    self.warningCount = warningCount ?? diagnostics.count { $0.severity == .warning }
  }

  /// Whether any diagnostic is an error.
  public var hasErrors: Bool { errorCount > 0 }

  /// Whether any diagnostic is a warning.
  public var hasWarnings: Bool { warningCount > 0 }
}
