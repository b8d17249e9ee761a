/** Lifecycle state of a managed service, as reported by the fleet. */
export enum ServiceStatus {
  Running = 'running',
  Degraded = 'degraded',
  Stopped = 'stopped',
}
