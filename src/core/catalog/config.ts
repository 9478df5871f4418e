// bmad://config/current: the bundle's module configuration with secret-looking keys removed.

const SECRET_KEY = /(secret|token|password|passwd|api[-_]?key|private[-_]?key|credential|auth)/i;

export function sanitizeConfig(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sanitizeConfig);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (!SECRET_KEY.test(k)) out[k] = sanitizeConfig(v);
    }
    return out;
  }
  return value;
}
