import ChronoscopeScheduling

/// A contact in the address book.
package struct Contact: Sendable, Equatable {
  /// The display name.
  package var name: String

  /// Makes a contact.
  package init(name: String) { self.name = name }
}

/// Loads contacts in the background and calls back on its own serial context: the seeds'
/// example of a component that owns its concurrency and takes only a ``SchedulerFactory``.
///
/// ```swift
/// let loader = ContactLoader(factory: ImmediateSchedulerFactory()) { [Contact(name: "Ada")] }
/// loader.loadContacts { print($0) }  // already printed when this returns
/// ```
package final class ContactLoader: Sendable {
  private let worker: any Scheduler
  private let callbacks: any Scheduler
  private let source: @Sendable () -> [Contact]

  /// Makes a loader that reads contacts from `source`, which may be slow.
  package init(factory: any SchedulerFactory, source: @escaping @Sendable () -> [Contact]) {
    worker = factory.makeConcurrent(label: "contacts.load")
    callbacks = factory.makeSerial(label: "contacts.callbacks")
    self.source = source
  }

  /// Loads the contacts off the caller's thread and passes them, sorted by name, to `completion`
  /// on the loader's callback context.
  package func loadContacts(completion: @escaping @Sendable ([Contact]) -> Void) {
    let source = self.source
    let callbacks = self.callbacks
    worker.async {
      let contacts = source().sorted { $0.name < $1.name }
      callbacks.async { completion(contacts) }
    }
  }
}
