/** Values the Node-side global setup hands to the workerd tests' configuration. */
declare module "vitest" {
  interface ProvidedContext {
    challengeVerifyUrl: string;
    dohUrl: string;
    offlineDohUrl: string;
    rdapUrl: string;
    sidecarUrl: string;
    mailStatsUrl: string;
    mailCatcherUrl: string;
    receiverUrl: string;
    snsCertUrl: string;
    snsSigningKey: string;
    publishersUrl: string;
    partnersUrl: string;
    stripeUrl: string;
    openApiDeskUrl: string;
  }
}
export {};
