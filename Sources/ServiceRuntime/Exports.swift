// The contract's pure types (topic names, device ids, timestamps, statuses, input errors) are part of the
// runtime's API: a service that imports ServiceRuntime sees them.
@_exported public import StepCompassContract
