/** The on-call runbook served as `ops://runbook`. */
export const OPS_RUNBOOK = `# On-call runbook

## Triage
1. List the fleet with \`list_services\` (filter by \`status: "degraded"\` first).
2. Read \`ops://services/{name}\` and \`ops://services/{name}/logs\` for each affected service.
3. Open an incident with the \`incident_summary\` prompt; pick the severity:
   - **sev1**: customer-facing outage
   - **sev2**: major degradation
   - **sev3**: minor degradation, workaround exists
   - **sev4**: no customer impact

## Mitigation
- Degraded under load: \`scale_service\` up (1 to 50 replicas), then watch the logs.
- Stuck or crash-looping: \`restart_service\`. It drops in-flight requests: confirm with a human first.
- Stopped services cannot be scaled; restart them first.

## Escalation
Page the owning team (the service's \`owner\`) for any sev1 or sev2.
`;
