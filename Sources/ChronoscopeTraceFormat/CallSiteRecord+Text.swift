extension CallSiteRecord {
  /// Where the site is, as every command and panel writes it: `File.swift:42`, or the file
  /// alone when the trace knows no line (0: code built without debug information, or code the
  /// compiler made) — a line 0 would read as a place that does not exist.
  package var place: String { Self.place(file: file, line: line) }

  /// ``place`` and the function: `File.swift:42 run()`, `feed-refresher main` without a line,
  /// so a site without a line still names where it is.
  package var text: String { Self.text(file: file, line: line, function: function) }

  /// ``place`` of a site known by its parts.
  package static func place(file: String, line: Int) -> String {
    line > 0 ? "\(file):\(line)" : file
  }

  /// ``text`` of a site known by its parts.
  package static func text(file: String, line: Int, function: String) -> String {
    let place = place(file: file, line: line)
    return function.isEmpty ? place : "\(place) \(function)"
  }
}
