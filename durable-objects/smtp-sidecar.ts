import { Container } from "@cloudflare/containers";

/**
 * The SMTP sidecar (workers/smtp-sidecar, its Dockerfile) as a Cloudflare Container. Bound as SMTP_SIDECAR in
 * production only (wrangler.toml): local development and tests run the same service as a Node process instead, reached
 * through SMTP_SIDECAR_URL. Requests to this object are proxied to the container's HTTP port; the container sleeps
 * after a few idle minutes and starts again on the next probe.
 */
export class SmtpSidecar extends Container<Env> {
  override defaultPort = 8025;
  override sleepAfter = "5m";
  override enableInternet = true;

  // The Container base class takes the state with no props, typed `{}` upstream.
  // biome-ignore lint/complexity/noBannedTypes: the base class's own type (above)
  constructor(ctx: DurableObjectState<{}>, env: Env) {
    super(ctx, env);
    this.envVars = {
      SIDECAR_SECRET: env.SMTP_SIDECAR_SECRET,
      ...(env.SMTP_HELO_NAME ? { SMTP_HELO_NAME: env.SMTP_HELO_NAME } : {}),
      ...(env.SMTP_MAIL_FROM ? { SMTP_MAIL_FROM: env.SMTP_MAIL_FROM } : {}),
    };
  }
}
