import Scheduling
import TraceFormat

/// An event as the hot path stores it: the compact event plus, for a schedule, its call site
/// (interned into a site id by the writer, off the hot path).
struct RawEvent {
  var event: TraceEvent
  var callSite: CallSite?
}
