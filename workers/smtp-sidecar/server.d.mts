/** Types for the sidecar's entry module, for the TypeScript test fixtures that start it in-process. */
export interface SidecarConfig {
  secret: string;
  port?: number;
  host?: string;
  smtpPort?: number;
  heloName?: string;
  mailFrom?: string;
  allowLoopback?: boolean;
  /** Resolve MX host names over this DNS-over-HTTPS endpoint (development and tests: the stand-in resolver). */
  dohUrl?: string;
  /** Socket factory (net.connect's shape); tests use it to see, and keep on loopback, every address dialled. */
  connect?: (options: { host: string; port: number }) => import("node:net").Socket;
  log?: (message: string) => void;
  /** Where POST /v1/submit hands customer mail (SMTP_RELAY_HOST, SMTP_RELAY_PORT, SMTP_RELAY_SECURE, _USER, _PASS). */
  relay?: { host: string; port: number; secure: boolean; user?: string; pass?: string };
  /** What each MX address is spared (mx-pacing.mjs PACING_DEFAULTS); the test suite lifts the refusal pacing. */
  pacing?: Partial<{
    refusals: number;
    refusalWindowMs: number;
    sessionErrors: number;
    connects: number;
    connectWindowMs: number;
    backoffMs: number;
    catchAllMs: number;
    freeUncertain: number;
    freeWindowMs: number;
  }>;
}

export function createSidecar(config: SidecarConfig): { listen(): Promise<string>; close(): Promise<void>; readonly url: string };

export function configFromEnv(env: Record<string, string | undefined>): SidecarConfig;
