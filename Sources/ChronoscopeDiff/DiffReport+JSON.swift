import ChronoscopeTraceFormat

extension DiffReport {
  /// The `diff --json` document: its `Codable` form through the one JSON writer — keys sorted,
  /// every character a terminal would act on escaped (`JSONEscaping`), no newline at the end.
  package func json() -> [UInt8] { JSONWriterEncoder.bytes(of: self) }
}
