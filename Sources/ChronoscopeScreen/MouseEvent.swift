/// A click or a turn of the wheel at one cell of the screen, as the terminal adapter reports it.
///
/// ```swift
/// let click = InputKey.mouse(MouseEvent(.press, column: 4, row: 3))
/// let zoom = InputKey.mouse(MouseEvent(.wheelUp, column: 40, row: 2, control: true))
/// ```
@_spi(Benchmarks) public struct MouseEvent: Sendable, Hashable {
  /// What the mouse did.
  package enum Action: Sendable, Hashable {
    /// The main (left) button went down.
    case press
    /// The wheel turned away from the user (scroll up).
    case wheelUp
    /// The wheel turned towards the user (scroll down).
    case wheelDown
  }

  /// What the mouse did.
  package var action: Action
  /// The cell's column, from 0 at the left.
  package var column: Int
  /// The cell's row, from 0 at the top.
  package var row: Int
  /// Whether Shift was held.
  package var shift: Bool
  /// Whether Control was held.
  package var control: Bool
  /// Whether Alt (Meta) was held.
  package var alt: Bool

  /// Makes an event; modifiers default to none.
  package init(
    _ action: Action, column: Int, row: Int, shift: Bool = false, control: Bool = false,
    alt: Bool = false
  ) {
    self.action = action
    self.column = column
    self.row = row
    self.shift = shift
    self.control = control
    self.alt = alt
  }

  /// Whether any modifier key was held.
  package var hasModifier: Bool { shift || control || alt }
}
