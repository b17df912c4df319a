import Synchronization

/// Encodes a `Codable` value into a ``JSONWriter``: the documents' one writer, so a report's
/// `Codable` model is also its JSON, with no member-by-member copy to keep in step.
///
/// The bytes are the writer's: keys sorted as `JSONSerialization` sorts them
/// (``JSONWriter/sortedKeys(_:)``), strings escaped for terminals, numbers as
/// `JSONSerialization` writes them, and an optional that is nil left out (`encodeIfPresent`,
/// which synthesized conformances use). A value is gathered as a small tree and then written, so
/// call it per record to stream a long document (a report writes its envelope around the records
/// itself).
///
/// ```swift
/// let writer = JSONWriter { bytes.append(contentsOf: $0) }
/// JSONWriterEncoder.encode(entry, to: writer)
/// ```
///
/// - Complexity: O(the value's size), in time and memory. Keys are put in order by a rank each
///   `CodingKey` type's keys get once (``KeyRanks``), so an object's members sort by integers.
package enum JSONWriterEncoder {
  /// Writes `value` to `writer` as one JSON value.
  package static func encode(_ value: some Encodable, to writer: JSONWriter) {
    let slot = Slot()
    do {
      try value.encode(to: TreeEncoder(slot: slot, codingPath: []))
    } catch {
      // The encoder itself never throws; a type's own `encode(to:)` may, which is a
      // programming error in that type, not a property of any input.
      preconditionFailure("\(type(of: value)) cannot be encoded: \(error)")
    }
    slot.node.write(to: writer)
  }

  /// The whole document of `value`, as bytes.
  package static func bytes(of value: some Encodable) -> [UInt8] {
    var bytes: [UInt8] = []
    let writer = JSONWriter { bytes.append(contentsOf: $0) }
    encode(value, to: writer)
    writer.flush()
    return bytes
  }
}

/// A JSON value under construction: scalars inline, containers by reference so that the
/// containers Codable hands out fill them in place.
private enum Node {
  case null
  case bool(Bool)
  case integer(Int64)
  case double(Double)
  case string(String)
  case array(ArrayNode)
  case object(ObjectNode)

  func write(to writer: JSONWriter) {
    switch self {
    case .null: writer.null()
    case .bool(let value): writer.value(value)
    case .integer(let value): writer.value(value)
    case .double(let value): writer.value(value)
    case .string(let value): writer.value(value)
    case .array(let array):
      writer.arrayStart()
      for element in array.elements { element.write(to: writer) }
      writer.arrayEnd()
    case .object(let object):
      writer.objectStart()
      for index in object.order() {
        writer.key(object.keys[index])
        object.values[index].write(to: writer)
      }
      writer.objectEnd()
    }
  }
}

/// Where an encoder puts the one value it is asked for.
private final class Slot {
  var node: Node = .null
}

private final class ArrayNode {
  var elements: [Node] = []
}

private final class ObjectNode {
  /// Members in the order the value encoded them.
  var keys: [String] = []
  var values: [Node] = []
  /// The ranks of the `CodingKey` type the members were encoded with.
  let ranks: KeyRanks

  init(ranks: KeyRanks) {
    self.ranks = ranks
    keys.reserveCapacity(16)
    values.reserveCapacity(16)
  }

  func append(_ key: String, _ value: Node) {
    keys.append(key)
    values.append(value)
  }

  /// The members' indices in ``JSONWriter/sortedKeys(_:)`` order.
  func order() -> [Int] {
    guard keys.count > 1 else { return Array(keys.indices) }
    return ranks.order(of: keys)
      ?? keys.indices.sorted { JSONWriter.keyPrecedes(keys[$0], keys[$1]) }
  }
}

/// Each key of one `CodingKey` type, ranked in ``JSONWriter/sortedKeys(_:)`` order: the
/// locale-aware comparison runs when a key is first seen, not for every object. A type whose
/// keys are data (a dictionary's, which a trace's work values fill) stops being ranked past
/// ``limit`` keys, and its objects are sorted each time instead — so a hostile trace cannot grow
/// the table.
private final class KeyRanks: Sendable {
  static let limit = 64

