// Linux only, as `chronoscope record` is: interposing through LD_PRELOAD on glibc and ELF. On
// other systems the library is empty (README, "What builds where").
#if os(Linux)
  import CChronoscopePreload
  import Glibc

  // Queues as the program makes them: each is announced in the trace when made, with its label
  // and whether it is concurrent (from the attribute it was made with).

  private typealias MakeQueue =
    @convention(c) (UnsafePointer<CChar>?, OpaquePointer?) -> OpaquePointer?
  private let realQueueCreate = nextDefinition("dispatch_queue_create", as: MakeQueue.self)
  private let realQueueCreateWithTarget = nextDefinition(
    "dispatch_queue_create_with_target",
    as: (@convention(c) (UnsafePointer<CChar>?, OpaquePointer?, OpaquePointer?) -> OpaquePointer?)
      .self)
  private let realAttrWithQoS = nextDefinition(
    "dispatch_queue_attr_make_with_qos_class",
    as: (@convention(c) (OpaquePointer?, UInt32, Int32) -> OpaquePointer?).self)
  private let realAttrInactive = nextDefinition(
    "dispatch_queue_attr_make_initially_inactive",
    as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self)
  private let realAttrAutorelease = nextDefinition(
    "dispatch_queue_attr_make_with_autorelease_frequency",
    as: (@convention(c) (OpaquePointer?, UInt) -> OpaquePointer?).self)

  private func announce(_ queue: OpaquePointer?, attribute: OpaquePointer?) -> OpaquePointer? {
    guard let queue, let recorder = enterRecorder() else { return queue }
    defer { chronoscope_preload_leave() }
    Preload.queues.made(queue, concurrent: Preload.queues.isConcurrent(attribute), in: recorder)
    return queue
  }

  @_cdecl("dispatch_queue_create")
  package func interposedQueueCreate(_ label: UnsafePointer<CChar>?, _ attribute: OpaquePointer?)
    -> OpaquePointer?
  {
    announce(realQueueCreate(label, attribute), attribute: attribute)
  }

  @_cdecl("dispatch_queue_create_with_target")
  package func interposedQueueCreateWithTarget(
    _ label: UnsafePointer<CChar>?, _ attribute: OpaquePointer?, _ target: OpaquePointer?
  ) -> OpaquePointer? {
    announce(realQueueCreateWithTarget(label, attribute, target), attribute: attribute)
  }

  @_cdecl("dispatch_queue_attr_make_with_qos_class")
  package func interposedAttrWithQoS(
    _ attribute: OpaquePointer?, _ qos: UInt32, _ priority: Int32
  ) -> OpaquePointer? {
    let made = realAttrWithQoS(attribute, qos, priority)
    Preload.queues.derive(made, from: attribute)
    return made
  }

  @_cdecl("dispatch_queue_attr_make_initially_inactive")
  package func interposedAttrInactive(_ attribute: OpaquePointer?) -> OpaquePointer? {
    let made = realAttrInactive(attribute)
    Preload.queues.derive(made, from: attribute)
    return made
  }

  @_cdecl("dispatch_queue_attr_make_with_autorelease_frequency")
  package func interposedAttrAutorelease(_ attribute: OpaquePointer?, _ frequency: UInt)
    -> OpaquePointer?
  {
    let made = realAttrAutorelease(attribute, frequency)
    Preload.queues.derive(made, from: attribute)
    return made
  }
#endif
