import ChronoscopeTraceFormat

extension DiffReport {
  /// The `diff --json` document: keys sorted, every character a terminal would act on escaped
  /// (`JSONEscaping`), no newline at the end.
  package func json() -> [UInt8] {
    var bytes: [UInt8] = []
    let writer = JSONWriter { bytes.append(contentsOf: $0) }
    writer.objectStart()
    writer.member("a", a)
    writer.member("b", b)
    if let firstDivergence {
      writer.key("first_divergence")
      writer.objectStart()
      if let run = firstDivergence.a {
        writer.key("a")
        run.write(to: writer)
      }
      if let run = firstDivergence.b {
        writer.key("b")
        run.write(to: writer)
      }
      writer.member("position", firstDivergence.position)
      writer.objectEnd()
    }
    for (key, actions) in [("only_in_a", onlyInA), ("only_in_b", onlyInB)]
      as [(StaticString, [Action])]
    {
      writer.key(key)
      writer.arrayStart()
      for action in actions { action.write(to: writer) }
      writer.arrayEnd()
    }
    writer.member("origin", origin)
    writer.member("origin_a_ns", originANanoseconds)
    writer.member("origin_b_ns", originBNanoseconds)
    writer.member("origin_mark", originMark)
    writer.member("same", same)
    writer.member("schema", schema)
    writer.key("timing")
    writer.arrayStart()
    for difference in timing { difference.write(to: writer) }
    writer.arrayEnd()
    writer.member("tolerance_ns", toleranceNanoseconds)
    writer.member("version", version)
    writer.objectEnd()
    writer.flush()
    return bytes
  }
}

extension DiffReport.Action {
  fileprivate func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.member("action", action)
    writer.member("occurrence", occurrence)
    writer.member("queue", queue)
    writer.member("scheduled_ns", scheduledNanoseconds)
    writer.member("site", site)
    writer.objectEnd()
  }
}

extension DiffReport.Run {
  fileprivate func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.key("action")
    action.write(to: writer)
    writer.member("began_ns", beganNanoseconds)
    writer.member("run", run)
    writer.objectEnd()
  }
}

extension DiffReport.Timing {
  fileprivate func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.member("a", a)
    writer.key("action")
    action.write(to: writer)
    writer.member("action_b", actionB)
    writer.member("aspect", aspect)
    writer.member("b", b)
    writer.member("run", run)
    writer.objectEnd()
  }
}