  private struct State {
    /// Each key's rank; nil once the type has had more than ``KeyRanks/limit`` keys.
    var ranks: [String: Int]? = [:]
    /// The last key list asked for and its order: objects of one type mostly come in runs with
    /// the same members, and comparing the list is cheaper than hashing each key.
    var lastKeys: [String] = []
    var lastOrder: [Int] = []
  }

  private let state = Mutex(State())

  /// The indices of `keys` in ``JSONWriter/sortedKeys(_:)`` order, or nil past the limit.
  func order(of keys: [String]) -> [Int]? {
    state.withLock { state -> [Int]? in
      if keys == state.lastKeys { return state.lastOrder }
      guard var known = state.ranks else { return nil }
      if Self.lookUp(keys, in: known) == nil {
        state.ranks = nil  // let go while it is rebuilt, so it is not copied
        for key in keys where known[key] == nil { known[key] = 0 }
        guard known.count <= Self.limit else { return nil }
        for (rank, key) in JSONWriter.sortedKeys(known.keys).enumerated() { known[key] = rank }
        state.ranks = known
      }
      guard let ranks = Self.lookUp(keys, in: known) else { return nil }
      let order = keys.indices.sorted { ranks[$0] < ranks[$1] }
      state.lastKeys = keys
      state.lastOrder = order
      return order
    }
  }

  private static func lookUp(_ keys: [String], in known: [String: Int]) -> [Int]? {
    var ranks: [Int] = []
    ranks.reserveCapacity(keys.count)
    for key in keys {
      guard let rank = known[key] else { return nil }
      ranks.append(rank)
    }
    return ranks
  }

  /// The ranks of `Key`'s keys, one table per type for the process.
  static func of<Key: CodingKey>(_ type: Key.Type) -> KeyRanks {
    let id = ObjectIdentifier(type)
    return byType.withLock { tables in
      if let ranks = tables[id] { return ranks }
      let ranks = KeyRanks()
      tables[id] = ranks
      return ranks
    }
  }

  private static let byType = Mutex<[ObjectIdentifier: KeyRanks]>([:])
}

private struct TreeEncoder: Encoder {
  let slot: Slot
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if case .object(let object) = slot.node {
      return KeyedEncodingContainer(Keyed<Key>(object: object, codingPath: codingPath))
    }
    let object = ObjectNode(ranks: KeyRanks.of(Key.self))
    slot.node = .object(object)
    return KeyedEncodingContainer(Keyed<Key>(object: object, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .array(let array) = slot.node { return Unkeyed(array: array, codingPath: codingPath) }
    let array = ArrayNode()
    slot.node = .array(array)
    return Unkeyed(array: array, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    Single(slot: slot, codingPath: codingPath)
  }
}

/// The node of `value`: a scalar as itself, anything else by encoding itself. Scalars are told
/// by their type, compared as metadata (a dynamic cast to `any BinaryInteger` that fails, for
/// every struct member, was most of the encoder's time).
private func node<Value: Encodable>(of value: Value, codingPath: [any CodingKey]) throws -> Node {
  if let scalar = scalar(value) { return scalar }
  let slot = Slot()
  try value.encode(to: TreeEncoder(slot: slot, codingPath: codingPath))
  return slot.node
}

private func scalar<Value: Encodable>(_ value: Value) -> Node? {
  func same<Other>(_ other: Other.Type) -> Other? {
    Value.self == Other.self ? unsafeBitCast(value, to: Other.self) : nil
  }
  if let value = same(String.self) { return .string(value) }
  if let value = same(Int.self) { return .integer(Int64(value)) }
  if let value = same(Int64.self) { return .integer(value) }
  if let value = same(Bool.self) { return .bool(value) }
  if let value = same(Double.self) { return .double(value) }
  if let value = same(UInt32.self) { return .integer(Int64(value)) }
  if let value = same(Int32.self) { return .integer(Int64(value)) }
  if let value = same(UInt64.self) { return .integer(Int64(clamping: value)) }
  if let value = same(UInt.self) { return .integer(Int64(clamping: value)) }
  if let value = same(Float.self) { return .double(Double(value)) }
  if let value = same(UInt16.self) { return .integer(Int64(value)) }
  if let value = same(Int16.self) { return .integer(Int64(value)) }
  if let value = same(UInt8.self) { return .integer(Int64(value)) }
  if let value = same(Int8.self) { return .integer(Int64(value)) }
  return nil
}

private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let object: ObjectNode
  let codingPath: [any CodingKey]

  mutating func encodeNil(forKey key: Key) throws { object.append(key.stringValue, .null) }
  mutating func encode(_ value: Bool, forKey key: Key) throws {
    object.append(key.stringValue, .bool(value))
  }
  mutating func encode(_ value: String, forKey key: Key) throws {
    object.append(key.stringValue, .string(value))
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    object.append(key.stringValue, .double(value))
  }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    object.append(key.stringValue, .integer(Int64(value)))
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    object.append(key.stringValue, .integer(value))
  }

