@_spi(Benchmarks) import ChronoscopeScreen

@testable import ChronoscopeInspector

/// A panel drawn alone on a monochrome grid of `width` × `height`, read back as the lines a
/// user reads (trailing spaces dropped).
func drawn(
  width: Int = 100, height: Int = 30, _ draw: (inout ScreenGrid, Theme) -> Void
) -> [String] {
  var grid = ScreenGrid(width: width, height: height)
  draw(&grid, Theme(colors: false))
  return grid.plainText.split(separator: "\n", omittingEmptySubsequences: false).map {
    var line = String($0)
    while line.hasSuffix(" ") { line.removeLast() }
    return line
  }
}
