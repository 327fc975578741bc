import { attemptDelivery, type DeliveryMessage } from "../src/engines/webhooks/outbox";

/** Queue consumer of webhook deliveries: one attempt per message through the outbox (src/engines/webhooks). */
export const deliverQueuedWebhook = (env: Env, body: DeliveryMessage) =>
  attemptDelivery(env, body.deliveryId, body.attempt);
