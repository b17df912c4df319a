import TraceFormat

extension DiffReport {
  /// The `diff --json` document: keys sorted, every character a terminal would act on escaped
  /// (`JSONEscaping`), no newline at the end.
  public func json() -> [UInt8] {
    var bytes: [UInt8] = []
    let writer = JSONWriter { bytes.append(contentsOf: $0) }
    writer.objectStart()
    writer.key("a")
    writer.value(a)
    writer.key("b")
    writer.value(b)
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
      writer.key("position")
      writer.value(firstDivergence.position)
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
    writer.key("origin")
    writer.value(origin)
    writer.key("origin_a_ns")
    writer.value(originANanoseconds)
    writer.key("origin_b_ns")
    writer.value(originBNanoseconds)
    if let originMark {
      writer.key("origin_mark")
      writer.value(originMark)
    }
    writer.key("same")
    writer.value(same)
    writer.key("schema")
    writer.value(schema)
    writer.key("timing")
    writer.arrayStart()
    for difference in timing { difference.write(to: writer) }
    writer.arrayEnd()
    writer.key("tolerance_ns")
    writer.value(toleranceNanoseconds)
    writer.key("version")
    writer.value(version)
    writer.objectEnd()
    writer.flush()
    return bytes
  }
}

extension DiffReport.Action {
  fileprivate func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.key("action")
    writer.value(action)
    writer.key("occurrence")
    writer.value(occurrence)
    writer.key("queue")
    writer.value(queue)
    writer.key("scheduled_ns")
    writer.value(scheduledNanoseconds)
    writer.key("site")
    writer.value(site)
    writer.objectEnd()
  }
}

extension DiffReport.Run {
  fileprivate func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.key("action")
    action.write(to: writer)
    writer.key("began_ns")
    writer.value(beganNanoseconds)
    writer.key("run")
    writer.value(run)
    writer.objectEnd()
  }
}

extension DiffReport.Timing {
  fileprivate func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.key("a")
    writer.value(a)
    writer.key("action")
    action.write(to: writer)
    writer.key("action_b")
    writer.value(actionB)
    writer.key("aspect")
    writer.value(aspect)
    writer.key("b")
    writer.value(b)
    if let run {
      writer.key("run")
      writer.value(run)
    }
    writer.objectEnd()
  }
}
