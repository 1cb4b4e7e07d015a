/** The areas whose checks record-traffic.ts records (they need traffic-sized stacks); record-state-logs.ts records the rest. */
export const TRAFFIC_AREAS = ['transactions', 'statement', 'cancel', 'capacity'];
