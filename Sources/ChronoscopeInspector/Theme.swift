@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

/// The inspector's styles, in colour or in monochrome (attributes only).
struct Theme {
  let header: Style
  let title: Style
  let selected: Style
  let current: Style
  let dim: Style
  let schedule: Style
  let running: Style
  let cancel: Style
  let mark: Style
  let cursor: Style
  let status: Style
  let warning: Style
  let headerWarning: Style

  init(colors: Bool) {
    func color(_ color: Style.Color, bold: Bool = false) -> Style {
      colors ? Style(foreground: color, bold: bold) : Style(bold: bold)
    }
    header =
      colors
      ? Style(foreground: .black, background: .cyan, bold: true) : Style(bold: true, reverse: true)
    title = Style(bold: true)
    selected = Style(reverse: true)
    current =
      colors
      ? Style(foreground: .black, background: .yellow) : Style(reverse: true, underline: true)
    dim = Style(dim: true)
    schedule = color(.blue)
    running = color(.green, bold: true)
    cancel = color(.red, bold: true)
    mark = color(.magenta, bold: true)
    cursor = color(.yellow, bold: true)
    status = colors ? Style(foreground: .black, background: .white) : Style(reverse: true)
    warning = color(.red, bold: true)
    headerWarning =
      colors
      ? Style(foreground: .red, background: .cyan, bold: true) : Style(bold: true, reverse: true)
  }

  /// The style of a strip glyph for an event of `kind`.
  func style(of kind: TraceEvent.Kind) -> Style {
    switch kind {
    case .schedule, .hop, .task, .work: schedule
    case .begin, .end: running
    case .cancel: cancel
    case .mark, .wait: mark
    }
  }
}
