/** Times and durations as the admin pages show them (UTC, so every reviewer reads the same clock). */

export function dateTime(d: Date | string | null | undefined): string {
  if (!d) return '—';
  const x = typeof d === 'string' ? new Date(d) : d;
  return `${x.toISOString().slice(0, 10)} ${x.toISOString().slice(11, 19)} UTC`;
}

/** "3 d 4 h", "2 h 5 min", "4 min", "less than a minute". */
export function duration(ms: number): string {
  const min = Math.floor(ms / 60_000);
  if (min < 1) return '< 1 min';
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  const m = min % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  return `${m} min`;
}

/** The end of an id: a UUID v7 begins with its time, so its start is shared by every id of the same minutes. */
export const shortId = (id: string) => `…${id.slice(-8)}`;