  mutating func encode(_ value: some Encodable, forKey key: Key) throws {
    object.append(key.stringValue, try node(of: value, codingPath: codingPath + [key]))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = ObjectNode(ranks: KeyRanks.of(NestedKey.self))
    object.append(key.stringValue, .object(nested))
    return KeyedEncodingContainer(Keyed<NestedKey>(object: nested, codingPath: codingPath + [key]))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = ArrayNode()
    object.append(key.stringValue, .array(nested))
    return Unkeyed(array: nested, codingPath: codingPath + [key])
  }

  mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    superEncoder(named: key.stringValue)
  }

  /// An encoder whose value becomes member `name` when it is encoded (a super class's, say).
  private func superEncoder(named name: String) -> any Encoder {
    let slot = Slot()
    let nested = ObjectNode(ranks: object.ranks)
    slot.node = .object(nested)
    object.append(name, .object(nested))
    return TreeEncoder(slot: slot, codingPath: codingPath)
  }
}

private struct Unkeyed: UnkeyedEncodingContainer {
  let array: ArrayNode
  let codingPath: [any CodingKey]
  var count: Int { array.elements.count }

  mutating func encodeNil() throws { array.elements.append(.null) }
  mutating func encode(_ value: Int) throws { array.elements.append(.integer(Int64(value))) }
  mutating func encode(_ value: Int64) throws { array.elements.append(.integer(value)) }
  mutating func encode(_ value: String) throws { array.elements.append(.string(value)) }

  mutating func encode(_ value: some Encodable) throws {
    array.elements.append(try node(of: value, codingPath: codingPath))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let nested = ObjectNode(ranks: KeyRanks.of(NestedKey.self))
    array.elements.append(.object(nested))
    return KeyedEncodingContainer(Keyed<NestedKey>(object: nested, codingPath: codingPath))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let nested = ArrayNode()
    array.elements.append(.array(nested))
    return Unkeyed(array: nested, codingPath: codingPath)
  }

  mutating func superEncoder() -> any Encoder {
    let slot = Slot()
    let nested = ObjectNode(ranks: KeyRanks.of(AnyKey.self))
    slot.node = .object(nested)
    array.elements.append(.object(nested))
    return TreeEncoder(slot: slot, codingPath: codingPath)
  }
}

/// The key type of objects nothing names (a super encoder's in an array).
private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

private struct Single: SingleValueEncodingContainer {
  let slot: Slot
  let codingPath: [any CodingKey]

  mutating func encodeNil() throws { slot.node = .null }

  mutating func encode(_ value: some Encodable) throws {
    slot.node = try node(of: value, codingPath: codingPath)
  }
}
