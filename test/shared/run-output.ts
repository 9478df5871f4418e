// bmad-run sends a script's output once, in its text (`stdout:` and `stderr:` sections); structuredContent says how
// many bytes each holds. The streams, read back exactly, for tests through either door.
export interface RunStreams {
  stdout: string;
  stderr: string;
}

export function runStreams(text: string, structured: { stdout_bytes?: number; stderr_bytes?: number } | undefined): RunStreams {
  const take = (marker: string, bytes: number, from: number): [string, number] => {
    if (!bytes) return ["", from];
    const at = text.indexOf(marker, from);
    if (at < 0) throw new Error(`no ${marker.trim()} section in: ${text.slice(0, 200)}`);
    const start = at + marker.length;
    const value = new TextDecoder().decode(new TextEncoder().encode(text.slice(start)).subarray(0, bytes));
    return [value, start + value.length];
  };
  const [stdout, after] = take("\nstdout:\n", structured?.stdout_bytes ?? 0, 0);
  const [stderr] = take("\nstderr:\n", structured?.stderr_bytes ?? 0, after);
  return { stdout, stderr };
}

/** structuredContent with the streams added back, as tests read them. */
export function withStreams<T extends Record<string, unknown>>(text: string, structured: T | undefined): (T & RunStreams) | undefined {
  return structured && { ...structured, ...runStreams(text, structured as { stdout_bytes?: number; stderr_bytes?: number }) };
}
