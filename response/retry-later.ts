// An action that cannot be done yet for an expected reason (no drone free for a mission: the incident was
// escalated for it meanwhile) throws this: it is retried on the action's schedule like any failure, and
// given up at the end like any, but while it waits it is logged at info without a stack, not as a fault.
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
}
