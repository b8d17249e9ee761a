/** Incident severities, from `sev1` (customer-facing outage) to `sev4` (minor, no customer impact). */
export const INCIDENT_SEVERITIES = ['sev1', 'sev2', 'sev3', 'sev4'] as const;

/** One of {@link INCIDENT_SEVERITIES}. */
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

/** Severity assumed when the user gives none. */
export const DEFAULT_SEVERITY: IncidentSeverity = 'sev3';

/** Whether `value` is a known severity. */
export function isIncidentSeverity(value: string): value is IncidentSeverity {
  return (INCIDENT_SEVERITIES as readonly string[]).includes(value);
}
