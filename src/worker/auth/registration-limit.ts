// One Durable Object per client address: a fixed-window count of dynamic client registrations. Each call
// reads and writes synchronously, so concurrent registrations from one address cannot slip past the count.
// An alarm at the window's end deletes the record: nothing is kept about an address after that.
import { DurableObject } from "cloudflare:workers";

export type Taken = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Window {
  start: number;
  count: number;
}

export class RegistrationLimit extends DurableObject {
  /** Count one registration unless `limit` were already counted in the current `windowMs`. */
  async take(limit: number, windowMs: number): Promise<Taken> {
    const now = Date.now();
    const kv = this.ctx.storage.kv;
    const stored = kv.get<Window>("window");
    const fresh = !stored || now >= stored.start + windowMs;
    const window = fresh ? { start: now, count: 0 } : stored;
    if (window.count >= limit) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((window.start + windowMs - now) / 1000)) };
    kv.put("window", { start: window.start, count: window.count + 1 });
    if (fresh) await this.ctx.storage.setAlarm(now + windowMs);
    return { ok: true };
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
