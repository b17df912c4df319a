/// Maps ids from a trace (actions, schedulers, threads) to dense slots without hashing in the common
/// case: ids below a bound that grows with the table live in an array, the rest (sparse or
/// hostile ids) in a dictionary. Preparing a replay looks one up per event, and hashing was most
/// of that time.
struct SlotTable: Sendable {
  /// Slot + 1 by id; 0 for none.
  private var dense: [UInt32] = []
  private var sparse: [UInt32: UInt32] = [:]
  /// How many ids it holds.
  private(set) var count = 0

  init() {}

  /// A table of `ids` numbered in order.
  init(_ ids: some Sequence<UInt32>) {
    for id in ids { insert(id, slot: UInt32(truncatingIfNeeded: count)) }
  }

  /// The slot of `id`, if it has one.
  subscript(id: UInt32) -> Int? {
    let index = Int(id)
    if index < dense.count, dense[index] != 0 { return Int(dense[index] - 1) }
    return sparse.isEmpty ? nil : sparse[id].map(Int.init)
  }

  /// Gives `id` a slot; the array never grows past four times the ids held (at least 64k), so a
  /// hostile id cannot make it huge.
  mutating func insert(_ id: UInt32, slot: UInt32) {
    let index = Int(id)
    let limit = max(1 << 16, 4 * (count + 1))
    if index < limit, slot < .max {
      if index >= dense.count {
        dense.append(
          contentsOf: repeatElement(0, count: max(index + 1, dense.count * 2) - dense.count))
      }
      dense[index] = slot + 1
    } else {
      sparse[id] = slot
    }
    count += 1
  }
}
