// Project types for the Workers runtime: the main module and env, so `exports` and `env` are typed.
import type { Env as BmadEnv } from "./env.js";

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("./index.js");
    }
    interface Env extends BmadEnv {}
  }
}
