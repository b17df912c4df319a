@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

extension FindingsReport.Entry {
  /// The entry as `chronoscope check` prints it: FILE: TIME: SEVERITY: KIND: #ID QUEUE (SITE):
  /// MESSAGE, with the work's name and values after the id when the app named it:
  ///
  /// `file: 0.123456s: warning: late: #12 "search swift" app.network (App/Loader.swift:40): began 35.000ms after…`
  ///
  /// The text is the trace's as it is: sanitize it before it reaches a terminal.
  @_spi(Benchmarks) public func line(file: String) -> String {
    let scheduler = self.scheduler ?? "scheduler \(schedulerID)"
    let site = self.site.map { " (\(CallSiteRecord.place(file: $0.file, line: $0.line)))" } ?? ""
    let work =
      self.work.map { " \"\(WorkRecord(name: $0.name, fields: $0.values).summary)\"" } ?? ""
    return
      "\(file): \(TimeText.seconds(timeNanoseconds)): \(severity): \(kind): \(action.map { "#\($0)" } ?? "main thread")\(work) \(scheduler)\(site): \(message)"
  }
}
