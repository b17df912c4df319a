/// A key press or terminal event, as the terminal adapter reports it.
@_spi(Benchmarks) public enum InputKey: Sendable, Hashable {
  /// A printable character.
  case character(Character)
  case up, down, left, right
  case pageUp, pageDown, home, end
  case enter, escape, tab, backTab, backspace
  /// The terminal was resized to `width` × `height`.
  case resize(width: Int, height: Int)
  /// A mouse button or the wheel, at a cell of the screen.
  case mouse(MouseEvent)
}
