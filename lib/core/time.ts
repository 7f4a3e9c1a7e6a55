/** Days, as the service counts them: in UTC. */

export const DAY_MS = 86_400_000;

/** The UTC calendar day of a moment, `YYYY-MM-DD`. */
export const utcDay = (d: Date | number) => new Date(d).toISOString().slice(0, 10);
