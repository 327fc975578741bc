/** A Stripe price as the buy buttons and the local payment page show it. */
export interface PriceInMoney {
  /** In the currency's smallest unit (cents), as Stripe's `unit_amount`. */
  amount: number;
  /** ISO code, lower case as Stripe writes it. */
  currency: string;
  /** Set for a subscription's price. */
  interval?: string | null;
}

/**
 * "$10", "$12.50", "$9 a month": whole amounts without cents so the buttons stay short. Every currency Stripe sells
 * these items in has two decimals here; a zero-decimal currency would need Stripe's list, and nothing sells in one.
 */
export function formatMoney({ amount, currency, interval }: PriceInMoney): string {
  const whole = amount % 100 === 0;
  const money = new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: currency.toUpperCase(),
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: whole ? 0 : 2,
  }).format(amount / 100);
  return interval ? `${money} a ${interval}` : money;
}
