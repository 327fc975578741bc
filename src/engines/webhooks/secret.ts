import { randomToken } from "../../platform/tokens";

/**
 * Mints a webhook signing secret (`whsec_` and 32 base62 characters). Every secret in the service comes from here, so
 * jobs, monitors and test deliveries share one format and one source of randomness.
 */
export function mintSecret(): string {
  return `whsec_${randomToken(32)}`;
}
