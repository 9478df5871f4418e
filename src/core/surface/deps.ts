// What a tool handler may use: the bundle, the caller's identity and, where the front door has them, sessions.
import type { SessionStore } from "../delivery/store.js";
import type { BundleReader } from "./reader.js";

export interface SurfaceDeps {
  reader: BundleReader;
  /** The signed-in user; a fixed local owner until sign-in exists. */
  owner: string;
  sessions?: SessionStore;
}
